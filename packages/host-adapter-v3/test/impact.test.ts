import { type Capability, ConsoleLogger } from '@media-agent/sdk';
import {
  V3CapabilityRegistry,
  V3DownloadPlanPayloadSchema,
  V3OrganizePlanPayloadSchema,
} from '@media-agent/host-adapter-v3';
import {
  SIM_DIRECTORIES,
  SIM_RELEASES,
  type SimDirectory,
  type SimOptions,
} from '@media-agent/host-adapter-v3/testing';
import { Compile } from 'typebox/compile';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCleanups, v3Setup } from './helpers';

const admin = { actor: 'user:admin' } as const;
const DUNE_2160 = SIM_RELEASES[0]!;
const DUNE_1080 = SIM_RELEASES[1]!;
/** Directories unlike the defaults, so every path in an impact is seen to come from the host. */
const DIRECTORIES: SimDirectory[] = SIM_DIRECTORIES.map((d) => ({
  ...d,
  download_path: '/srv/dl',
  library_path: '/srv/library/films',
}));

afterEach(async () => {
  vi.restoreAllMocks();
  await runCleanups();
});

/** A simulator and host (a 2 TB disk, 600 GB free), the capabilities as registered, and helpers. */
async function setup(sim: SimOptions = {}) {
  const registered = new Map<string, Capability<any, any>>();
  const register = V3CapabilityRegistry.prototype.register;
  vi.spyOn(V3CapabilityRegistry.prototype, 'register').mockImplementation(function (
    this: V3CapabilityRegistry,
    c: Capability<any, any>,
  ) {
    registered.set(c.id, c);
    return register.call(this, c);
  });
  const s = await v3Setup({ sim: { disk: { totalBytes: 2e12, freeBytes: 600e9 }, directories: DIRECTORIES, ...sim } });
  const ok = async (id: string, input: unknown) => {
    const r = await s.host.invoke(id, input, admin);
    expect(r.status, `${id}: ${JSON.stringify(r.error)}`).toMatch(/succeeded|pending/);
    return r.output as any;
  };
  /** Runs a capability's impact as the host would (a read), asserting it sent no write to the host. */
  const impact = async (id: string, input: unknown, planId?: string) => {
    const before = s.sim.requests.length;
    const plan = planId ? await s.host.plans.get(planId) : undefined;
    const out = await registered.get(id)!.impact!(input as never, {
      actor: 'user:admin',
      runId: undefined,
      plan,
      signal: new AbortController().signal,
      clock: s.clock,
      logger: new ConsoleLogger('silent'),
    });
    const sent = s.sim.requests.slice(before);
    expect(sent.length, `${id} impact read the host`).toBeGreaterThan(0);
    expect(
      sent.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.url}`),
      `${id} impact sent a write`,
    ).toEqual([]);
    return out;
  };
  const releaseId = async (name: string) =>
    ((await ok('release.search', { mediaSource: 'tmdb', mediaId: '693134', limit: 5 })).releases as any[]).find(
      (r) => r.name === name,
    ).releaseId as string;
  const planDune = async (name = DUNE_2160.title) =>
    ok('download.plan', { mediaSource: 'tmdb', mediaId: '693134', kind: 'movie', releaseId: await releaseId(name) });
  return { ...s, registered, ok, impact, releaseId, planDune };
}

describe('V3 impacts from the host (simulator over HTTP)', () => {
  it('download.plan and download.submit: the torrent size into the download path, the downloader free space before and after; not reversible through the API', async () => {
    const { sim, impact, planDune, releaseId, registered } = await setup();
    const input = {
      mediaSource: 'tmdb',
      mediaId: '693134',
      kind: 'movie',
      releaseId: await releaseId(DUNE_2160.title),
    };
    const free = sim.freeBytes();
    expect(free).toBe(600e9);
    expect(await impact('download.plan', input)).toMatchObject({
      downloadBytes: DUNE_2160.size,
      path: '/srv/dl',
      freeBytesBefore: free,
      freeBytesAfter: free - DUNE_2160.size,
      reversible: false,
    });
    const plan = await planDune();
    expect(await impact('download.submit', { planId: plan.plan.id }, plan.plan.id)).toMatchObject({
      downloadBytes: DUNE_2160.size,
      path: '/srv/dl',
      freeBytesBefore: free,
      freeBytesAfter: free - DUNE_2160.size,
      reversible: false,
    });
    expect(registered.get('download.submit')!.inverse).toBeUndefined();
    sim.assertNoViolations();
  });

  it('task.cancel: nothing is deleted (the V3 catalog has no torrent delete); the download keeps what it holds', async () => {
    const { sim, clock, ok, impact, planDune } = await setup();
    const job = (await ok('download.submit', { planId: (await planDune(DUNE_1080.title)).plan.id })).download;
    clock.advance(1000 + 5000); // queued 1 s, then half of the 10 s download
    const free = sim.freeBytes();
    expect(free).toBe(600e9 - Math.round(DUNE_1080.size / 2));
    const cancel = await impact('task.cancel', { taskId: job.id });
    expect(cancel).toMatchObject({
      deleteBytes: 0,
      filesDeleted: 0,
      path: `/srv/dl/${DUNE_1080.title}`,
      freeBytesBefore: free,
      freeBytesAfter: free,
      reversible: true,
    });
    expect(cancel.notes).toEqual(expect.arrayContaining([expect.stringContaining(String(DUNE_1080.size / 2))]));
  });

  it('organize.plan / organize.execute: copy writes the size into the library directory, hardlink writes nothing, move cannot be undone', async () => {
    const { sim, clock, ok, impact, planDune } = await setup();
    const job = (await ok('download.submit', { planId: (await planDune()).plan.id })).download;
    clock.advance(60_000);
    const free = sim.freeBytes();
    expect(free).toBe(600e9 - DUNE_2160.size);
    expect(await impact('organize.plan', { downloadId: job.id, mode: 'copy' })).toMatchObject({
      writeBytes: DUNE_2160.size,
      filesCreated: 1,
      path: '/srv/library/films',
      freeBytesBefore: free,
      freeBytesAfter: free - DUNE_2160.size,
      transferMode: 'copy',
      reversible: true,
      reversibleBy: 'inverse',
    });
    expect(await impact('organize.plan', { downloadId: job.id, mode: 'move' })).toMatchObject({
      filesMoved: 1,
      freeBytesAfter: free,
      reversible: false,
    });
    const plan = await ok('organize.plan', { downloadId: job.id });
    const linked = await impact('organize.execute', { planId: plan.plan.id }, plan.plan.id);
    expect(linked).toMatchObject({
      filesCreated: 1,
      path: '/srv/library/films/Dune: Part Two (2024)',
      freeBytesBefore: free,
      freeBytesAfter: free,
      transferMode: 'hardlink',
      reversible: true,
    });
    expect(linked.writeBytes).toBeUndefined();
    sim.assertNoViolations();
  });

  it('organize: a title already in the library is overwritten when the host overwrites (not reversible)', async () => {
    const { sim, clock, ok, impact, planDune } = await setup({
      directories: DIRECTORIES.map((d) => ({ ...d, overwrite_mode: 'always' })),
    });
    const job = (await ok('download.submit', { planId: (await planDune()).plan.id })).download;
    clock.advance(60_000);
    sim.placeInLibrary('themoviedb:693134');
    const plan = await ok('organize.plan', { downloadId: job.id, mode: 'copy' });
    expect(await impact('organize.execute', { planId: plan.plan.id }, plan.plan.id)).toMatchObject({
      filesOverwritten: 1,
      filesCreated: 0,
      writeBytes: DUNE_2160.size,
      reversible: false,
    });
  });

  it('organize.execute is undone by moviepilot.organize.revert (transfer history delete with its library files); a move is refused', async () => {
    const { sim, clock, ok, planDune, registered, host } = await setup();
    const job = (await ok('download.submit', { planId: (await planDune()).plan.id })).download;
    clock.advance(60_000);
    const free = sim.freeBytes();
    const done = await ok('organize.execute', {
      planId: (await ok('organize.plan', { downloadId: job.id, mode: 'copy' })).plan.id,
    });
    expect(sim.freeBytes()).toBe(free - DUNE_2160.size);
    expect(sim.inLibrary('themoviedb:693134')).toBe(true);
    const inverse = registered.get('organize.execute')!.inverse!;
    // a lost answer is settled by the transfer history: the record still there → not reverted
    const verify = (organizeId: string) =>
      registered.get(inverse.capability)!.verify!({
        input: { organizeId },
        entry: {} as never,
        read: async (id, input) => (await host.invoke(id, input, admin)).output,
        signal: new AbortController().signal,
      });
    expect(await verify(done.organize.id)).toMatchObject({ status: 'failed' });
    expect((await ok(inverse.capability, inverse.input(done))).organizeId).toBe(done.organize.id);
    expect(sim.inLibrary('themoviedb:693134')).toBe(false);
    expect(sim.transfers()).toEqual([]);
    expect(await verify(done.organize.id)).toMatchObject({ status: 'succeeded' });
    expect(sim.freeBytes()).toBe(free);
    const moved = await ok('organize.execute', {
      planId: (await ok('organize.plan', { downloadId: job.id, mode: 'move' })).plan.id,
    });
    const refused = await host.invoke(inverse.capability, inverse.input(moved), admin);
    expect(refused).toMatchObject({ status: 'failed', error: { code: 'MEDIA_INVALID_STATE' } });
    expect(sim.requestsFor('transfer.history.delete')).toHaveLength(1);
    sim.assertNoViolations();
  });

  it('policy.apply: the changes, reversible by moviepilot.policy.revert', async () => {
    const { ok, impact, registered } = await setup();
    await ok('policy.apply', { kind: 'acquisition', settings: { minResolution: '1080p' } });
    const input = { kind: 'acquisition', settings: { minResolution: '2160p' } };
    const registeredImpact = registered.get('policy.apply')!.impact!;
    const i = await registeredImpact(input as never, {} as never);
    expect(i).toMatchObject({ reversible: true, reversibleBy: 'inverse' });
    expect(i.notes).toEqual(expect.arrayContaining(['minResolution: "1080p" → "2160p"']));
    void impact; // policies are kept by the adapter: this impact reads no host endpoint
    const applied = await ok('policy.apply', input);
    const inverse = registered.get('policy.apply')!.inverse!;
    expect(await ok(inverse.capability, inverse.input(applied))).toMatchObject({
      revision: 3,
      settings: { minResolution: '1080p' },
    });
  });
});

describe('V3 plan payloads an approver may edit', () => {
  it('planPayload accepts the payloads the plans freeze and rejects broken ones', async () => {
    const { ok, planDune, clock, host, registered } = await setup();
    expect(registered.get('download.submit')!.planPayload).toBe(V3DownloadPlanPayloadSchema);
    expect(registered.get('organize.execute')!.planPayload).toBe(V3OrganizePlanPayloadSchema);
    const download = Compile(V3DownloadPlanPayloadSchema);
    const organize = Compile(V3OrganizePlanPayloadSchema);
    const plan = await planDune();
    const payload = (await host.plans.get(plan.plan.id)).payload as any;
    expect(download.Check(payload)).toBe(true);
    expect(download.Check({ ...payload, releaseId: 'x' })).toBe(false);
    expect(download.Check({ ...payload, torrent_in: {} })).toBe(false);
    const job = (await ok('download.submit', { planId: plan.plan.id })).download;
    clock.advance(60_000);
    const org = await ok('organize.plan', { downloadId: job.id, mode: 'copy' });
    const orgPayload = (await host.plans.get(org.plan.id)).payload as any;
    expect(organize.Check(orgPayload)).toBe(true);
    expect(organize.Check({ ...orgPayload, mode: 'softlink' })).toBe(false);
    expect(organize.Check({ ...orgPayload, request: { ...orgPayload.request, fileitem: undefined } })).toBe(false);
  });

  it('download.submit sends the edited release; a half edit or an unknown release sends nothing', async () => {
    const { ok, planDune, host, sim } = await setup();
    const plan = await planDune(DUNE_2160.title);
    const other = (await host.plans.get((await planDune(DUNE_1080.title)).plan.id)).payload as any;
    const original = (await host.plans.get(plan.plan.id)).payload as any;
    await host.plans.revise(plan.plan.id, { ...original, releaseId: other.releaseId }, 1);
    expect(await host.invoke('download.submit', { planId: plan.plan.id }, admin)).toMatchObject({
      status: 'failed',
      error: { code: 'MEDIA_PLAN_CONFLICT' },
    });
    const { createHash } = await import('node:crypto');
    const enclosure = 'https://pt.example/download/9999';
    const fakeId = `r${createHash('sha256').update(`${original.torrent_in.site_name}\n${enclosure}`).digest('hex').slice(0, 16)}`;
    await host.plans.revise(
      plan.plan.id,
      { ...original, releaseId: fakeId, torrent_in: { ...original.torrent_in, enclosure } },
      2,
    );
    expect(await host.invoke('download.submit', { planId: plan.plan.id }, admin)).toMatchObject({
      status: 'failed',
      error: { code: 'MEDIA_NOT_FOUND' },
    });
    expect(sim.requestsFor('download.add')).toHaveLength(0);
    await host.plans.revise(plan.plan.id, other, 3);
    await ok('download.submit', { planId: plan.plan.id });
    expect(sim.downloads().map((d) => d.title)).toEqual([DUNE_1080.title]);
  });

  it('organize.execute sends the edited mode; a mode edited without its transfer type sends nothing', async () => {
    const { ok, planDune, host, sim, clock } = await setup();
    const job = (await ok('download.submit', { planId: (await planDune()).plan.id })).download;
    clock.advance(60_000);
    const plan = await ok('organize.plan', { downloadId: job.id });
    const p = (await host.plans.get(plan.plan.id)).payload as any;
    await host.plans.revise(plan.plan.id, { ...p, mode: 'copy' }, 1);
    expect(await host.invoke('organize.execute', { planId: plan.plan.id }, admin)).toMatchObject({
      status: 'failed',
      error: { code: 'MEDIA_PLAN_CONFLICT' },
    });
    const sentBefore = sim.requestsFor('transfer.file').length;
    await host.plans.revise(plan.plan.id, { ...p, mode: 'copy', request: { ...p.request, transfer_type: 'copy' } }, 2);
    await ok('organize.execute', { planId: plan.plan.id });
    expect(sim.requestsFor('transfer.file').length).toBe(sentBefore + 1);
    expect(sim.transfers().map((t) => t.mode)).toEqual(['copy']);
  });
});
