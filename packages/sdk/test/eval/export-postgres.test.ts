// `--export-trajectory` and `--from-run` on a REAL PostgreSQL database (`postgres://…?schema=name`), read through
// read-only connections: a sandbox run that fails, stored by a host on PostgresStorage, exported and replayed.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ScriptedProvider } from '../../src/models/scripted';
import { PostgresStorage } from '../../src/postgres';
import {
  parseTrajectory,
  runEvalCli,
  runScenario,
  STANDARD_SCENARIOS,
  trajectoryScripts,
  type EvalRunResult,
} from '../../src/testing';
import {
  closeAdmin,
  describePostgres,
  dropSchema,
  freshSchemaName,
  PG_AVAILABLE,
  PG_URL,
} from '../storage/postgres-available';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'media-agent-export-pg-'));
const schema = freshSchemaName('ma_export');
const withSchema = (s: string) => {
  const u = new URL(PG_URL);
  u.searchParams.set('schema', s);
  return u.toString();
};

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

let run: EvalRunResult;

beforeAll(async () => {
  if (!PG_AVAILABLE) return;
  const t = parseTrajectory(
    readFileSync(join(repoRoot, 'eval/trajectories/honest_unknown.fail-incorrect_completion_claim.json'), 'utf8'),
  );
  run = await runScenario(STANDARD_SCENARIOS[t.scenario]!, {
    provider: new ScriptedProvider({ scripts: trajectoryScripts(t) }),
    storage: new PostgresStorage({ connectionString: PG_URL, schema, poolSize: 2 }),
  });
}, 120_000);

afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  if (!PG_AVAILABLE) return;
  await dropSchema(schema);
  await closeAdmin();
});

describePostgres('a run stored in PostgreSQL becomes a test', () => {
  it('exports the failed run (expect goal_failed), replays it to the same verdict, and --from-run finds no divergence', async () => {
    const file = join(tmp, 'pg.json');
    const r = await cli(['--export-trajectory', withSchema(schema), run.runId, file]);
    expect(r.code, r.stderr).toBe(0);
    const t = parseTrajectory(readFileSync(file, 'utf8'));
    expect(t.expect).toEqual({ verdict: 'fail', code: 'goal_failed' });
    const replay = await cli(['--replay', file, '--check-expected']);
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);
    const from = await cli(['--from-run', withSchema(schema), run.runId, '--json']);
    expect(from.code, from.stderr).toBe(0);
    expect(JSON.parse(from.stdout)).toMatchObject({ status: 'same', divergences: [], ledgerWrites: 0 });
  }, 60_000);

  it('a schema without media-agent tables and an unknown run exit 2 with their codes', async () => {
    const empty = await cli([
      '--export-trajectory',
      withSchema(freshSchemaName('ma_none')),
      'run_1',
      join(tmp, 'x.json'),
    ]);
    expect([empty.code, empty.stderr.split(':')[1]?.trim()]).toEqual([2, 'EVAL_DB_INVALID']);
    const unknown = await cli(['--from-run', withSchema(schema), 'run_404']);
    expect([unknown.code, unknown.stderr.split(':')[1]?.trim()]).toEqual([2, 'EVAL_RUN_NOT_FOUND']);
  });
});
