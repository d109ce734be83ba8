import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { ConsoleLogger, type AgentHost } from '../../src/index';
import type { Capability } from '../../src/capabilities/types';
import type { Impact } from '../../src/core/impact';
import { describeImpact } from '../../src/core/impact-text';
import type { StandardOutput } from '../../src/media';
import {
  SandboxDownloadPlanPayloadSchema,
  SandboxOrganizePlanPayloadSchema,
  sandboxCapabilities,
  sandboxUndoCapabilities,
  type SandboxWorld,
} from '../../src/testing';
import { DUNE_2, approve, makeSandboxHost } from './helpers';

type Host = Awaited<ReturnType<typeof makeSandboxHost>>;
const admin = { actor: 'user:admin' as const };
const agent = { actor: 'agent:run-1' as const, runId: 'run-1' };
const DAY = 86_400_000;
const REMUX = 'rel-693134-1'; // Dune: Part Two 2160p remux: 166 min × 0.47 GB = 78.02 GB
const BLURAY_1080 = 'rel-693134-3'; // 166 min × 0.085 GB = 14.11 GB
const SHOGUN = { mediaSource: 'tmdb', mediaId: '126308' } as const;

/** The impact of a call, as a dry run reports it (nothing runs, nothing is written). */
async function impactOf(h: Host, id: string, input: Record<string, unknown>): Promise<Impact> {
  const preview = await h.host.invoke(id, input, { actor: 'user:admin', dryRun: true });
  if (preview.impact.status !== 'known') throw new Error(`impact unknown: ${preview.impact.reason}`);
  return preview.impact.impact;
}

function inverseOf(_world: SandboxWorld, host: AgentHost, id: string, output: unknown) {
  const inverse = host.capabilities.definition(id).inverse!;
  return { capability: inverse.capability, input: inverse.input(output) as Record<string, unknown> };
}

async function plan(h: Host, input: Record<string, unknown>) {
  const result = await h.host.invoke('download.plan', input, admin);
  expect(result.status, JSON.stringify(result.error)).toBe('succeeded');
  return (result.output as StandardOutput<'download.plan'>).plan;
}

async function submit(h: Host, planId: string, extra: Record<string, unknown> = {}) {
  const result = await h.host.invoke('download.submit', { planId, ...extra }, admin);
  expect(result.status, JSON.stringify(result.error)).toBe('pending');
  return (result.output as StandardOutput<'download.submit'>).download;
}

/** A completed (not imported) download of Dune: Part Two's remux, with auto import off. */
async function completedDune(h: Host, releaseId = REMUX) {
  const p = await plan(h, { ...DUNE_2, kind: 'movie', releaseId });
  const job = await submit(h, p.id);
  h.clock.advance(h.world.durations.queuedMs + h.world.durations.downloadMs);
  return job;
}

async function organizePlan(h: Host, input: Record<string, unknown>) {
  const result = await h.host.invoke('organize.plan', input, admin);
  expect(result.status, JSON.stringify(result.error)).toBe('succeeded');
  return (result.output as StandardOutput<'organize.plan'>).plan;
}

describe('sandbox world: disk, impact, steps, edits, quarantine and inverses', () => {
  it('download.plan and download.submit report the release size to the download folder with the free space before and after, and the submit really uses it', async () => {
    const h = await makeSandboxHost();
    expect(h.world.volumes()).toEqual([
      expect.objectContaining({ id: 'volume1', capacityBytes: 4_000_000_000_000, freeBytes: 412_000_000_000 }),
    ]);
    const draft = await impactOf(h, 'download.plan', { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    expect(draft).toMatchObject({ downloadBytes: 78_020_000_000, freeBytesBefore: 412_000_000_000 });
    expect(draft.notes?.[0]).toContain('nothing changes until it is executed');

    const p = await plan(h, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    const impact = await impactOf(h, 'download.submit', { planId: p.id });
    const path = '/downloads/Dune.Part.Two.2024.2160p.UHD.BluRay.REMUX.HDR.HEVC.TrueHD.Atmos.7.1-FGT';
    expect(impact).toMatchObject({
      downloadBytes: 78_020_000_000,
      path,
      freeBytesBefore: 412_000_000_000,
      freeBytesAfter: 333_980_000_000,
      filesCreated: 1,
      reversible: true,
      reversibleBy: 'inverse',
    });
    expect(describeImpact(impact)).toBe(
      `downloads 78 GB to ${path}; creates 1 file; 334 GB free after; about 12 s; can be undone`,
    );

    await submit(h, p.id);
    expect(h.world.freeBytes('/downloads')).toBe(333_980_000_000);
    h.clock.advance(60_000); // imported by hardlink: no extra space
    expect(h.world.inLibrary('tmdb:693134')).toBe(true);
    expect(h.world.freeBytes('/media/library')).toBe(333_980_000_000);
  });

  it('a download that does not fit is refused before anything is written', async () => {
    const h = await makeSandboxHost({
      volumes: [{ id: 'small', paths: ['/media', '/downloads'], capacityBytes: 200e9, freeBytes: 50e9 }],
    });
    const p = await plan(h, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    expect((await impactOf(h, 'download.submit', { planId: p.id })).freeBytesAfter).toBe(50e9 - 78.02e9);
    const result = await h.host.invoke('download.submit', { planId: p.id }, admin);
    expect([result.status, result.error?.code]).toEqual(['failed', 'MEDIA_INVALID_STATE']);
    expect(h.world.downloads()).toEqual([]);
    expect(h.world.freeBytes('/downloads')).toBe(50e9);
  });

  it('an edited download plan ("yes, but the 1080p one") downloads the edited release, with its own size', async () => {
    const h = await makeSandboxHost();
    const p = await plan(h, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    const proposed = (await h.host.plans.get(p.id)).payload as Record<string, unknown>;
    expect(Value.Check(SandboxDownloadPlanPayloadSchema, proposed)).toBe(true);
    const edited = { ...proposed, releaseId: BLURAY_1080 }; // stale releaseName / sizeBytes left as they were
    expect(Value.Check(SandboxDownloadPlanPayloadSchema, edited)).toBe(true);
    // The run's submit is denied; the approval it asks for states the remux's size; the person edits it to the 1080p.
    const before = await impactOf(h, 'download.submit', { planId: p.id });
    expect(before).toMatchObject({ downloadBytes: 78_020_000_000 });
    const asked = await h.host.approvals.request({
      planType: 'download',
      planId: p.id,
      actor: agent.actor,
      capabilityId: 'download.submit',
    });
    const decided = await h.host.approvals.decide(asked.id, {
      status: 'approved',
      actor: 'user:admin',
      payloadHash: asked.payloadHash,
      edits: { payload: edited },
    });
    expect(decided).toMatchObject({ revision: 2, approvedPayload: edited });
    expect(decided.impact).toMatchObject({ status: 'known', impact: { downloadBytes: 14_110_000_000 } });
    expect(await impactOf(h, 'download.submit', { planId: p.id })).toMatchObject({ downloadBytes: 14_110_000_000 });
    expect(h.world.downloads()).toEqual([]);

    const approvalId = asked.id;
    const result = await h.host.invoke('download.submit', { planId: p.id }, { ...agent, approvalId });
    expect(result.status).toBe('pending');
    expect((result.output as StandardOutput<'download.submit'>).download).toMatchObject({
      releaseId: BLURAY_1080,
      releaseName: 'Dune.Part.Two.2024.1080p.BluRay.x264.DTS-HD.MA.7.1-SPARKS',
      sizeBytes: 14_110_000_000,
    });
    expect(h.world.freeBytes('/downloads')).toBe(412_000_000_000 - 14_110_000_000);
  });

  it('an edit to a release of another title is refused MEDIA_PLAN_CONFLICT and nothing is downloaded', async () => {
    const h = await makeSandboxHost();
    const p = await plan(h, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    const proposed = (await h.host.plans.get(p.id)).payload as Record<string, unknown>;
    await h.host.plans.revise(p.id, { ...proposed, releaseId: 'rel-872585-1' }); // Oppenheimer
    const result = await h.host.invoke('download.submit', { planId: p.id }, admin);
    expect([result.status, result.error?.code]).toEqual(['failed', 'MEDIA_PLAN_CONFLICT']);
    expect(h.world.downloads()).toEqual([]);
  });

  it('a season pack plans one step per episode; submitting some steps downloads only those episodes; unknown steps are refused', async () => {
    const h = await makeSandboxHost({ autoImport: false });
    const p = await plan(h, { ...SHOGUN, kind: 'tv', releaseId: 'rel-126308-2' });
    const stored = await h.host.plans.get(p.id);
    const steps = (stored.payload as { steps: Array<{ id: string; sizeBytes: number }> }).steps;
    expect(steps.map((s) => s.id)).toEqual(Array.from({ length: 9 }, (_, i) => `S01E0${i + 1}`));
    const approval = await h.host.approvals.request({ planType: 'download', planId: p.id, actor: agent.actor });
    expect(approval.steps.map((s) => s.id)).toEqual(steps.map((s) => s.id));

    const impact = await impactOf(h, 'download.submit', { planId: p.id, steps: ['S01E01', 'S01E02'] });
    expect(impact.downloadBytes).toBe(steps[0]!.sizeBytes + steps[1]!.sizeBytes);
    expect(impact.steps?.map((s) => s.id)).toEqual(['S01E01', 'S01E02']);

    const unknown = await h.host.invoke('download.submit', { planId: p.id, steps: ['S01E10'] }, admin);
    expect([unknown.status, unknown.error?.code]).toEqual(['failed', 'MEDIA_PLAN_CONFLICT']);
    expect(unknown.error?.message).toContain('S01E10');

    const job = await submit(h, p.id, { steps: ['S01E01', 'S01E02'] });
    expect(job.sizeBytes).toBe(impact.downloadBytes);
    expect(
      h.world
        .files()
        .filter((f) => f.path.startsWith('/downloads/'))
        .map((f) => f.item),
    ).toEqual(['S01E01', 'S01E02']);
  });

  it('an organize of several files approved for some steps executes only those; another step is denied', async () => {
    const h = await makeSandboxHost({ autoImport: false });
    const p = await plan(h, { ...SHOGUN, kind: 'tv', releaseId: 'rel-126308-2' });
    const job = await submit(h, p.id);
    h.clock.advance(60_000);
    const op = await organizePlan(h, { downloadId: job.id });
    const impact = await impactOf(h, 'organize.execute', { planId: op.id });
    expect(impact).toMatchObject({ filesCreated: 9, filesMoved: 0, filesOverwritten: 0, transferMode: 'hardlink' });
    expect(impact.steps).toHaveLength(9);
    expect(impact.freeBytesAfter).toBe(impact.freeBytesBefore); // hardlinks take no space

    const approval = await h.host.approvals.request({ planType: 'organize', planId: op.id, actor: agent.actor });
    await h.host.approvals.decide(approval.id, {
      status: 'approved',
      actor: 'user:admin',
      payloadHash: op.payloadHash,
      steps: ['S01E01', 'S01E03'],
    });
    const other = await h.host.invoke(
      'organize.execute',
      { planId: op.id, steps: ['S01E02'] },
      { ...agent, approvalId: approval.id },
    );
    expect([other.status, other.error?.code]).toEqual(['denied', 'APPROVAL_STEP_NOT_APPROVED']);
    const done = await h.host.invoke(
      'organize.execute',
      { planId: op.id, steps: ['S01E01', 'S01E03'] },
      { ...agent, approvalId: approval.id },
    );
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    const library = h.world.files().filter((f) => f.path.startsWith('/media/library/TV Shows/Shōgun (2024)/'));
    expect(library.map((f) => f.item)).toEqual(['S01E01', 'S01E03']);
    expect(h.world.organizes()[0]!.files.map((f) => f.id)).toEqual(['S01E01', 'S01E03']);
  });

  it('an edited organize plan (copy instead of hardlink) executes as edited and writes the bytes; an edit outside the library is refused', async () => {
    const h = await makeSandboxHost({ autoImport: false });
    const job = await completedDune(h, BLURAY_1080);
    const op = await organizePlan(h, { downloadId: job.id });
    const proposed = (await h.host.plans.get(op.id)).payload as Record<string, unknown>;
    expect(Value.Check(SandboxOrganizePlanPayloadSchema, proposed)).toBe(true);

    const outside = structuredClone(proposed) as { files: Array<{ to: string }>; steps: Array<{ to: string }> };
    outside.files[0]!.to = '/etc/passwd';
    outside.steps[0]!.to = '/etc/passwd';
    await h.host.plans.revise(op.id, outside);
    const refused = await h.host.invoke('organize.execute', { planId: op.id }, admin);
    expect([refused.status, refused.error?.code]).toEqual(['failed', 'MEDIA_PLAN_CONFLICT']);

    await h.host.plans.revise(op.id, { ...proposed, mode: 'copy' });
    const free = h.world.freeBytes('/media/library');
    expect(await impactOf(h, 'organize.execute', { planId: op.id })).toMatchObject({
      writeBytes: 14_110_000_000,
      filesCreated: 1,
      transferMode: 'copy',
      freeBytesAfter: free - 14_110_000_000,
    });
    const done = await h.host.invoke('organize.execute', { planId: op.id }, admin);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    expect((done.output as StandardOutput<'organize.execute'>).organize.mode).toBe('copy');
    expect(h.world.freeBytes('/media/library')).toBe(free - 14_110_000_000);
  });

  it('task.cancel: the files go to quarantine for 14 days (space kept), then are purged (space freed); task.restore undoes a cancel', async () => {
    const h = await makeSandboxHost();
    const p = await plan(h, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    const submitted = await h.host.invoke('download.submit', { planId: p.id }, admin);
    const job = (submitted.output as StandardOutput<'download.submit'>).download;
    const undo = inverseOf(h.world, h.host, 'download.submit', submitted.output);
    expect(undo).toEqual({ capability: 'task.cancel', input: { taskId: job.id, reason: 'undo download.submit' } });

    const impact = await impactOf(h, 'task.cancel', undo.input);
    expect(impact).toMatchObject({
      deleteBytes: 78_020_000_000,
      filesDeleted: 1,
      freeBytesBefore: 333_980_000_000,
      freeBytesAfter: 333_980_000_000,
      reversible: true,
      reversibleBy: 'quarantine',
      quarantineDays: 14,
    });
    expect(describeImpact(impact)).toContain('kept in quarantine for 14 days');

    const cancelled = await h.host.invoke('task.cancel', undo.input, admin);
    expect(cancelled.status).toBe('succeeded');
    const [entry] = h.world.quarantine();
    expect(entry).toMatchObject({ reason: 'cancel', taskId: job.id, expiresAt: h.clock.now() + 14 * DAY });
    expect(entry!.files[0]!.path).toMatch(/^\/media\/\.quarantine\/q-1\/downloads\//);
    expect(h.world.freeBytes('/downloads')).toBe(333_980_000_000);

    // task.restore (the inverse of task.cancel) brings it back while the quarantine keeps it
    const restore = inverseOf(h.world, h.host, 'task.cancel', cancelled.output);
    expect(restore).toEqual({ capability: 'task.restore', input: { taskId: job.id } });
    const restored = await h.host.invoke('task.restore', restore.input, admin);
    expect(restored.status, JSON.stringify(restored.error)).toBe('succeeded');
    expect(h.world.quarantine()).toEqual([]);
    expect(h.world.files().filter((f) => f.path.startsWith('/downloads/'))).toHaveLength(1);
    h.clock.advance(60_000);
    expect(h.world.inLibrary('tmdb:693134')).toBe(true);

    // a second download, cancelled and left: kept for exactly 14 days, then purged
    const h2 = await makeSandboxHost();
    const p2 = await plan(h2, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    const job2 = await submit(h2, p2.id);
    await h2.host.invoke('task.cancel', { taskId: job2.id }, admin);
    h2.clock.advance(14 * DAY - 1);
    expect(h2.world.quarantine()).toHaveLength(1);
    expect(h2.world.freeBytes('/downloads')).toBe(333_980_000_000);
    h2.clock.advance(1);
    expect(h2.world.quarantine()).toEqual([]);
    expect(h2.world.files().some((f) => f.path.includes('.quarantine'))).toBe(false);
    expect(h2.world.freeBytes('/downloads')).toBe(412_000_000_000);
    const late = await h2.host.invoke('task.restore', { taskId: job2.id }, admin);
    expect([late.status, late.error?.code]).toEqual(['failed', 'MEDIA_INVALID_STATE']);
  });

  it('organize.revert undoes an organize that overwrote a library file: files, library item and free space are back; refused once the quarantine is purged', async () => {
    const h = await makeSandboxHost({ autoImport: false });
    const job = await completedDune(h);
    h.world.addToLibrary('tmdb:693134'); // an older 1080p copy reached the library meanwhile
    const before = { files: h.world.files(), library: h.world.library(), free: h.world.freeBytes('/media') };
    const op = await organizePlan(h, { downloadId: job.id, mode: 'copy' });
    const impact = await impactOf(h, 'organize.execute', { planId: op.id });
    expect(impact).toMatchObject({
      filesCreated: 1,
      filesOverwritten: 1,
      writeBytes: 78_020_000_000,
      quarantineDays: 14,
      transferMode: 'copy',
    });
    const executed = await h.host.invoke('organize.execute', { planId: op.id }, admin);
    expect(executed.status, JSON.stringify(executed.error)).toBe('succeeded');
    expect(h.world.quarantine()).toEqual([expect.objectContaining({ reason: 'overwrite' })]);
    expect(h.world.library()[3]).toMatchObject({ mediaEntityId: 'tmdb:693134', resolution: '2160p' });
    expect(h.world.freeBytes('/media')).toBe(before.free - 78_020_000_000);

    const undo = inverseOf(h.world, h.host, 'organize.execute', executed.output);
    expect(undo.capability).toBe('organize.revert');
    expect(await impactOf(h, 'organize.revert', undo.input)).toMatchObject({
      filesDeleted: 1,
      deleteBytes: 78_020_000_000,
      filesCreated: 1,
    });
    const reverted = await h.host.invoke('organize.revert', undo.input, admin);
    expect(reverted.status, JSON.stringify(reverted.error)).toBe('succeeded');
    expect(h.world.files()).toEqual(before.files);
    expect(h.world.library()).toEqual(before.library);
    expect(h.world.freeBytes('/media')).toBe(before.free);
    expect(h.world.downloads()[0]!.phase).toBe('completed');

    // organized again, and the overwritten file purged: the revert is refused and nothing changes
    const again = await organizePlan(h, { downloadId: job.id, mode: 'hardlink' });
    const second = await h.host.invoke('organize.execute', { planId: again.id }, admin);
    h.clock.advance(14 * DAY);
    const files = h.world.files();
    const late = await h.host.invoke(
      'organize.revert',
      inverseOf(h.world, h.host, 'organize.execute', second.output).input,
      admin,
    );
    expect([late.status, late.error?.code]).toEqual(['failed', 'MEDIA_INVALID_STATE']);
    expect(h.world.files()).toEqual(files);
  });

  it('host.undo of a run that downloaded and organized: the organize is reverted, then the download cancelled into quarantine, newest first; an ordinary user may not undo it', async () => {
    const h = await makeSandboxHost({ autoImport: false });
    const free = h.world.freeBytes('/media');
    const p = await plan(h, { ...DUNE_2, kind: 'movie', releaseId: BLURAY_1080 });
    const submitted = await h.host.invoke('download.submit', { planId: p.id }, { ...admin, taskId: 'shelve-dune' });
    expect(submitted.status).toBe('pending');
    h.clock.advance(h.world.durations.queuedMs + h.world.durations.downloadMs);
    const job = (submitted.output as StandardOutput<'download.submit'>).download;
    const op = await organizePlan(h, { downloadId: job.id, mode: 'copy' });
    const organized = await h.host.invoke('organize.execute', { planId: op.id }, { ...admin, taskId: 'shelve-dune' });
    expect(organized.status).toBe('succeeded');
    expect(h.world.library().some((i) => i.mediaEntityId === 'tmdb:693134')).toBe(true);

    await expect(
      h.host.undo({ invocationId: organized.invocationId }, { actor: 'apikey:kitchen' }),
    ).rejects.toMatchObject({
      code: 'UNDO_FORBIDDEN',
    });
    const undoOrganize = await h.host.undo({ invocationId: organized.invocationId }, admin);
    expect(undoOrganize).toMatchObject({ status: 'undone' });
    expect(undoOrganize.undone.map((u) => u.inverseCapabilityId)).toEqual(['organize.revert']);
    expect(h.world.library().some((i) => i.mediaEntityId === 'tmdb:693134')).toBe(false);
    const undoSubmit = await h.host.undo({ invocationId: submitted.invocationId }, admin);
    expect(undoSubmit.undone.map((u) => [u.inverseCapabilityId, u.result?.status])).toEqual([
      ['task.cancel', 'succeeded'],
    ]);
    // The cancelled download's files wait in quarantine (space still used), then are purged after 14 days.
    expect(h.world.quarantine()).toEqual([expect.objectContaining({ reason: 'cancel' })]);
    h.clock.advance(14 * DAY);
    h.world.quarantine();
    expect(h.world.freeBytes('/media')).toBe(free);
  });

  it('policy.apply is undone by policy.restore with the previous settings, only while the policy is still at that revision', async () => {
    const h = await makeSandboxHost();
    expect(await impactOf(h, 'policy.apply', { kind: 'acquisition', settings: { minResolution: '2160p' } })).toEqual({
      reversible: true,
      reversibleBy: 'inverse',
      notes: ['minResolution: null → "2160p"'],
    });
    const applied = await h.host.invoke(
      'policy.apply',
      { kind: 'acquisition', settings: { minResolution: '2160p' } },
      admin,
    );
    const undo = inverseOf(h.world, h.host, 'policy.apply', applied.output);
    expect(undo).toEqual({
      capability: 'policy.restore',
      input: { kind: 'acquisition', revision: 0, ifRevision: 1 },
    });
    const restored = await h.host.invoke(undo.capability, undo.input, admin);
    expect(restored.output).toEqual({ kind: 'acquisition', revision: 2, settings: {}, restoredFrom: 0 });
    expect(h.world.policy('acquisition')).toEqual({ revision: 2, settings: {} });
    const changed = await h.host.invoke('policy.restore', { kind: 'acquisition', revision: 1, ifRevision: 1 }, admin);
    expect([changed.status, changed.error?.code]).toEqual(['failed', 'MEDIA_INVALID_STATE']);
  });

  it('a world saved before the disk model loads with files for its library and the seeded free space', async () => {
    const h = await makeSandboxHost();
    const old = h.world.toJSON() as unknown as Record<string, unknown>;
    delete old.disk;
    delete old.policyHistory;
    const { SandboxWorld } = await import('../../src/testing');
    const loaded = SandboxWorld.fromJSON(old as never, { clock: h.clock });
    expect(loaded.files()).toEqual(h.world.files());
    expect(loaded.freeBytes('/media')).toBe(412_000_000_000);
  });
});
