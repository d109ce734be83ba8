// host.maintenance and schedule tick records on the memory store, a SQLite file and the PostgreSQL server: the
// default retention (90 days by handledAt) removes old tick records in batches, every schedule keeps its newest one
// (what host.schedules.ticks and the runner read), maxCount counts per schedule, usage() reports the table.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost, type AgentOptions } from '../../src/index';
import type { ScheduleTickRecord } from '../../src/core/schedule-records';
import { ManualClock } from '../../src/ports/clock';
import type { StorageAdapter } from '../../src/ports/storage-adapter';
import { createSqliteStorage } from '../../src/sqlite';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { closedAfterEach } from '../runtime/harness';
import { closeAdmin, describePostgres, dropSchema, freshSchemaName, pgStorage } from '../storage/postgres-available';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 5, 1, 12);
const opened = closedAfterEach<{ close(): unknown }>();
const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas.splice(0)) await dropSchema(s).catch(() => undefined);
  await closeAdmin();
});

async function startHost(storage: StorageAdapter, options: AgentOptions = {}): Promise<AgentHost> {
  const host = createAgentHost({
    storage,
    clock: new ManualClock(NOW),
    logger: new ConsoleLogger('silent'),
    maintenance: { schedule: false },
    schedules: { enabled: false },
    ...options,
  });
  opened.hosts.push(host);
  await host.start({ workers: false });
  return host;
}

/**
 * Tick records of schedule `id` for its daily ticks from `days` days ago up to yesterday, as the runner stores them:
 * handled a few seconds after the tick, every tenth a skipped batch of missed ticks handled an hour late.
 */
async function storeDailyTicks(storage: StorageAdapter, id: string, days: number, lastDaysAgo = 1): Promise<number> {
  let stored = 0;
  for (let ago = days; ago >= lastDaysAgo; ago--) {
    const tickAt = NOW - ago * DAY;
    const skipped = ago % 10 === 0;
    const tick: ScheduleTickRecord = {
      scheduleId: id,
      tickAt,
      outcome: skipped ? 'skipped' : 'fired',
      runId: skipped ? null : `run-${id}-${ago}`,
      reason: skipped ? 'missed' : null,
      firstTickAt: skipped ? tickAt - 2 * DAY : tickAt,
      ticks: skipped ? 3 : 1,
      handledAt: tickAt + (skipped ? HOUR : 3_000),
      handledBy: 'host:a',
    };
    expect(await storage.schedules.claimTick(tick)).toBe(true);
    stored++;
  }
  return stored;
}

const ticksOf = async (host: AgentHost, id: string) =>
  (await host.schedules.ticks(id, { actor: 'user:alice', limit: 1_000 })).map((k) => k.tickAt);

type Make = () => Promise<StorageAdapter>;
const stores: Array<[string, Make, typeof describe]> = [
  ['memory', async () => new MemoryStorage(), describe],
  [
    'SQLite file',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ma-prune-ticks-'));
      opened.dirs.push(dir);
      const s = createSqliteStorage({ path: join(dir, 'store.db') });
      await s.migrate();
      return s;
    },
    describe,
  ],
  [
    'PostgreSQL',
    async () => {
      const schema = freshSchemaName('ma_ticks');
      schemas.push(schema);
      const s = pgStorage(schema, { poolSize: 4 });
      await s.migrate();
      return s;
    },
    describePostgres as typeof describe,
  ],
];

for (const [name, make, suite] of stores) {
  suite(`schedule tick retention on ${name}`, () => {
    it('the default 90 days removes older tick records in batches; a schedule whose records are all old keeps its newest', async () => {
      const storage = await make();
      const host = await startHost(storage);
      const daily = await host.schedules.create({ actor: 'user:alice', everyMs: DAY, goal: 'check the library' });
      const stale = await host.schedules.create({
        actor: 'user:alice',
        everyMs: DAY,
        goal: 'an old check',
        paused: true,
      });
      const stored = await storeDailyTicks(storage, daily.id, 200);
      await storeDailyTicks(storage, stale.id, 150, 120);
      const usage = await host.maintenance.usage();
      expect(usage.kinds.scheduleTicks.rows).toBe(stored + 31);

      const plan = await host.maintenance.prune({ dryRun: true, kinds: ['scheduleTicks'] });
      // daily: ticks 200 … 91 days ago (110) were handled more than 90 days ago; stale: 150 … 121 (30), 120 kept.
      expect(plan.kinds.scheduleTicks?.rows).toBe(110 + 30);
      const done = await host.maintenance.prune({ kinds: ['scheduleTicks'], batchSize: 16 });
      expect(done.kinds.scheduleTicks).toMatchObject({ rows: 140, bytes: plan.kinds.scheduleTicks!.bytes });
      expect(done.kinds.scheduleTicks!.batches).toBeGreaterThanOrEqual(Math.ceil(140 / 16));
      expect(done.usageAfter?.kinds.scheduleTicks.rows).toBe(stored + 31 - 140);

      const kept = await ticksOf(host, daily.id);
      expect(kept).toHaveLength(90);
      expect(kept[0]).toBe(NOW - DAY);
      expect(Math.min(...kept)).toBe(NOW - 90 * DAY);
      expect(await ticksOf(host, stale.id)).toEqual([NOW - 120 * DAY]);
      expect((await host.maintenance.prune({ dryRun: true, kinds: ['scheduleTicks'] })).kinds.scheduleTicks?.rows).toBe(
        0,
      );
    });

    it('maxCount keeps the newest records of each schedule; records of the current and previous UTC day stay', async () => {
      const storage = await make();
      const host = await startHost(storage, { retention: { scheduleTicks: { maxCount: 1 } } });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++)
        ids.push((await host.schedules.create({ actor: 'user:alice', everyMs: DAY, goal: `check ${i}` })).id);
      for (const [i, id] of ids.entries()) await storeDailyTicks(storage, id, 5 + i, 0);
      const done = await host.maintenance.prune({ kinds: ['scheduleTicks'], batchSize: 2 });
      // Each schedule keeps its ticks of today and yesterday (NOW is noon UTC): 2 of 6, 7 and 8 records.
      expect(done.kinds.scheduleTicks?.rows).toBe(4 + 5 + 6);
      for (const id of ids) expect(await ticksOf(host, id)).toEqual([NOW, NOW - DAY]);
    });
  });
}
