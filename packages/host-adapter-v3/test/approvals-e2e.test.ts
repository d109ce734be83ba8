// Approvals a household can trust, end to end on MoviePilot 3.x: the adapter's real host against the simulator over
// HTTP, through the public paths only (host.invoke with dryRun, host.approvals, a run's denied submit, host.undo).
// Dry runs send no write to the host and claim nothing; an approval carries the impact from the host's own data; an
// edit ("yes, but the 1080p one") is what the host receives, once; undo runs the adapter's declared inverses.
import { type Actor, type InvocationDryRun, planSteps } from '@media-agent/sdk';
import { type LedgerEntry, MemoryStorage } from '@media-agent/sdk/storage';
import { requestedApproval } from '@media-agent/sdk/testing';
import { type SimDirectory, SIM_DIRECTORIES, SIM_RELEASES } from '@media-agent/host-adapter-v3/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runCleanups, v3Setup, waitForStatus } from './helpers';

const admin = { actor: 'user:admin' } as const;
/** An API key: not a host superuser, not an administrator, needs an approval or a grant for any execute. */
const kitchen = { actor: 'apikey:kitchen' } as const;
/** An ordinary person. */
const bob: Actor = 'user:bob';
/** Host roles: `user:admin` is a host superuser (and so an administrator); every other person and key is not. */
const principalRole = (p: string) =>
  p === 'user:admin' ? ('superuser' as const) : /^(user|apikey):/.test(p) ? ('user' as const) : undefined;
const DUNE_2160 = SIM_RELEASES[0]!;
const DUNE_1080 = SIM_RELEASES[1]!;
const DIRECTORIES: SimDirectory[] = SIM_DIRECTORIES.map((d) => ({
  ...d,
  download_path: '/srv/dl',
  library_path: '/srv/library/films',
}));
const STATES = ['running', 'succeeded', 'failed', 'pending', 'unknown'] as const;

afterEach(runCleanups);

/** A simulator (2 TB disk, 600 GB free) and the V3 host on a storage we read, with host roles. */
async function setup(options: { autoTransfer?: boolean } = {}) {
  const storage = new MemoryStorage();
  const s = await v3Setup({
    sim: {
      disk: { totalBytes: 2e12, freeBytes: 600e9 },
      directories: DIRECTORIES,
      ...(options.autoTransfer ? { autoTransfer: true } : {}),
    },
    host: { storage, principalRole },
  });
  const ok = async (id: string, input: unknown, context: { actor: Actor } = admin) => {
    const r = await s.host.invoke(id, input, context);
    expect(r.status, `${id}: ${JSON.stringify(r.error)}`).toMatch(/succeeded|pending/);
    return r as typeof r & { output: any };
  };
  const dryRun = async (id: string, input: unknown, context: { actor: Actor; approvalId?: string }) =>
    (await s.host.invoke(id, input, { ...context, dryRun: true })) as InvocationDryRun;
  const ledger = async (): Promise<LedgerEntry[]> => storage.ledger.listByState(STATES, { limit: 1000 });
  /** The operations the simulator received since `from` that are not reads. */
  const writesSince = (from: number) =>
    s.sim.requests
      .slice(from)
      .filter((r) => r.method !== 'GET' && r.operationId !== 'login.access_token')
      .map((r) => r.operationId ?? `${r.method} ${r.url}`);
  const releaseId = async (name: string) =>
    ((await ok('release.search', { mediaSource: 'tmdb', mediaId: '693134', limit: 5 })).output.releases as any[]).find(
      (r) => r.name === name,
    ).releaseId as string;
  const planDune = async (name = DUNE_2160.title) =>
    (
      await ok('download.plan', {
        mediaSource: 'tmdb',
        mediaId: '693134',
        kind: 'movie',
        releaseId: await releaseId(name),
      })
    ).output.plan as { id: string; payloadHash: string };
  /** A completed (not organized) download of `name`. */
  const completed = async (name = DUNE_2160.title) => {
    const job = (await ok('download.submit', { planId: (await planDune(name)).id })).output.download;
    s.clock.advance(60_000);
    return job as { id: string };
  };
  return { ...s, storage, ok, dryRun, ledger, writesSince, planDune, completed };
}

describe('V3 dry runs (simulator over HTTP): the impact and the verdict, nothing sent, nothing claimed', () => {
  it('download.submit: the torrent size into the download path with the free space before and after, denied but an approval would lift it; an approved approval is not consumed', async () => {
    const { host, sim, dryRun, ledger, writesSince, planDune } = await setup();
    const plan = await planDune();
    const claimed = (await ledger()).length;
    const from = sim.requests.length;
    const preview = await dryRun('download.submit', { planId: plan.id }, kitchen);
    expect(preview).toMatchObject({
      status: 'dry_run',
      verdict: { allowed: false, code: 'AUTH_NO_AUTHORIZATION', approvalRequired: true },
      impact: {
        status: 'known',
        impact: {
          downloadBytes: DUNE_2160.size,
          path: '/srv/dl',
          freeBytesBefore: 600e9,
          freeBytesAfter: 600e9 - DUNE_2160.size,
          reversible: false,
        },
      },
    });
    expect(preview.impact.summary).toContain('/srv/dl');
    expect(sim.requests.length, 'the impact read the host').toBeGreaterThan(from);
    expect(writesSince(from)).toEqual([]);
    expect(await ledger()).toHaveLength(claimed);
    expect(sim.downloads()).toEqual([]);

    const asked = await host.approvals.request({
      planType: 'download',
      planId: plan.id,
      actor: kitchen.actor,
      capabilityId: 'download.submit',
      impact: preview.impact,
    });
    expect(asked.impact).toEqual(preview.impact);
    await host.approvals.decide(asked.id, { status: 'approved', ...admin, payloadHash: plan.payloadHash });
    const allowed = await dryRun('download.submit', { planId: plan.id }, { ...kitchen, approvalId: asked.id });
    expect(allowed.verdict).toEqual({ allowed: true, basis: 'approval' });
    expect((await host.approvals.get(asked.id)).status).toBe('approved');
    expect(writesSince(from)).toEqual([]);
    expect(await ledger()).toHaveLength(claimed);

    const real = await host.invoke('download.submit', { planId: plan.id }, { ...kitchen, approvalId: asked.id });
    expect(real.status, JSON.stringify(real.error)).toBe('pending');
    expect(writesSince(from)).toEqual(['download.add']);
    expect(await host.approvals.get(asked.id)).toMatchObject({
      status: 'consumed',
      executedPayloadHash: plan.payloadHash,
    });
    sim.assertNoViolations();
  });

  it('organize.execute, task.cancel and policy.apply: impacts from the host, verdicts, and no transfer or delete sent', async () => {
    const { sim, ok, dryRun, ledger, writesSince, completed } = await setup();
    const done = await completed(DUNE_2160.title);
    const organize = (await ok('organize.plan', { downloadId: done.id, mode: 'copy' })).output.plan;
    const claimed = (await ledger()).length;
    const from = sim.requests.length;
    const free = sim.freeBytes();

    // organize.execute sends transfer.file (superusers only): an API key is refused whatever it is approved for,
    // with the code both adapters give this denial, which no approval lifts (so the dry run asks for none).
    const byKey = await dryRun('organize.execute', { planId: organize.id }, kitchen);
    expect(byKey).toMatchObject({
      status: 'dry_run',
      verdict: { allowed: false, code: 'AUTH_HOST_SUPERUSER_REQUIRED', approvalRequired: false },
      impact: {
        status: 'known',
        impact: {
          writeBytes: DUNE_2160.size,
          filesCreated: 1,
          path: '/srv/library/films/Dune: Part Two (2024)',
          freeBytesBefore: free,
          freeBytesAfter: free - DUNE_2160.size,
          transferMode: 'copy',
          reversible: true,
        },
      },
    });
    expect(byKey.verdict.reason).toMatch(/transfer\.file.*superusers only/);
    const byAdmin = await dryRun('organize.execute', { planId: organize.id }, admin);
    expect(byAdmin.verdict).toEqual({ allowed: true, basis: 'human' });
    expect(byAdmin.impact).toEqual(byKey.impact);

    // the V3 catalog has no torrent delete: a cancel deletes nothing
    const cancel = await dryRun('task.cancel', { taskId: done.id }, kitchen);
    expect(cancel).toMatchObject({
      verdict: { allowed: false, code: 'AUTH_NO_AUTHORIZATION', approvalRequired: false },
      impact: { status: 'known', impact: { deleteBytes: 0, filesDeleted: 0, freeBytesAfter: free } },
    });

    await ok('policy.apply', { kind: 'acquisition', settings: { minResolution: '1080p' } });
    const policy = await dryRun('policy.apply', { kind: 'acquisition', settings: { minResolution: '2160p' } }, kitchen);
    expect(policy).toMatchObject({
      verdict: { allowed: false, code: 'AUTH_NO_AUTHORIZATION' },
      impact: { status: 'known', impact: { reversible: true, reversibleBy: 'inverse' } },
    });
    expect((policy.impact as any).impact.notes).toEqual(expect.arrayContaining(['minResolution: "1080p" → "2160p"']));
    expect((await ok('policy.preview', { kind: 'acquisition', settings: {} })).output.current).toEqual({
      minResolution: '1080p',
    });

    expect(writesSince(from)).toEqual([]);
    expect(await ledger()).toHaveLength(claimed + 1); // only the real policy.apply
    expect(sim.transfers()).toEqual([]);
    expect(sim.downloads().map((d) => d.title)).toEqual([DUNE_2160.title]);
    expect(sim.freeBytes()).toBe(free);
    sim.assertNoViolations();
  });
});

describe('V3 approvals with impact and edits (a run asks; the simulator receives what was approved)', () => {
  it("a run's denied submit asks for an approval carrying the host's impact; approved as the 1080p release, the host receives that torrent, once; wrong-capability and invalid edits send nothing", async () => {
    const { host, sim, clock, planDune } = await setup({ autoTransfer: true });
    const other = await planDune(DUNE_1080.title);
    const edited = (await host.plans.get(other.id)).payload;
    // The administrator's direct plan holds the title's download intent for 15 minutes (docs/intents.md): let it lapse.
    clock.advance(15 * 60_000);
    await host.grants.create({ action: 'download.plan', ...admin });
    const run = await host.startRun({ goal: 'Add Dune: Part Two to the library', actor: bob });
    await waitForStatus(host, run.id, ['waiting', 'failed', 'succeeded']);
    const asked = await host.approvals.get((await requestedApproval(host, run.id)).approvalId);
    const proposed = asked.proposedPayload as { releaseName: string };
    expect(proposed.releaseName).toBe(DUNE_2160.title);
    expect(asked).toMatchObject({
      status: 'requested',
      capabilityId: 'download.submit',
      steps: [],
      impact: {
        status: 'known',
        impact: { downloadBytes: DUNE_2160.size, path: '/srv/dl', freeBytesAfter: 600e9 - DUNE_2160.size },
      },
    });
    const event = (await host.getRun(run.id, { limit: 1000 })).events.find((e) => e.type === 'approval_requested');
    expect((event!.data as any).impact).toEqual(asked.impact);
    expect(sim.requestsFor('download.add')).toHaveLength(0);

    const decide = (edits: { payload: unknown; capabilityId?: string }) =>
      host.approvals.decide(asked.id, {
        status: 'approved',
        ...admin,
        payloadHash: asked.payloadHash,
        edits: edits as never,
      });
    await expect(decide({ payload: edited, capabilityId: 'organize.execute' })).rejects.toMatchObject({
      code: 'APPROVAL_EDIT_WRONG_CAPABILITY',
    });
    await expect(decide({ payload: { ...(edited as object), torrent_in: {} } })).rejects.toMatchObject({
      code: 'APPROVAL_EDIT_INVALID',
    });
    await expect(
      host.approvals.decide(asked.id, {
        status: 'approved',
        ...admin,
        payloadHash: asked.payloadHash,
        steps: ['S01E01'],
      }),
    ).rejects.toMatchObject({ code: 'APPROVAL_STEP_UNKNOWN' }); // V3 plans have no steps
    expect(await host.approvals.get(asked.id)).toMatchObject({ status: 'requested', revision: asked.revision });
    expect(sim.requestsFor('download.add')).toHaveLength(0);

    const decided = await decide({ payload: edited, capabilityId: 'download.submit' });
    expect(decided).toMatchObject({
      status: 'approved',
      revision: asked.revision + 1,
      approvedPayload: edited,
      impact: { status: 'known', impact: { downloadBytes: DUNE_1080.size, freeBytesAfter: 600e9 - DUNE_1080.size } },
    });
    await waitForStatus(host, run.id, ['succeeded', 'failed', 'cancelled', 'budget_exceeded'], {
      clock,
      tickMs: 1000,
    });
    const sent = sim.requestsFor('download.add');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toMatchObject({
      torrent_in: { title: DUNE_1080.title, enclosure: DUNE_1080.enclosure, size: DUNE_1080.size },
    });
    expect(sim.downloads().map((d) => d.title)).toEqual([DUNE_1080.title]);
    const consumed = await host.approvals.get(asked.id);
    expect(consumed).toMatchObject({ status: 'consumed', proposedPayloadHash: asked.payloadHash });
    expect(consumed.executedPayloadHash).toBe(consumed.payloadHash);
    expect(consumed.executedPayloadHash).not.toBe(asked.payloadHash);
    const again = await host.invoke('download.submit', { planId: asked.planId }, { ...kitchen, approvalId: asked.id });
    expect(again).toMatchObject({ status: 'denied', error: { code: 'AUTH_APPROVAL_CONSUMED' } });
    expect(sim.requestsFor('download.add')).toHaveLength(1);
    sim.assertNoViolations();
  });

  it('steps: V3 download and organize plans have none (one torrent, one transfer), so an approval covers the whole plan', async () => {
    const { host, ok, completed, planDune } = await setup();
    const download = await host.plans.get((await planDune(DUNE_1080.title)).id);
    const job = await completed();
    const organize = await host.plans.get((await ok('organize.plan', { downloadId: job.id })).output.plan.id);
    expect(planSteps(download.payload)).toEqual([]);
    expect(planSteps(organize.payload)).toEqual([]);
  });
});

describe('V3 undo through the declared inverses (simulator over HTTP)', () => {
  it("organize.execute is undone by moviepilot.organize.revert (the transfer history delete is received); another person's undo is UNDO_FORBIDDEN; undoing again sends nothing", async () => {
    const { host, sim, ok, completed } = await setup();
    const job = await completed();
    const free = sim.freeBytes();
    const plan = (await ok('organize.plan', { downloadId: job.id, mode: 'copy' })).output.plan;
    const done = await ok('organize.execute', { planId: plan.id });
    expect(sim.inLibrary('themoviedb:693134')).toBe(true);
    expect(sim.freeBytes()).toBe(free - DUNE_2160.size);

    await expect(host.undo({ invocationId: done.invocationId }, { actor: bob })).rejects.toMatchObject({
      code: 'UNDO_FORBIDDEN',
    });
    expect(sim.requestsFor('transfer.history.delete')).toHaveLength(0);
    expect(sim.inLibrary('themoviedb:693134')).toBe(true);

    const undo = await host.undo({ invocationId: done.invocationId }, admin);
    expect(undo.status).toBe('undone');
    expect(undo.undone).toEqual([
      expect.objectContaining({
        capabilityId: 'organize.execute',
        inverseCapabilityId: 'moviepilot.organize.revert',
        result: expect.objectContaining({ status: 'succeeded' }),
      }),
    ]);
    expect(sim.requestsFor('transfer.history.delete')).toHaveLength(1);
    expect(sim.transfers()).toEqual([]);
    expect(sim.inLibrary('themoviedb:693134')).toBe(false);
    expect(sim.freeBytes()).toBe(free);

    const twice = await host.undo({ invocationId: done.invocationId }, admin);
    expect(twice.undone[0]?.result).toMatchObject({ status: 'succeeded', replayed: true });
    expect(sim.requestsFor('transfer.history.delete')).toHaveLength(1);
    sim.assertNoViolations();
  });

  it("policy.apply is undone by moviepilot.policy.revert (the previous settings come back); another person's undo is UNDO_FORBIDDEN; download.submit has no inverse", async () => {
    const { host, ok, planDune } = await setup();
    await ok('policy.apply', { kind: 'acquisition', settings: { minResolution: '1080p' } });
    const applied = await ok('policy.apply', { kind: 'acquisition', settings: { minResolution: '2160p' } });
    const current = async () =>
      (await ok('policy.preview', { kind: 'acquisition', settings: {} })).output.current as Record<string, unknown>;
    expect(await current()).toEqual({ minResolution: '2160p' });

    await expect(host.undo({ invocationId: applied.invocationId }, { actor: bob })).rejects.toMatchObject({
      code: 'UNDO_FORBIDDEN',
    });
    expect(await current()).toEqual({ minResolution: '2160p' });

    const undo = await host.undo({ invocationId: applied.invocationId }, admin);
    expect(undo).toMatchObject({
      status: 'undone',
      undone: [
        expect.objectContaining({
          capabilityId: 'policy.apply',
          inverseCapabilityId: 'moviepilot.policy.revert',
          result: expect.objectContaining({ status: 'succeeded' }),
        }),
      ],
    });
    expect(await current()).toEqual({ minResolution: '1080p' });

    // the V3 catalog cannot delete a torrent: a submit is listed as not undoable, nothing is attempted
    const submitted = await ok('download.submit', { planId: (await planDune()).id });
    const none = await host.undo({ invocationId: submitted.invocationId }, admin);
    expect(none).toMatchObject({
      status: 'partial',
      undone: [],
      notUndoable: [expect.objectContaining({ capabilityId: 'download.submit', reason: 'no_inverse' })],
    });
  });
});
