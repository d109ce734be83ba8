// The schedules scale test, bounded for CI: 4 real host processes on one SQLite file, then on one PostgreSQL schema,
// a clock 60x faster than real time, 120 schedules ticking over 1 000 times in about 65 s real, random SIGKILLs and
// restarts (and at least one kill of every process at once). Every tick that was due while a process was alive
// starts exactly one run, no tick fires twice, and the missed-tick policy holds across the kills (oracle.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describePostgres, dropSchema, freshSchemaName, PG_URL, closeAdmin } from '../storage/postgres-available';
import { runScheduleScale, scaleScheduleMix, type ScheduleScaleResult } from './scale/harness';
import type { ScaleStoreSpec } from './scale/store-spec';

/**
 * Real s of each store's window (`MEDIA_AGENT_SCALE_SECONDS`, default 65): 120 schedules every 7.5 min on average tick
 * about 120 · s / 7.5 times (65 s: about 1 040, and more over the drain). CI runs 45 s per store beside its build
 * steps.
 */
const SECONDS = Number(process.env.MEDIA_AGENT_SCALE_SECONDS ?? 65);
const DURATION_REAL_MS = SECONDS * 1_000;
/** The fewest decidable ticks a store's run must judge: 85 % of the expected, at most 1 000. */
const MIN_TICKS = Math.min(1_000, Math.floor(((120 * SECONDS) / 7.5) * 0.85));
const TIMEOUT_MS = 300_000;

async function scenario(store: ScaleStoreSpec): Promise<ScheduleScaleResult> {
  const r = await runScheduleScale({
    store,
    schedules: scaleScheduleMix(120),
    durationRealMs: DURATION_REAL_MS,
    processes: 4,
    speed: 60,
    log: (line) => console.log(`[${store.kind}] ${line}`),
  });
  console.log(`[${store.kind}] seed ${r.seed}: ${JSON.stringify({ ...r.oracle, window: r.window })}`);
  for (const line of r.missedDetails) console.log(`[${store.kind}] missed ${line}`);
  return r;
}

function expectExactlyOnce(r: ScheduleScaleResult): void {
  expect(r.crashes).toEqual([]);
  expect(r.oracle.ticks).toBeGreaterThanOrEqual(MIN_TICKS);
  expect(r.kills).toBeGreaterThan(0);
  expect(r.allDownKills).toBeGreaterThan(0);
  expect(r.oracle.examples.doubleFires).toEqual([]);
  expect(r.oracle.doubleFires).toBe(0);
  expect(r.oracle.examples.missedFires).toEqual([]);
  expect(r.oracle.missedFires).toBe(0);
  expect(r.oracle.violations).toEqual([]);
  // Every decidable tick a finished poll began after was handled (a machine too loaded to poll again before the
  // end may leave the last ones to no poll), and each fire has its run.
  expect(r.oracle.unhandledSeen).toBe(0);
  expect(r.oracle.fired + r.oracle.skipped + r.oracle.unhandled).toBe(r.oracle.ticks);
  expect(r.oracle.runs).toBeGreaterThanOrEqual(r.oracle.fired);
  // The gaps left ticks no process could fire, and the policy had something to decide.
  expect(r.oracle.uncovered).toBeGreaterThan(0);
  expect(r.oracle.skipped).toBeGreaterThan(0);
}

describe('schedules at scale: 4 processes, SIGKILLs, a 60x clock (SQLite file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-schedule-scale-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it(
    'every tick due while a process lived starts exactly one run; none fires twice; skip / catch_up_one hold',
    async () => expectExactlyOnce(await scenario({ kind: 'sqlite', path: join(dir, 'agent.sqlite') })),
    TIMEOUT_MS,
  );
});

describePostgres('schedules at scale: 4 processes, SIGKILLs, a 60x clock (PostgreSQL)', () => {
  const schema = freshSchemaName('ma_schedule_scale');
  afterAll(async () => {
    await dropSchema(schema);
    await closeAdmin();
  });
  it(
    'every tick due while a process lived starts exactly one run; none fires twice; skip / catch_up_one hold',
    async () => expectExactlyOnce(await scenario({ kind: 'postgres', url: PG_URL, schema })),
    TIMEOUT_MS,
  );
});
