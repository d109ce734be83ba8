// Exactly one run per tick across processes: 8 real child processes on one store (a SQLite file, then a PostgreSQL
// schema) race to fire the same 200 ticks (4 schedules × 50), each firing one transaction that claims the tick,
// stores its run (origin `schedule`) and advances the schedule by compare-and-set. One process, started first, is
// SIGKILLed inside such a transaction (its tick claimed, its run not yet stored) while the others race. Afterwards every tick is claimed exactly once,
// by a process whose run for it is stored, every run belongs to a tick, and every schedule's revision moved once
// per tick.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { StorageAdapter } from '../../src/ports/storage-adapter';
import { createSqliteStorage } from '../../src/sqlite';
import { scheduleRecord } from '../../src/testing/storage-conformance/fixtures';
import { type Child, spawnFixture } from './child';
import { closeAdmin, describePostgres, dropSchema, freshSchemaName, PG_URL, pgStorage } from './postgres-available';
import { claimKeys, FIRST_TICK, scheduleIds, TICK_MS } from './schedule-claim-keys';

const PROCESSES = 8;
const SCHEDULES = 4;
const TICKS_PER_SCHEDULE = 50;
/** The process killed mid-transaction, and after how many ticks it fired it stops there (early in the race). */
const VICTIM = 3;
const HOLD_AFTER = 5;
const TIMEOUT = 180_000;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(closeAdmin);

/** Creates the schedules the race fires, on a migrated store. */
async function seed(storage: StorageAdapter): Promise<void> {
  await storage.migrate();
  for (const id of scheduleIds(SCHEDULES))
    expect(
      await storage.schedules.insert(
        scheduleRecord({ id, cron: null, everyMs: TICK_MS, anchorAt: FIRST_TICK - TICK_MS, nextTickAt: FIRST_TICK }),
      ),
    ).toBe(true);
  await storage.close();
}

/** Starts the processes (`args` after the kind), runs the race, kills the victim once it holds its claim. */
async function race(args: string[]): Promise<{ fired: Map<string, string[]>; held: string }> {
  const children: Child[] = [];
  cleanups.push(() => {
    for (const child of children) if (child.process.exitCode === null) child.process.kill('SIGKILL');
  });
  for (let i = 0; i < PROCESSES; i++)
    children.push(
      spawnFixture('schedule-claim-worker.ts', [
        ...args,
        `P${i}`,
        String(SCHEDULES),
        String(TICKS_PER_SCHEDULE),
        String(i === VICTIM ? HOLD_AFTER : 0),
      ]),
    );
  for (const child of children) expect(await child.nextLine()).toBe('ready');
  const go = (child: Child) => {
    child.send('go');
    child.end();
  };
  // The victim starts first, so it has fired some ticks when it stops inside the transaction of its next claim
  // (racing from the start, it may win none: on SQLite a process that has the write lock keeps it a while). Then the
  // others start, and race each other and the held claim (SQLite: they wait for the write lock; PostgreSQL: a claim
  // of the held tick waits for the victim's transaction) until the victim is killed.
  const victim = children[VICTIM]!;
  go(victim);
  const holding = await victim.nextLine();
  expect(holding).toMatch(/^holding sch-race-\d+ \d+$/);
  for (const child of children) if (child !== victim) go(child);
  await new Promise((resolve) => setTimeout(resolve, 300));
  victim.process.kill('SIGKILL');
  expect(await victim.exited).toBe(null); // killed by the signal, not exited
  const fired = new Map<string, string[]>();
  for (const [i, child] of children.entries()) {
    if (i === VICTIM) continue;
    fired.set(`P${i}`, JSON.parse(await child.nextLine()) as string[]);
    expect(await child.exited).toBe(0);
  }
  const [, scheduleId, tickAt] = holding.split(' ');
  return { fired, held: `${scheduleId}@${tickAt}` };
}

/** The assertions of the race, on a store opened after every process ended. */
async function expectExactlyOnce(
  storage: StorageAdapter,
  { fired, held }: { fired: Map<string, string[]>; held: string },
): Promise<void> {
  const expected = claimKeys(SCHEDULES, TICKS_PER_SCHEDULE).map((k) => `${k.scheduleId}@${k.tickAt}`);
  const ticks = (
    await Promise.all(scheduleIds(SCHEDULES).map((id) => storage.schedules.ticks(id, { limit: 1_000 })))
  ).flat();
  // Every key claimed, none twice (the primary key would refuse a second row: the count would still match, so
  // compare the keys themselves).
  expect(ticks.map((k) => `${k.scheduleId}@${k.tickAt}`).sort()).toEqual([...expected].sort());
  // Each claimed tick started exactly one run, stored by the process that claimed it; no run without a tick.
  const runs = await storage.runs.list({ limit: 10_000 });
  expect(runs.every((r) => r.origin === 'schedule')).toBe(true);
  expect(runs.map((r) => r.id).sort()).toEqual(ticks.map((k) => k.runId).sort());
  for (const k of ticks) {
    expect(k.outcome).toBe('fired');
    expect(k.runId).toBe(`run-${k.handledBy}-${k.scheduleId}-${k.tickAt}`);
  }
  // Each schedule moved once per tick: every compare-and-set of a fired tick committed with its claim.
  for (const id of scheduleIds(SCHEDULES))
    expect((await storage.schedules.get(id))?.revision).toBe(1 + TICKS_PER_SCHEDULE);
  // What each surviving process says it fired is exactly what the store holds as its claims.
  const byWorker = new Map<string, string[]>();
  for (const k of ticks)
    byWorker.set(k.handledBy, [...(byWorker.get(k.handledBy) ?? []), `${k.scheduleId}@${k.tickAt}`]);
  for (const [worker, keys] of fired) expect([...keys].sort(), worker).toEqual((byWorker.get(worker) ?? []).sort());
  // The tick the killed process had claimed in its open transaction was fired by another process.
  const heldTick = ticks.find((k) => `${k.scheduleId}@${k.tickAt}` === held);
  expect(heldTick?.handledBy).toBeDefined();
  expect(heldTick?.handledBy).not.toBe(`P${VICTIM}`);
  // A real race: several processes won ticks.
  expect(byWorker.size).toBeGreaterThan(1);
}

describe('schedule tick claims across processes', () => {
  it(
    `SQLite file: ${PROCESSES} processes fire ${SCHEDULES * TICKS_PER_SCHEDULE} ticks, one SIGKILLed mid-transaction: every tick claimed once, one run per tick`,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'media-agent-schedule-claims-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const path = join(dir, 'shared.sqlite');
      await seed(createSqliteStorage({ path }));
      const result = await race(['sqlite', path, '-']);
      const storage = createSqliteStorage({ path });
      cleanups.push(() => storage.close());
      await storage.migrate();
      await expectExactlyOnce(storage, result);
    },
    TIMEOUT,
  );
});

describePostgres('schedule tick claims across processes (PostgreSQL)', () => {
  it(
    `PostgreSQL: ${PROCESSES} processes fire ${SCHEDULES * TICKS_PER_SCHEDULE} ticks, one SIGKILLed mid-transaction: every tick claimed once, one run per tick`,
    async () => {
      const schema = freshSchemaName('ma_schedule_claims');
      cleanups.push(() => dropSchema(schema));
      await seed(pgStorage(schema));
      const result = await race(['postgres', PG_URL, schema]);
      const storage = pgStorage(schema);
      cleanups.push(() => storage.close());
      await expectExactlyOnce(storage, result);
    },
    TIMEOUT,
  );
});
