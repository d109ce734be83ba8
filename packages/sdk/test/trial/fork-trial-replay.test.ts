// Trial: replay of forks and of a run with steering + approval + compaction; replay after a capability's schema
// became stricter; export to bad paths; --compare-forks exit codes. Real SQLite files, the eval CLI in process.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeScript } from '../../src/models/scripted';
import { defineCapability, readRecordedRun } from '../../src/index';
import { runEvalCli, sandboxCapabilities } from '../../src/testing';
import {
  addDune,
  cleanup,
  forkAnswers,
  GOAL,
  howBig,
  makeHost,
  searchAgain,
  steer,
  submittedOriginal,
  tempDir,
  TERMINAL,
  untilEvents,
  waitForRunStatus,
} from './fork-trial-helpers';

afterEach(cleanup);

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runEvalCli(args, {
    env: {},
    cwd: repoRoot,
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  return { code, stdout, stderr };
}

const approvedSubmit: FakeScript = {
  name: 'approved submit',
  match: /was approved/,
  steps: [
    {
      text: 'Submitting. ',
      toolCalls: [{ capability: 'download.submit', input: { planId: '{{download.plan.plan.id}}' } }],
    },
  ],
  finalText: 'Submitted after the approval.',
};

describe('replay of forks', () => {
  it('a fork that ran to its end replays `same`, with no model call, no handler call, no ledger write', async () => {
    const t = await makeHost('sqlite');
    const original = await submittedOriginal(t);
    const point = (await t.host.listForkPoints(original.id)).find((p) => p.label.includes('download.plan'))!;
    const fork = await t.host.forkRun(original.id, { atSeq: point.seq, actor: 'user:alice' });
    await waitForRunStatus(t.host, fork.id, ['waiting', ...TERMINAL], { clock: t.clock, tickMs: 10 });
    const calls = t.provider.requests.length;
    const report = await t.host.replayRun(fork.id, { actor: 'user:alice' });
    expect(report.divergences).toEqual([]);
    expect(report).toMatchObject({ status: 'same', modelCalls: 0, handlerCalls: 0, ledgerWrites: 0 });
    expect(t.provider.requests.length).toBe(calls);
  });

  it('a fork that repeated the submit (refused FORK_DUPLICATE_EFFECT, approval asked) replays `same`: the duplicate rule holds in the replay', async () => {
    const resubmit: FakeScript = {
      name: 'fork resubmits',
      match: /^\[runtime note: forked conversation\]/,
      steps: [
        {
          text: 'Again. ',
          toolCalls: [{ capability: 'download.submit', input: { planId: '{{download.plan.plan.id}}' } }],
        },
      ],
      finalText: 'Done with the fork.',
    };
    const t = await makeHost('sqlite', { scripts: [resubmit, addDune] });
    const original = await submittedOriginal(t);
    const point = (await t.host.listForkPoints(original.id)).find((p) => p.label.includes('download.plan'))!;
    const fork = await t.host.forkRun(original.id, { atSeq: point.seq, actor: 'user:alice' });
    await untilEvents(t.host, fork.id, (es) => es.some((e) => e.type === 'approval_requested'), t.clock);
    await waitForRunStatus(t.host, fork.id, ['waiting', ...TERMINAL], { clock: t.clock, tickMs: 10 });
    // The recording carries the fork's lineage (the original's submit), which the replay seeds into its run.
    const recorded = await readRecordedRun(t.storage, fork.id, { capabilities: t.host.capabilities });
    expect(recorded.forkLineage).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ capabilityId: 'download.submit', runId: original.id, outcome: 'pending' }),
      ]),
    );
    expect(recorded.turns.flatMap((x) => x.calls).map((c) => c.error?.code)).toContain('FORK_DUPLICATE_EFFECT');
    const report = await t.host.replayRun(fork.id, { actor: 'user:alice' });
    expect(report.divergences).toEqual([]);
    expect(report).toMatchObject({ status: 'same', modelCalls: 0, handlerCalls: 0, ledgerWrites: 0 });
  });
});

describe('replay of a run with steering and an approval', () => {
  it('replays `same` and touches nothing of the host', async () => {
    const t = await makeHost('sqlite', {
      scripts: [approvedSubmit, howBig, searchAgain, addDune],
      grants: ['download.plan'],
    });
    const run = await t.host.startRun({ goal: GOAL, actor: 'user:alice' });
    const es = await untilEvents(t.host, run.id, (x) => x.some((e) => e.type === 'approval_requested'), t.clock);
    await waitForRunStatus(t.host, run.id, ['waiting', ...TERMINAL], { clock: t.clock, tickMs: 10 });
    await steer(t, run.id, 'how big is it?');
    const req = es.find((e) => e.type === 'approval_requested')!.data as { approvalId: string; payloadHash: string };
    await t.host.approvals.decide(req.approvalId, {
      status: 'approved',
      actor: 'user:admin',
      payloadHash: req.payloadHash,
    });
    await untilEvents(
      t.host,
      run.id,
      (x) => x.some((e) => e.type === 'tool_call' && (e.data as { phase: string }).phase === 'pending'),
      t.clock,
    );
    await waitForRunStatus(t.host, run.id, ['waiting', ...TERMINAL], { clock: t.clock, tickMs: 10 });
    await steer(t, run.id, 'search again');
    const all = await t.storage.events.listByRun(run.id, { limit: 10_000 });
    const types = new Set(all.map((e) => e.type));
    expect(types.has('inbox_applied')).toBe(true);
    expect(types.has('approval_decided')).toBe(true);
    const downloads = t.world.downloads().length;
    const calls = t.provider.requests.length;
    const ledger = await t.storage.ledger.listByRun(run.id, { limit: 100 });
    // The decision came after the first steering message, and is played back after it.
    const recorded = await readRecordedRun(t.storage, run.id, { capabilities: t.host.capabilities });
    expect(recorded.approvals).toEqual([expect.objectContaining({ decision: 'approved', afterSteering: 1 })]);
    expect(recorded.steering.map((s) => s.text)).toEqual(['how big is it?', 'search again']);
    const report = await t.host.replayRun(run.id, { actor: 'user:alice', timeoutMs: 10_000 });
    // Not cut short: `stopped` is null (the report's type; replay-trajectories.test.ts asserts null as well).
    expect(report.stopped).toBeNull();
    expect(report.divergences).toEqual([]);
    expect(report).toMatchObject({ status: 'same', modelCalls: 0, handlerCalls: 0, ledgerWrites: 0 });
    expect(t.provider.requests.length).toBe(calls);
    expect(t.world.downloads()).toHaveLength(downloads);
    expect(await t.storage.ledger.listByRun(run.id, { limit: 100 })).toEqual(ledger);
  });
});

describe('replay of a run that has not ended', () => {
  it('a run waiting for its import is replayed as far as stored: same, not stopped by the timeout', async () => {
    const t = await makeHost('sqlite');
    const run = await submittedOriginal(t);
    const report = await t.host.replayRun(run.id, { timeoutMs: 10_000 });
    expect(report.divergences).toEqual([]);
    expect(report.status).toBe('same');
    // Stopped because it reached the stored state, not by the timeout (no wall-clock bound: the report says why).
    expect(report.stopped).toBeNull();
  });
});

describe('replay after a capability schema became stricter', () => {
  it('release.search now requires a field the stored input lacks: a divergence, not a crash; nothing called', async () => {
    const t = await makeHost('sqlite');
    const run = await submittedOriginal(t);
    const path = t.path!;
    await t.host.stop();
    // A new host on the same file; release.search now requires `region`.
    const strict = await makeHost('sqlite', {
      path,
      grants: [],
      scripts: [],
    });
    // (makeHost registered the sandbox set: rebuild it on a new host with the stricter search instead.)
    await strict.host.stop();
    const { createAgentHost, ConsoleLogger, SequentialIdGenerator } = await import('../../src/index');
    const { SqliteStorage } = await import('../../src/sqlite');
    const { SandboxWorld, ScriptedProvider } = await import('../../src/testing');
    const world = new SandboxWorld({ clock: strict.clock, autoImport: false });
    const host = createAgentHost({
      storage: new SqliteStorage({ path }),
      clock: strict.clock,
      ids: new SequentialIdGenerator(),
      logger: new ConsoleLogger('silent'),
      model: { provider: new ScriptedProvider({ scripts: [] }), model: 'host-model' },
      goalFacts: world,
      runs: { pollMs: 5, goalPollSec: 1 },
    } as never);
    const caps = sandboxCapabilities(world, { plans: host.plans }) as unknown as Record<string, { input: unknown }>;
    const search = caps['release.search']!;
    caps['release.search'] = defineCapability({
      ...(search as object),
      input: Type.Object(
        { ...(search.input as { properties: object }).properties, region: Type.String() },
        {
          additionalProperties: false,
        },
      ),
    } as never) as never;
    // A plugin's own definition now (not the standard contract): registered as is.
    for (const c of Object.values(caps)) host.capabilities.register(c as never);
    await host.start();
    try {
      const report = await host.replayRun(run.id, { timeoutMs: 10_000 });
      expect(report.stopped).not.toBe('timeout');
      expect(report).toMatchObject({ status: 'diverged', modelCalls: 0, handlerCalls: 0, ledgerWrites: 0 });
      expect(
        report.divergences.some((d) => d.capabilityId === 'release.search' || /release\.search/.test(d.message)),
      ).toBe(true);
    } finally {
      await host.stop();
    }
  });
});

describe('export and compare-forks from the command line', () => {
  it('export to a missing folder or onto a directory: exit 2 EVAL_EXPORT_UNWRITABLE, nothing written; export of a fork replays with its verdict', async () => {
    const t = await makeHost('sqlite');
    const original = await submittedOriginal(t);
    const point = (await t.host.listForkPoints(original.id)).find((p) => p.label.includes('release.search'))!;
    const fork = await t.host.forkRun(original.id, { atSeq: point.seq, actor: 'user:alice' });
    await waitForRunStatus(t.host, fork.id, ['waiting', ...TERMINAL], { clock: t.clock, tickMs: 10 });
    await t.host.stop();
    const out = tempDir();
    const missing = await cli(['--export-trajectory', t.path!, original.id, join(out, 'nope', 'run.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^eval: EVAL_EXPORT_UNWRITABLE: /);
    const dir = join(out, 'a-dir');
    mkdirSync(dir);
    const onDir = await cli(['--export-trajectory', t.path!, original.id, dir]);
    expect(onDir.code).toBe(2);
    expect(onDir.stderr).toMatch(/^eval: EVAL_EXPORT_UNWRITABLE: /);
    expect(readdirSync(out).sort()).toEqual(['a-dir']);
    expect(readdirSync(dir)).toEqual([]);
    // The fork as a test: its exported verdict is what --replay gives it.
    const file = join(out, 'fork.json');
    const exported = await cli(['--export-trajectory', t.path!, fork.id, file]);
    expect(exported.code, exported.stderr).toBe(0);
    const replayed = await cli(['--replay', file, '--check-expected']);
    expect(replayed.code, replayed.stdout + replayed.stderr).toBe(0);
    const fromRun = await cli(['--from-run', t.path!, fork.id]);
    expect(fromRun.code, fromRun.stdout + fromRun.stderr).toBe(0);
    expect(fromRun.stdout).toContain('model calls 0, handler calls 0, ledger writes 0');
    expect(JSON.parse(readFileSync(file, 'utf8')).recorded.run.id).toBe(fork.id);
  });

  it('--compare-forks: two forks exit 0; one run exit 2; a non-fork with a fork exit 0 with a warning', async () => {
    const t = await makeHost('sqlite', { scripts: [forkAnswers, addDune] });
    const original = await submittedOriginal(t);
    const point = (await t.host.listForkPoints(original.id)).at(-1)!;
    const a = await t.host.forkRun(original.id, { atSeq: point.seq, actor: 'user:alice', model: 'model-a' });
    const b = await t.host.forkRun(original.id, { atSeq: point.seq, actor: 'user:alice', model: 'model-b' });
    for (const r of [a, b])
      await waitForRunStatus(t.host, r.id, ['waiting', ...TERMINAL], { clock: t.clock, tickMs: 10 });
    await t.host.stop();
    const both = await cli(['--compare-forks', t.path!, a.id, b.id, '--json']);
    expect(both.code, both.stderr).toBe(0);
    const cmp = JSON.parse(both.stdout) as { forkPoint: unknown; runs: Array<{ model: string }>; warnings: string[] };
    expect(cmp.runs.map((r) => r.model)).toEqual(['model-a', 'model-b']);
    expect(cmp.warnings).toEqual([]);
    expect(cmp.forkPoint).toMatchObject({ runId: original.id, atSeq: point.seq });
    const one = await cli(['--compare-forks', t.path!, a.id]);
    expect(one.code).toBe(2);
    const mixed = await cli(['--compare-forks', t.path!, original.id, a.id]);
    expect(mixed.code).toBe(0);
    expect(mixed.stdout).toContain('runs that do not share a fork point');
    expect(mixed.stderr).toMatch(/warning: .*run_1/);
    const nope = await cli(['--compare-forks', t.path!, a.id, 'run_nope']);
    expect(nope.code).toBe(2);
    expect(nope.stderr).toContain('EVAL_RUN_NOT_FOUND');
    const dup = await cli(['--compare-forks', t.path!, a.id, a.id]);
    expect([0, 2]).toContain(dup.code);
  });
});
