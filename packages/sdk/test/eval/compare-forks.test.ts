// `--compare-forks`: one run forked twice at the same step with two model ids, on a REAL SQLite file, through the
// real run loop and the sandbox world; the scripted model reports a different usage per model, so each fork's
// cost comes from the host's price table.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, ManualClock, SequentialIdGenerator, type RunRecord } from '../../src/index';
import type { FakeScript } from '../../src/models/scripted';
import type { ModelEvent, ModelProvider, ModelRequest } from '../../src/models/types';
import { SqliteStorage } from '../../src/sqlite';
import {
  registerSandboxCapabilities,
  runEvalCli,
  SandboxWorld,
  ScriptedProvider,
  waitForRunStatus,
  type ForkComparison,
} from '../../src/testing';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'media-agent-compare-forks-'));
const db = join(tmp, 'agent.sqlite');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const TERMINAL = ['succeeded', 'failed', 'cancelled', 'budget_exceeded'] as const;
/** Tokens each model reports per call (input, output): the two forks differ in usage and in price. */
const USAGE: Record<string, [number, number]> = {
  'claude-haiku-4-5': [1_000, 100],
  'claude-sonnet-4-5': [2_000, 300],
};

/** The scripted model, reporting the usage of the model each request names instead of its estimate. */
class UsageByModel implements ModelProvider {
  readonly id = 'scripted';
  constructor(private readonly inner: ScriptedProvider) {}
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent> {
    const inner = this.inner.stream(request, signal);
    const [input, output] = USAGE[request.model] ?? [10, 1];
    return (async function* () {
      for await (const e of inner)
        yield e.type === 'usage'
          ? {
              type: 'usage',
              usage: { inputTokens: input, outputTokens: output, cacheReadTokens: 0, cacheWriteTokens: 0 },
            }
          : e;
    })();
  }
}

const original: FakeScript = {
  name: 'status',
  match: 'Is Dune',
  steps: [{ text: 'Looking. ', toolCalls: [{ capability: 'inventory.query', input: { query: 'Dune: Part Two' } }] }],
  finalText: 'Not in the library.',
};
const forked: FakeScript = {
  name: 'fork',
  match: 'forked conversation',
  steps: [{ text: 'Checking again. ', toolCalls: [{ capability: 'task.inspect', input: {} }] }],
  finalText: 'Nothing is downloading either.',
};

let runs: { original: RunRecord; a: RunRecord; b: RunRecord; other: RunRecord };

beforeAll(async () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const world = new SandboxWorld({ clock });
  const host = createAgentHost({
    storage: new SqliteStorage({ path: db }),
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider: new UsageByModel(new ScriptedProvider({ scripts: [forked, original] })), model: 'host-model' },
    goalFacts: world,
    runs: { pollMs: 5, goalPollSec: 1 },
  });
  registerSandboxCapabilities(host, world);
  await host.start();
  try {
    const run = await host.startRun({ goal: 'Is Dune: Part Two in the library?', actor: 'user:admin' });
    const ended = await waitForRunStatus(host, run.id, [...TERMINAL], { clock, tickMs: 10 });
    const points = await host.listForkPoints(run.id, { actor: 'user:admin' });
    const afterRead = points.find((p) => p.label.includes('inventory.query'))!;
    expect(afterRead).toBeDefined();
    const fork = async (model: string, atSeq = afterRead.seq) => {
      const f = await host.forkRun(run.id, { atSeq, actor: 'user:admin', model });
      return waitForRunStatus(host, f.id, [...TERMINAL], { clock, tickMs: 10 });
    };
    const a = await fork('claude-haiku-4-5');
    const b = await fork('claude-sonnet-4-5');
    const other = await fork(
      'claude-haiku-4-5',
      points[0]!.seq === afterRead.seq ? points.at(-1)!.seq : points[0]!.seq,
    );
    runs = { original: ended, a, b, other };
  } finally {
    await host.stop();
  }
}, 60_000);

async function cli(args: string[]) {
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

describe('--compare-forks <db> <runA> <runB>', { timeout: 30_000 }, () => {
  it('puts two forks of one step with two models side by side: model, status, goal report, calls, tokens and cost', async () => {
    expect(runs.a.forkedFrom).toEqual(runs.b.forkedFrom);
    const file = join(tmp, 'forks.json');
    const r = await cli(['--compare-forks', db, runs.a.id, runs.b.id, '--out', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')[0]).toBe(`forks of ${runs.original.id} at ${runs.a.forkedFrom!.atSeq}`);
    expect(r.stdout).toMatch(
      new RegExp(`${runs.a.id}\\s+claude-haiku-4-5\\s+succeeded\\s+succeeded\\s+1\\s+2\\s+2000\\s+200\\s+0\\.0030`),
    );
    expect(r.stdout).toMatch(
      new RegExp(`${runs.b.id}\\s+claude-sonnet-4-5\\s+succeeded\\s+succeeded\\s+1\\s+2\\s+4000\\s+600\\s+0\\.0210`),
    );
    const c = JSON.parse(readFileSync(file, 'utf8')) as ForkComparison;
    expect(c.forkPoint).toEqual(runs.a.forkedFrom);
    expect(c.warnings).toEqual([]);
    const [a, b] = c.runs;
    expect(a).toMatchObject({ runId: runs.a.id, model: 'claude-haiku-4-5', goalStatus: 'succeeded', toolCalls: 1 });
    expect(b).toMatchObject({ runId: runs.b.id, model: 'claude-sonnet-4-5', goalStatus: 'succeeded', toolCalls: 1 });
    // Cost from the price table: haiku 1 + 5, sonnet 3 + 15 USD per million tokens in + out.
    expect(a!.costUsd).toBeCloseTo((2_000 * 1 + 200 * 5) / 1e6, 9);
    expect(b!.costUsd).toBeCloseTo((4_000 * 3 + 600 * 15) / 1e6, 9);
    expect(Object.keys(a!.byModel)).toEqual(['scripted/claude-haiku-4-5']);
    expect(Object.keys(b!.byModel)).toEqual(['scripted/claude-sonnet-4-5']);
    expect(a!.goalSummary).toBeTruthy();
  });

  it('--json prints the same comparison', async () => {
    const r = await cli(['--compare-forks', db, runs.a.id, runs.b.id, '--json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as ForkComparison).runs.map((x) => x.model)).toEqual([
      'claude-haiku-4-5',
      'claude-sonnet-4-5',
    ]);
  });

  it('warns (and still compares) when the runs do not share a fork point or one is not a fork', async () => {
    const r = await cli(['--compare-forks', db, runs.a.id, runs.other.id, runs.original.id]);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('runs that do not share a fork point');
    expect(r.stderr).toContain(
      `warning: ${runs.other.id} was forked from ${runs.original.id} at ${runs.other.forkedFrom!.atSeq}`,
    );
    expect(r.stderr).toContain(`warning: ${runs.original.id} is not a fork`);
  });

  it('bad input exits 2 with its code: one run only, an unknown run, a missing database', async () => {
    const one = await cli(['--compare-forks', db, runs.a.id]);
    expect(one.code).toBe(2);
    const unknown = await cli(['--compare-forks', db, runs.a.id, 'run_404']);
    expect([unknown.code, unknown.stderr.split(':')[1]?.trim()]).toEqual([2, 'EVAL_RUN_NOT_FOUND']);
    const missing = await cli(['--compare-forks', join(tmp, 'none.sqlite'), runs.a.id, runs.b.id]);
    expect([missing.code, missing.stderr.split(':')[1]?.trim()]).toEqual([2, 'EVAL_DB_INVALID']);
  });
});
