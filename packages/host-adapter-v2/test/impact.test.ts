import { type Capability, ConsoleLogger } from '@media-agent/sdk';
import { type SimDirectory, SIM_DIRECTORIES, SIM_RELEASES } from '@media-agent/host-adapter-v2/testing';
import { Compile } from 'typebox/compile';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { V2CapabilityRegistry, V2DownloadPlanPayloadSchema, V2OrganizePlanPayloadSchema } from '../src/index';
import { cleanup, v2Setup } from './helpers';

const admin = { actor: 'user:admin', taskId: 't' } as const;
const DUNE_2160 = SIM_RELEASES[0]!;
const DUNE_1080 = SIM_RELEASES[1]!;
/** Directories unlike the defaults, so every path in an impact is seen to come from the host. */
const DIRECTORIES: SimDirectory[] = SIM_DIRECTORIES.map((d) => ({
  ...d,
  download_path: `/srv/dl/${d.name}`,
  library_path: `/srv/library/${d.name}`,
}));

afterEach(async () => {
  vi.restoreAllMocks();
  await cleanup();
});

/** A simulator and host (no automatic organize, a 600 GB-free disk), the capabilities as registered, and helpers. */
async function setup(sim: NonNullable<Parameters<typeof v2Setup>[0]>['sim'] = {}) {
  const registered = new Map<string, Capability<any, any>>();
  const register = V2CapabilityRegistry.prototype.register;
  vi.spyOn(V2CapabilityRegistry.prototype, 'register').mockImplementation(function (
    this: V2CapabilityRegistry,
    c: Capability<any, any>,
  ) {
    registered.set(c.id, c);
    return register.call(this, c);
  });
  const s = await v2Setup({
    sim: { autoTransfer: false, disk: { totalBytes: 2e12, freeBytes: 600e9 }, directories: DIRECTORIES, ...sim },
  });
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
      sent.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`),
      `${id} impact sent a write`,
    ).toEqual([]);
    return out;
  };
  const releaseId = async (name: string) =>
    ((await ok('release.search', { mediaSource: 'tmdb', mediaId: '693134' })).releases as any[]).find(
      (r) => r.name === name,
    ).releaseId as string;
  const planDune = async (name = DUNE_2160.title) =>
    ok('download.plan', { mediaSource: 'tmdb', mediaId: '693134', kind: 'movie', releaseId: await releaseId(name) });
  return { ...s, registered, ok, impact, releaseId, planDune };
}

describe('V2 impacts from the host (simulator over HTTP)', () => {
  it('download.plan and download.submit: the torrent size into the download directory, the downloader free space before and after; undone by task.cancel', async () => {
    const { sim, impact, planDune, releaseId, registered } = await setup();
    const input = {
      mediaSource: 'tmdb',
      mediaId: '693134',
      kind: 'movie',
      releaseId: await releaseId(DUNE_2160.title),
    };
    const free = sim.freeBytes();
    expect(free).toBe(600e9);
    const planned = await impact('download.plan', input);
    expect(planned).toMatchObject({
      downloadBytes: DUNE_2160.size,
      path: '/srv/dl/电影',
      freeBytesBefore: free,
      freeBytesAfter: free - DUNE_2160.size,
      reversible: true,
      reversibleBy: 'inverse',
    });
    const plan = await planDune();
    const submitted = await impact('download.submit', { planId: plan.plan.id }, plan.plan.id);
    expect(submitted).toMatchObject({
      downloadBytes: DUNE_2160.size,
      path: '/srv/dl/电影',
      freeBytesBefore: free,
      freeBytesAfter: free - DUNE_2160.size,
      reversible: true,
    });
    expect(registered.get('download.submit')!.inverse!.capability).toBe('task.cancel');
  });

  it('task.cancel: the bytes downloaded so far are deleted (the host removes the torrent with its files), not reversible', async () => {
    const { sim, clock, ok, impact, planDune } = await setup();
    const job = (await ok('download.submit', { planId: (await planDune(DUNE_1080.title)).plan.id })).download;
    clock.advance(1000 + 2500); // queued 1 s, then half of the 5 s download
    sim.stallDownload(job.id);
    const free = sim.freeBytes();
    expect(free).toBe(600e9 - Math.round(DUNE_1080.size / 2));
    const cancel = await impact('task.cancel', { taskId: job.id });
    expect(cancel).toMatchObject({
      deleteBytes: Math.round(DUNE_1080.size / 2),
      filesDeleted: 1,
      path: `/srv/dl/电影/${DUNE_1080.title}`,
      freeBytesBefore: free,
      freeBytesAfter: free + Math.round(DUNE_1080.size / 2),
      reversible: false,
    });
    await ok('task.cancel', { taskId: job.id });
    expect(sim.freeBytes()).toBe(cancel.freeBytesAfter); // the impact said what the host then did
  });

  it('organize.plan / organize.execute: copy writes the size into the library directory, hardlink writes nothing, move moves and cannot be undone', async () => {
    const { sim, clock, ok, impact, planDune } = await setup();
    const job = (await ok('download.submit', { planId: (await planDune()).plan.id })).download;
    clock.advance(60_000);
    const free = sim.freeBytes();
    expect(free).toBe(600e9 - DUNE_2160.size);
    expect(await impact('organize.plan', { downloadId: job.id, mode: 'copy' })).toMatchObject({
      writeBytes: DUNE_2160.size,
      filesCreated: 1,
      path: '/srv/library/电影',
      freeBytesBefore: free,
      freeBytesAfter: free - DUNE_2160.size,
      transferMode: 'copy',
      reversible: true,
      reversibleBy: 'inverse',
    });
    const moved = await impact('organize.plan', { downloadId: job.id, mode: 'move' });
    expect(moved).toMatchObject({ filesMoved: 1, freeBytesAfter: free, transferMode: 'move', reversible: false });
    expect(moved.writeBytes).toBeUndefined();
    const plan = await ok('organize.plan', { downloadId: job.id });
    const linked = await impact('organize.execute', { planId: plan.plan.id }, plan.plan.id);
    expect(linked).toMatchObject({
      filesCreated: 1,
      path: '/srv/library/电影',
      freeBytesBefore: free,
      freeBytesAfter: free,
      transferMode: 'hardlink',
      reversible: true,
    });
    expect(linked.writeBytes).toBeUndefined();
  });

  it('organize: a title already at the target is overwritten when the host overwrites (not reversible), skipped when it never does', async () => {
    const always = await setup({ directories: DIRECTORIES.map((d) => ({ ...d, overwrite_mode: 'always' })) });
    const job = (await always.ok('download.submit', { planId: (await always.planDune()).plan.id })).download;
    always.clock.advance(60_000);
    always.sim.placeInLibrary(693134);
    const plan = await always.ok('organize.plan', { downloadId: job.id, mode: 'copy' });
    expect(await always.impact('organize.execute', { planId: plan.plan.id }, plan.plan.id)).toMatchObject({
      filesOverwritten: 1,
      filesCreated: 0,
      writeBytes: DUNE_2160.size,
      reversible: false,
    });
    await cleanup();
    vi.restoreAllMocks();
    const never = await setup();
    const job2 = (await never.ok('download.submit', { planId: (await never.planDune()).plan.id })).download;
    never.clock.advance(60_000);
    never.sim.placeInLibrary(693134);
    const skipped = await never.impact('organize.plan', { downloadId: job2.id, mode: 'copy' });
    expect(skipped.filesOverwritten).toBeUndefined();
    expect(skipped.notes).toEqual(expect.arrayContaining([expect.stringMatching(/never overwrites/)]));
  });

  it('organize.execute is undone by moviepilot.organize.revert: the library copy and the transfer record go, the free space comes back; a move is refused', async () => {
    const { sim, clock, ok, planDune, registered, host } = await setup();
    const job = (await ok('download.submit', { planId: (await planDune()).plan.id })).download;
    clock.advance(60_000);
    const free = sim.freeBytes();
    const plan = await ok('organize.plan', { downloadId: job.id, mode: 'copy' });
    const done = await ok('organize.execute', { planId: plan.plan.id });
    expect(sim.freeBytes()).toBe(free - DUNE_2160.size);
    expect(sim.inLibrary(693134)).toBe(true);
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
    const reverted = await ok(inverse.capability, inverse.input(done));
    expect(reverted.organizeId).toBe(done.organize.id);
    expect(sim.inLibrary(693134)).toBe(false);
    expect(sim.transfers()).toEqual([]);
    expect(await verify(done.organize.id)).toMatchObject({ status: 'succeeded' });
    expect(sim.freeBytes()).toBe(free);
    expect(sim.requestCount('DELETE /api/v1/history/transfer')).toBe(1);
    // a moved transfer's library files are the only copy
    const moved = await ok('organize.execute', {
      planId: (await ok('organize.plan', { downloadId: job.id, mode: 'move' })).plan.id,
    });
    const refused = await host.invoke(inverse.capability, inverse.input(moved), admin);
    expect(refused).toMatchObject({ status: 'failed', error: { code: 'MEDIA_INVALID_STATE' } });
    expect(sim.requestCount('DELETE /api/v1/history/transfer')).toBe(1);
    sim.assertNoViolations();
  });

  it('policy.apply: the changes, reversible by moviepilot.policy.revert (the previous settings come back)', async () => {
    const { ok, impact, registered, sim } = await setup();
    await ok('policy.apply', { kind: 'acquisition', settings: { minResolution: '1080p' } });
    const input = { kind: 'acquisition', settings: { minResolution: '2160p' } };
    const i = await impact('policy.apply', input);
    expect(i).toMatchObject({ reversible: true, reversibleBy: 'inverse' });
    expect(i.notes).toEqual(expect.arrayContaining(['minResolution: "1080p" → "2160p"']));
    const applied = await ok('policy.apply', input);
    expect(applied.revision).toBe(2);
    const inverse = registered.get('policy.apply')!.inverse!;
    const reverted = await ok(inverse.capability, inverse.input(applied));
    expect(reverted).toMatchObject({ revision: 3, settings: { minResolution: '1080p' } });
    expect((await ok('policy.preview', { kind: 'acquisition', settings: {} })).current).toEqual({
      minResolution: '1080p',
    });
    sim.assertNoViolations();
  });
});

describe('V2 plan payloads an approver may edit', () => {
  it('planPayload accepts the payloads download.plan and organize.plan freeze and rejects broken ones', async () => {
    const { ok, planDune, clock, host, registered } = await setup();
    const download = Compile(registered.get('download.submit')!.planPayload!);
    const organize = Compile(registered.get('organize.execute')!.planPayload!);
    expect(registered.get('download.submit')!.planPayload).toBe(V2DownloadPlanPayloadSchema);
    expect(registered.get('organize.execute')!.planPayload).toBe(V2OrganizePlanPayloadSchema);
    const plan = await planDune();
    const payload = (await host.plans.get(plan.plan.id)).payload as any;
    expect(download.Check(payload)).toBe(true);
    expect(download.Check({ ...payload, releaseId: 'not-a-release' })).toBe(false);
    expect(download.Check({ ...payload, torrent_in: { title: payload.torrent_in.title } })).toBe(false);
    expect(download.Check({ ...payload, extra: 1 })).toBe(false);
    const job = (await ok('download.submit', { planId: plan.plan.id })).download;
    clock.advance(60_000);
    const org = await ok('organize.plan', { downloadId: job.id, mode: 'copy' });
    const orgPayload = (await host.plans.get(org.plan.id)).payload as any;
    expect(organize.Check(orgPayload)).toBe(true);
    expect(organize.Check({ ...orgPayload, mode: 'symlink' })).toBe(false);
    expect(organize.Check({ ...orgPayload, files: [] })).toBe(false);
    expect(download.Check(orgPayload)).toBe(false);
  });

  it('download.submit sends the edited release; an edit that does not hang together or names a release the host does not have sends nothing', async () => {
    const { ok, planDune, host, sim } = await setup();
    const plan = await planDune(DUNE_2160.title);
    const other = (await host.plans.get((await planDune(DUNE_1080.title)).plan.id)).payload as any;
    const original = (await host.plans.get(plan.plan.id)).payload as any;
    // half an edit: the release id of another release, the torrent of the first
    await host.plans.revise(plan.plan.id, { ...original, releaseId: other.releaseId }, 1);
    const half = await host.invoke('download.submit', { planId: plan.plan.id }, admin);
    expect(half).toMatchObject({ status: 'failed', error: { code: 'MEDIA_PLAN_CONFLICT' } });
    // a release the host never found (consistent, but not among its search results)
    const { createHash } = await import('node:crypto');
    const enclosure = `magnet:?xt=urn:btih:${'b'.repeat(40)}`;
    const fakeTorrent = { ...original.torrent_in, enclosure };
    const fakeId = `r${createHash('sha256').update(`${fakeTorrent.site_name}|${enclosure}|${fakeTorrent.title}`).digest('hex').slice(0, 20)}`;
    await host.plans.revise(
      plan.plan.id,
      { ...original, releaseId: fakeId, hash: 'b'.repeat(40), torrent_in: fakeTorrent },
      2,
    );
    const fake = await host.invoke('download.submit', { planId: plan.plan.id }, admin);
    expect(fake).toMatchObject({ status: 'failed', error: { code: 'MEDIA_NOT_FOUND' } });
    expect(sim.requestCount('POST /api/v1/download/')).toBe(0);
    // a whole edit: the other release
    await host.plans.revise(plan.plan.id, other, 3);
    const job = (await ok('download.submit', { planId: plan.plan.id })).download;
    expect(sim.downloads().map((d) => d.name)).toEqual([DUNE_1080.title]);
    expect(job.releaseName).toBe(DUNE_1080.title);
  });

  it('organize.execute sends the edited mode; a mode edited without its transfer type sends nothing', async () => {
    const { ok, planDune, host, sim, clock } = await setup();
    const job = (await ok('download.submit', { planId: (await planDune()).plan.id })).download;
    clock.advance(60_000);
    const plan = await ok('organize.plan', { downloadId: job.id });
    const p = (await host.plans.get(plan.plan.id)).payload as any;
    await host.plans.revise(plan.plan.id, { ...p, mode: 'copy' }, 1);
    const half = await host.invoke('organize.execute', { planId: plan.plan.id }, admin);
    expect(half).toMatchObject({ status: 'failed', error: { code: 'MEDIA_PLAN_CONFLICT' } });
    expect(sim.requestCount('POST /api/v1/transfer/manual')).toBe(0);
    await host.plans.revise(
      plan.plan.id,
      { ...p, mode: 'copy', transfer: { ...p.transfer, transfer_type: 'copy' } },
      2,
    );
    await ok('organize.execute', { planId: plan.plan.id });
    expect(sim.transfers().map((t) => t.mode)).toEqual(['copy']);
  });
});
