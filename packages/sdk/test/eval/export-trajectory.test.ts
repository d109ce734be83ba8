// A run becomes a test: sandbox runs stored in REAL SQLite files, exported with `--export-trajectory`, replayed with
// `--replay` (same verdict and code), replayed from the database with `--from-run`; bad input exits 2 with its code.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedProvider } from '../../src/models/scripted';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage';
import {
  parseTrajectory,
  runEvalCli,
  runScenario,
  STANDARD_SCENARIOS,
  trajectoryScripts,
  type EvalRunResult,
  type Trajectory,
} from '../../src/testing';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'media-agent-export-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs the eval CLI in-process with a capturing io. */
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

/** Plays a shipped trajectory through a host whose storage is a SQLite file; the file keeps the run. */
async function storeRun(trajectoryFile: string, db: string): Promise<EvalRunResult> {
  const t = parseTrajectory(readFileSync(join(repoRoot, 'eval/trajectories', trajectoryFile), 'utf8'));
  return runScenario(STANDARD_SCENARIOS[t.scenario]!, {
    provider: new ScriptedProvider({ scripts: trajectoryScripts(t) }),
    seed: t.seed ?? 0,
    storage: new SqliteStorage({ path: db }),
  });
}

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

const dbs = {
  failed: join(tmp, 'honest-unknown.sqlite'),
  approved: join(tmp, 'approval-required.sqlite'),
  steered: join(tmp, 'steering.sqlite'),
  noReport: join(tmp, 'not-submitted.sqlite'),
};
const runs = {} as Record<keyof typeof dbs, EvalRunResult>;

beforeAll(async () => {
  runs.failed = await storeRun('honest_unknown.fail-incorrect_completion_claim.json', dbs.failed);
  runs.approved = await storeRun('approval_required.pass.json', dbs.approved);
  runs.steered = await storeRun('steering_mid_run.pass.json', dbs.steered);
  runs.noReport = await storeRun('approval_required.fail-not_submitted.json', dbs.noReport);
}, 120_000);

describe('--export-trajectory <db> <runId> <file> (a run becomes a test)', { timeout: 60_000 }, () => {
  it('writes a failed run as a recorded trajectory whose expect is the recorded verdict, reading the file only', async () => {
    expect(runs.failed.runStatus).toBe('failed');
    const before = sha(dbs.failed);
    const file = join(tmp, 'failed.json');
    const r = await cli(['--export-trajectory', dbs.failed, runs.failed.runId, file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('expect fail (goal_failed)');
    expect(sha(dbs.failed)).toBe(before); // read only
    const t = JSON.parse(readFileSync(file, 'utf8')) as Trajectory;
    expect(parseTrajectory(readFileSync(file, 'utf8')).scenario).toBe('recorded');
    expect(t.expect).toEqual({ verdict: 'fail', code: 'goal_failed' });
    const rec = t.recorded!;
    expect(rec.run).toMatchObject({ id: runs.failed.runId, status: 'failed', report: { status: 'failed' } });
    // One result per call, in order, each the call it follows.
    const calls = t.turns.flatMap((turn) => turn.calls);
    expect(rec.results).toHaveLength(calls.length);
    expect(rec.results.map((x) => x.capability)).toEqual(calls.map((c) => c.capability));
    expect(rec.results.find((x) => x.capability === 'download.submit')).toMatchObject({ status: 'pending' });
    // The capabilities as JSON: kind, replay rule and input schema of the current definitions.
    const submit = rec.capabilities.find((c) => c.id === 'download.submit')!;
    expect(submit).toMatchObject({ kind: 'execute', replay: 'never' });
    expect((submit.input as { type?: string }).type).toBe('object');
    // The facts the report was built from, and the grants it was authorized under.
    expect((rec.facts as { downloads: Array<{ status: string }> }).downloads.map((d) => d.status)).toEqual(['stalled']);
    expect(rec.authorization!.grants.map((g) => (g as { action: string }).action).sort()).toEqual(
      expect.arrayContaining(['download.plan']),
    );
    expect(readdirSync(tmp).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('--replay of the exported failed run gives the same verdict and code (exit 1; 0 with --check-expected)', async () => {
    const file = join(tmp, 'failed.json');
    const r = await cli(['--replay', file, '--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { runs: Array<{ scenario: string; verdict: string; code: string }> };
    expect(report.runs).toEqual([
      expect.objectContaining({ scenario: 'recorded', verdict: 'fail', code: 'goal_failed' }),
    ]);
    const checked = await cli(['--replay', file, '--check-expected']);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
  });

  it('a passing run with an approval exports expect pass and replays as a pass, the approval played as recorded', async () => {
    const file = join(tmp, 'approved.json');
    const r = await cli(['--export-trajectory', dbs.approved, runs.approved.runId, file]);
    expect(r.code, r.stderr).toBe(0);
    const t = parseTrajectory(readFileSync(file, 'utf8'));
    expect(t.expect).toEqual({ verdict: 'pass' });
    expect(t.recorded!.approvals).toEqual([
      expect.objectContaining({ capabilityId: 'download.submit', decision: 'approved' }),
    ]);
    const replay = await cli(['--replay', file, '--check-expected', '--json']);
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout).runs[0]).toMatchObject({ verdict: 'pass', code: null });
  });

  it('a run with a steering message exports it before the turn it preceded and replays as a pass', async () => {
    const file = join(tmp, 'steered.json');
    expect((await cli(['--export-trajectory', dbs.steered, runs.steered.runId, file])).code).toBe(0);
    const t = parseTrajectory(readFileSync(file, 'utf8'));
    expect(t.recorded!.steering).toEqual([
      expect.objectContaining({ text: expect.stringContaining('2160p'), beforeTurn: expect.any(Number) }),
    ]);
    expect(t.recorded!.steering[0]!.beforeTurn).toBeGreaterThan(0);
    const replay = await cli(['--replay', file, '--check-expected']);
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);
  });

  it('a run that failed without a goal report exports run_failed and replays to the same code', async () => {
    const file = join(tmp, 'no-report.json');
    expect((await cli(['--export-trajectory', dbs.noReport, runs.noReport.runId, file])).code).toBe(0);
    const t = parseTrajectory(readFileSync(file, 'utf8'));
    expect(t.expect).toEqual({ verdict: 'fail', code: 'run_failed' });
    const replay = await cli(['--replay', file, '--json']);
    expect(JSON.parse(replay.stdout).runs[0]).toMatchObject({ verdict: 'fail', code: 'run_failed' });
  });
});

describe('--export-trajectory: bad input exits 2 with its code on one line and writes nothing', {
  timeout: 30_000,
}, () => {
  const out = () => join(tmp, `bad-${Math.random().toString(36).slice(2)}.json`);
  const oneLine = (r: { stderr: string }, code: string) => {
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^eval: ${code}: `));
  };

  it('a database that does not exist (and it is not created)', async () => {
    const db = join(tmp, 'missing.sqlite');
    const file = out();
    const r = await cli(['--export-trajectory', db, 'run_1', file]);
    expect(r.code).toBe(2);
    oneLine(r, 'EVAL_DB_INVALID');
    expect(existsSync(db)).toBe(false);
    expect(existsSync(file)).toBe(false);
  });

  it('a file that is not a SQLite database, and a SQLite file without the media-agent schema', async () => {
    const text = join(tmp, 'notes.txt');
    writeFileSync(text, 'not a database at all, just some text that is long enough to have a header'.repeat(4));
    const empty = join(tmp, 'other.sqlite');
    const other = new Database(empty);
    other.exec('CREATE TABLE t (x)');
    other.close();
    for (const db of [text, empty, tmp]) {
      const file = out();
      const r = await cli(['--export-trajectory', db, 'run_1', file]);
      expect(r.code, db).toBe(2);
      oneLine(r, 'EVAL_DB_INVALID');
      expect(existsSync(file)).toBe(false);
    }
  });

  it('a run the database does not hold', async () => {
    const file = out();
    const r = await cli(['--export-trajectory', dbs.failed, 'run_404', file]);
    expect(r.code).toBe(2);
    oneLine(r, 'EVAL_RUN_NOT_FOUND');
    expect(r.stderr).toContain('run_404');
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(tmp).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('an output path that cannot be written: under /proc, a directory, a missing folder — checked before the run is read', async () => {
    const dir = join(tmp, 'a-dir');
    mkdirSync(dir);
    for (const file of ['/proc/x', dir, join(tmp, 'no-such-folder', 'x.json')]) {
      // The run id is unknown too: the output path is checked first.
      const r = await cli(['--export-trajectory', dbs.failed, 'run_404', file]);
      expect(r.code, file).toBe(2);
      oneLine(r, 'EVAL_EXPORT_UNWRITABLE');
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('missing arguments and options that do not apply', async () => {
    const r = await cli(['--export-trajectory', dbs.failed, runs.failed.runId]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^eval: EVAL_ARGS_INVALID: --export-trajectory needs a value|^eval: --export-trajectory needs a value/,
    );
    const json = await cli(['--export-trajectory', dbs.failed, runs.failed.runId, out(), '--json']);
    expect(json.code).toBe(2);
  });

  it('an existing trajectory is replaced whole, never half-written', async () => {
    const file = join(tmp, 'replace.json');
    writeFileSync(file, 'old');
    expect((await cli(['--export-trajectory', dbs.failed, runs.failed.runId, file])).code).toBe(0);
    expect(parseTrajectory(readFileSync(file, 'utf8')).scenario).toBe('recorded');
    const again = await cli(['--export-trajectory', dbs.failed, 'run_404', file]);
    expect(again.code).toBe(2);
    expect(parseTrajectory(readFileSync(file, 'utf8')).scenario).toBe('recorded'); // untouched by the failure
  });
});

describe('--from-run <db> <runId>: the stored run through the current runtime', { timeout: 60_000 }, () => {
  it('replays each stored run with zero divergences, no model or handler call and no ledger write (exit 0)', async () => {
    for (const key of Object.keys(dbs) as Array<keyof typeof dbs>) {
      const before = sha(dbs[key]);
      const r = await cli(['--from-run', dbs[key], runs[key].runId]);
      expect(r.code, `${key}: ${r.stdout}${r.stderr}`).toBe(0);
      expect(r.stdout).toContain(`run ${runs[key].runId}: same`);
      expect(r.stdout).toContain('model calls 0, handler calls 0, ledger writes 0');
      expect(r.stdout).toContain('no divergence');
      expect(sha(dbs[key])).toBe(before);
    }
  });

  it('--out writes the report as JSON; --json prints it', async () => {
    const file = join(tmp, 'from-run.json');
    const r = await cli(['--from-run', dbs.failed, runs.failed.runId, '--out', file, '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(file, 'utf8')) as { status: string; divergences: unknown[]; runId: string };
    expect(report).toMatchObject({ runId: runs.failed.runId, status: 'same', divergences: [] });
    expect(JSON.parse(r.stdout)).toEqual(report);
  });

  it('a capability the current runtime no longer has is a divergence (exit 1), not a crash', async () => {
    const module = join(tmp, 'bare-runtime.ts');
    // A scenario host whose registry holds no capability at all: every call of the stored run is missing.
    writeFileSync(
      module,
      `import { createAgentHost } from '${join(repoRoot, 'packages/sdk/src/index.ts')}';
export default {
  id: 'bare_runtime',
  title: 'no capabilities',
  goal: 'nothing',
  rules: [() => undefined],
  host: async ({ options }) => ({ host: createAgentHost(options) }),
};
`,
    );
    const file = join(tmp, 'diverged.json');
    const r = await cli(['--scenarios', module, '--from-run', dbs.failed, runs.failed.runId, '--out', file]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/: diverged/);
    expect(r.stdout).toMatch(/capability_missing\s+\d+\s+\S+\s+download\.submit/);
    const report = JSON.parse(readFileSync(file, 'utf8')) as { divergences: Array<{ kind: string }> };
    expect(report.divergences.some((d) => d.kind === 'capability_missing')).toBe(true);
  });

  it('bad input exits 2 with its code: missing database, unknown run, --out that cannot be written', async () => {
    const missing = await cli(['--from-run', join(tmp, 'nope.sqlite'), 'run_1']);
    expect([missing.code, missing.stderr.split(':')[1]?.trim()]).toEqual([2, 'EVAL_DB_INVALID']);
    const unknown = await cli(['--from-run', dbs.failed, 'run_404']);
    expect([unknown.code, unknown.stderr.split(':')[1]?.trim()]).toEqual([2, 'EVAL_RUN_NOT_FOUND']);
    const out = await cli(['--from-run', dbs.failed, runs.failed.runId, '--out', '/proc/x']);
    expect([out.code, out.stderr.split(':')[1]?.trim()]).toEqual([2, 'EVAL_OUT_UNWRITABLE']);
  });
});
