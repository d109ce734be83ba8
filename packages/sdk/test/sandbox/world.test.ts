import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StandardOutput } from '../../src/media';
import { SandboxWorld } from '../../src/testing';
import { DUNE_2, approve, makeSandboxHost } from './helpers';

const agent = (runId: string) => ({ actor: `agent:${runId}` as const, runId });
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** catalog.lookup → release.search → download.plan for Dune: Part Two; returns the plan receipt. */
async function planDune(host: Awaited<ReturnType<typeof makeSandboxHost>>['host'], runId: string) {
  const found = await host.invoke('catalog.lookup', { query: '沙丘2' }, agent(runId));
  const item = (found.output as StandardOutput<'catalog.lookup'>).items[0]!;
  expect([found.status, item.mediaEntityId, item.inLibrary]).toEqual(['succeeded', 'tmdb:693134', false]);
  const search = await host.invoke(
    'release.search',
    { mediaSource: item.mediaSource, mediaId: item.mediaId, maxSizeBytes: 30_000_000_000 },
    agent(runId),
  );
  const release = (search.output as StandardOutput<'release.search'>).releases[0]!;
  expect(release).toMatchObject({ resolution: '2160p', source: 'WEB-DL', mediaEntityId: 'tmdb:693134' });
  await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
  const planned = await host.invoke(
    'download.plan',
    { ...DUNE_2, kind: 'movie', releaseId: release.releaseId },
    agent(runId),
  );
  expect(planned.status).toBe('succeeded');
  return (planned.output as StandardOutput<'download.plan'>).plan;
}

describe('sandbox media world', () => {
  it('full flow: lookup → search → plan → approval → submit (pending) → clock → imported; library and GoalFacts show it', async () => {
    const { host, clock, world } = await makeSandboxHost();
    const plan = await planDune(host, 'run-1');
    expect(plan).toMatchObject({ type: 'download', revision: 1, mediaEntityId: 'tmdb:693134', mediaKind: 'movie' });
    expect((await host.invoke('download.submit', { planId: plan.id }, agent('run-1'))).status).toBe('denied');

    const approvalId = await approve(host, plan.id, 'agent:run-1');
    const submitted = await host.invoke('download.submit', { planId: plan.id }, { ...agent('run-1'), approvalId });
    expect(submitted.status).toBe('pending'); // accepted, not done
    const job = (submitted.output as StandardOutput<'download.submit'>).download;
    expect(job).toMatchObject({ status: 'queued', planId: plan.id, mediaEntityId: 'tmdb:693134', progress: 0 });
    expect((await world.forRun('run-1')).plans).toEqual([
      { id: plan.id, type: 'download', mediaEntityId: 'tmdb:693134', status: 'submitted' },
    ]);

    const status = async () =>
      ((await host.invoke('task.inspect', { taskId: job.id }, agent('run-1'))).output as StandardOutput<'task.inspect'>)
        .tasks[0]!.status;
    clock.advance(world.durations.queuedMs + world.durations.downloadMs / 2);
    expect(await status()).toBe('downloading');
    clock.advance(world.durations.downloadMs / 2);
    expect(await status()).toBe('completed');
    expect(world.inLibrary('tmdb:693134')).toBe(false); // completed is not imported
    clock.advance(world.durations.importMs);
    expect(await status()).toBe('imported');

    const inventory = (await host.invoke('inventory.query', { query: 'Dune: Part Two' }, agent('run-1')))
      .output as StandardOutput<'inventory.query'>;
    expect(inventory.items).toEqual([
      expect.objectContaining({
        mediaEntityId: 'tmdb:693134',
        libraryPath: '/media/library/Movies/Dune Part Two (2024)',
      }),
    ]);
    const facts = await world.forRun('run-1');
    expect(facts.plans[0]!.status).toBe('done');
    expect(facts.downloads).toEqual([
      { id: job.id, mediaEntityId: 'tmdb:693134', title: 'Dune: Part Two', status: 'imported' },
    ]);
    expect(facts.organizes).toEqual([
      {
        id: 'org-1',
        downloadId: job.id,
        mediaEntityId: 'tmdb:693134',
        status: 'succeeded',
        libraryPath: '/media/library/Movies/Dune Part Two (2024)',
      },
    ]);
    expect(facts.library).toEqual([{ mediaEntityId: 'tmdb:693134', title: 'Dune: Part Two', present: true }]);
  });

  it('a policy.acquisition grant covers download.plan and download.submit', async () => {
    const { host, clock, world } = await makeSandboxHost();
    await host.grants.create({
      action: 'policy.acquisition',
      actor: 'user:admin',
      scope: { mediaEntityIds: ['tmdb:693134'] },
    });
    const plan = await planDune(host, 'run-1');
    const submitted = await host.invoke('download.submit', { planId: plan.id }, agent('run-1'));
    expect(submitted.status).toBe('pending');
    clock.advance(60_000);
    expect((await world.forRun('run-1')).downloads[0]!.status).toBe('imported');
  });

  it('explicit organize: with auto import off a completed download stays completed until organize.plan → organize.execute', async () => {
    const { host, clock, world } = await makeSandboxHost({ autoImport: false });
    await host.grants.create({ action: '*', actor: 'user:admin' });
    const plan = await planDune(host, 'run-1');
    const job = (
      (await host.invoke('download.submit', { planId: plan.id }, agent('run-1')))
        .output as StandardOutput<'download.submit'>
    ).download;
    clock.advance(600_000);
    expect((await world.forRun('run-1')).downloads[0]!.status).toBe('completed');
    const organizePlan = await host.invoke('organize.plan', { downloadId: job.id }, agent('run-1'));
    const receipt = (organizePlan.output as StandardOutput<'organize.plan'>).plan;
    expect([organizePlan.status, receipt.type]).toEqual(['succeeded', 'organize']);
    const executed = await host.invoke('organize.execute', { planId: receipt.id }, agent('run-1'));
    expect(executed.status).toBe('succeeded');
    expect((executed.output as StandardOutput<'organize.execute'>).organize).toMatchObject({
      status: 'succeeded',
      automatic: false,
      planId: receipt.id,
      downloadId: job.id,
    });
    const facts = await world.forRun('run-1');
    expect(facts.plans.map((p) => [p.type, p.status])).toEqual([
      ['download', 'done'],
      ['organize', 'done'],
    ]);
    expect(facts.library).toEqual([{ mediaEntityId: 'tmdb:693134', title: 'Dune: Part Two', present: true }]);
  });

  it('a stalled download reports stalled and stops progressing until rechecked', async () => {
    const { host, clock, world } = await makeSandboxHost({ faults: { stallDownloads: true } });
    await host.grants.create({ action: '*', actor: 'user:admin' });
    const plan = await planDune(host, 'run-1');
    const job = (
      (await host.invoke('download.submit', { planId: plan.id }, agent('run-1')))
        .output as StandardOutput<'download.submit'>
    ).download;
    expect(job.status).toBe('stalled');
    clock.advance(3_600_000);
    expect((await world.forRun('run-1')).downloads[0]!.status).toBe('stalled');
    expect(world.inLibrary('tmdb:693134')).toBe(false);

    world.setFaults({ stallDownloads: false });
    const recheck = await host.invoke('download.recheck', { downloadId: job.id }, agent('run-1'));
    expect(recheck.status).toBe('succeeded');
    clock.advance(60_000);
    expect((await world.forRun('run-1')).downloads[0]!.status).toBe('imported');
  });

  it('submitTimesOutAfterEffect: unknown, one job in the downloader; the identical invoke is settled succeeded by the verifier without a second job', async () => {
    const { host, world } = await makeSandboxHost({ faults: { submitTimesOutAfterEffect: true } });
    await host.grants.create({ action: '*', actor: 'user:admin' });
    const plan = await planDune(host, 'run-1');
    const first = await host.invoke('download.submit', { planId: plan.id }, agent('run-1'));
    expect([first.status, first.error?.code]).toEqual(['unknown', 'OUTCOME_UNKNOWN']);
    expect(world.downloads()).toHaveLength(1);
    expect(world.downloads()[0]!.idempotencyKey).toBe(first.idempotencyKey);

    const second = await host.invoke('download.submit', { planId: plan.id }, agent('run-1'));
    expect([second.status, second.replayed, second.idempotencyKey]).toEqual(['succeeded', true, first.idempotencyKey]);
    expect((second.output as StandardOutput<'download.submit'>).download.id).toBe(world.downloads()[0]!.id);
    expect(world.downloads()).toHaveLength(1);
    expect((await host.ledger.get(first.idempotencyKey!))?.state).toBe('succeeded');
  });

  it('the verifier settles failed when the downloader has no job under the key, and the submit then runs once', async () => {
    const { host, world } = await makeSandboxHost({ faults: { submitTimesOutAfterEffect: true } });
    await host.grants.create({ action: '*', actor: 'user:admin' });
    const plan = await planDune(host, 'run-1');
    const first = await host.invoke('download.submit', { planId: plan.id }, agent('run-1'));
    expect(first.status).toBe('unknown');
    // the downloader lost the job (e.g. it crashed before persisting it)
    world.mutate((s) => void s.downloads.splice(0));
    world.setFaults({ submitTimesOutAfterEffect: false });
    const second = await host.invoke('download.submit', { planId: plan.id }, agent('run-1'));
    expect(second.status).toBe('pending');
    expect(world.downloads()).toHaveLength(1);
  });

  it('a title with a number in it resolves as a title; a separate trailing year filters only when the whole text matches nothing', async () => {
    const { host } = await makeSandboxHost();
    const ids = async (query: string) =>
      (
        (await host.invoke('catalog.lookup', { query }, agent('run-1'))).output as StandardOutput<'catalog.lookup'>
      ).items.map((i) => i.mediaEntityId);
    expect(await ids('Blade Runner 2049')).toEqual(['tmdb:335984']);
    expect(await ids('Dune 2021')).toEqual(['tmdb:438631']);
    expect(await ids('Dune (2024)')).toEqual(['tmdb:693134']);
    expect(await ids('Dune 1999')).toEqual([]);
  });

  it('submitting or organizing a plan id that does not exist is MEDIA_NOT_FOUND naming the id', async () => {
    const { host } = await makeSandboxHost();
    for (const id of ['download.submit', 'organize.execute'] as const) {
      const result = await host.invoke(id, { planId: 'plan_missing' }, { actor: 'user:admin' });
      expect(result.error).toMatchObject({ code: 'MEDIA_NOT_FOUND' });
      expect(result.error?.message).toContain('plan_missing');
    }
  });

  it('a title already in the library: lookup says so, download.plan fails MEDIA_ALREADY_IN_LIBRARY, nothing is submitted', async () => {
    const { host, world } = await makeSandboxHost();
    world.addToLibrary('tmdb:693134');
    await host.grants.create({ action: '*', actor: 'user:admin' });
    const found = (await host.invoke('catalog.lookup', { query: 'Dune Part Two 2024' }, agent('run-1')))
      .output as StandardOutput<'catalog.lookup'>;
    expect(found.items.map((i) => [i.mediaEntityId, i.inLibrary])).toEqual([['tmdb:693134', true]]);
    const planned = await host.invoke(
      'download.plan',
      { ...DUNE_2, kind: 'movie', releaseId: 'rel-693134-2' },
      agent('run-1'),
    );
    expect([planned.status, planned.error?.code]).toEqual(['failed', 'MEDIA_ALREADY_IN_LIBRARY']);
    expect(world.downloads()).toEqual([]);
    expect((await world.forRun('run-1')).library).toEqual([
      { mediaEntityId: 'tmdb:693134', title: 'Dune: Part Two', present: true },
    ]);
  });

  it('a plan whose title reached the library before submit is refused and its plan fails', async () => {
    const { host, world } = await makeSandboxHost();
    await host.grants.create({ action: '*', actor: 'user:admin' });
    const plan = await planDune(host, 'run-1');
    world.addToLibrary('tmdb:693134');
    const submitted = await host.invoke('download.submit', { planId: plan.id }, agent('run-1'));
    expect([submitted.status, submitted.error?.code]).toEqual(['failed', 'MEDIA_ALREADY_IN_LIBRARY']);
    expect(world.downloads()).toEqual([]);
    expect((await world.forRun('run-1')).plans[0]!.status).toBe('failed');
  });

  it('GoalFacts lists only what that run touched', async () => {
    const { host, clock, world } = await makeSandboxHost();
    await host.grants.create({ action: '*', actor: 'user:admin' });
    const plan = await planDune(host, 'run-1');
    await host.invoke('download.submit', { planId: plan.id }, agent('run-1'));
    await host.invoke('catalog.lookup', { query: 'Oppenheimer' }, agent('run-2'));
    await host.invoke('inventory.query', {}, agent('run-2')); // lists everything: touches nothing
    clock.advance(60_000);
    const run1 = await world.forRun('run-1');
    const run2 = await world.forRun('run-2');
    expect(run1.downloads.map((d) => d.mediaEntityId)).toEqual(['tmdb:693134']);
    expect(run1.library.map((l) => l.mediaEntityId)).toEqual(['tmdb:693134']);
    expect(run2).toEqual({
      plans: [],
      downloads: [],
      organizes: [],
      library: [{ mediaEntityId: 'tmdb:872585', title: 'Oppenheimer', present: false }],
    });
    expect(await world.forRun('run-3')).toEqual({ plans: [], downloads: [], organizes: [], library: [] });
  });

  it('state survives toJSON/fromJSON', async () => {
    const { host, clock, world } = await makeSandboxHost();
    await host.grants.create({ action: '*', actor: 'user:admin' });
    const plan = await planDune(host, 'run-1');
    await host.invoke('download.submit', { planId: plan.id }, agent('run-1'));
    const copy = SandboxWorld.fromJSON(JSON.parse(JSON.stringify(world.toJSON())), { clock });
    expect(copy.toJSON()).toEqual(world.toJSON());
    clock.advance(60_000);
    expect(await copy.forRun('run-1')).toEqual(await world.forRun('run-1'));
    expect(copy.inLibrary('tmdb:693134')).toBe(true);
    expect(() => SandboxWorld.fromJSON({ version: 2 } as never)).toThrow(
      expect.objectContaining({ code: 'SANDBOX_STATE_INVALID' }),
    );
  });

  it('with a file path the world saves after each mutation and a new world loads it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-world-'));
    dirs.push(dir);
    const filePath = join(dir, 'world.json');
    const { host, clock, world } = await makeSandboxHost({ filePath });
    await host.grants.create({ action: '*', actor: 'user:admin' });
    const plan = await planDune(host, 'run-1');
    await host.invoke('download.submit', { planId: plan.id }, agent('run-1'));
    clock.advance(60_000);
    world.sync();
    const second = new SandboxWorld({ clock, filePath });
    expect(second.toJSON()).toEqual(world.toJSON());
    expect(second.inLibrary('tmdb:693134')).toBe(true);
    expect(second.downloads().map((d) => d.runIds)).toEqual([['run-1']]);
  });
});
