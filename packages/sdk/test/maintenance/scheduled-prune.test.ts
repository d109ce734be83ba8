// Scheduled maintenance with a manual clock: two hosts on one store (a SQLite file; the PostgreSQL server) — exactly
// one prunes per day; a failing prune is logged with its code and the host goes on; stop() ends the schedule.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { seedPruneStore } from '../../../../bench/_prune-fixture';
import { createAgentHost, type AgentHost, type Logger } from '../../src/index';
import { ManualClock } from '../../src/ports/clock';
import type { StorageAdapter } from '../../src/ports/storage-adapter';
import { createSqliteStorage } from '../../src/sqlite';
import { closedAfterEach } from '../runtime/harness';
import { closeAdmin, describePostgres, dropSchema, freshSchemaName, pgStorage } from '../storage/postgres-available';

const DAY = 86_400_000;
/** 2026-06-01 03:00 UTC: an hour before the 04:00 (UTC) schedule. */
const START = Date.UTC(2026, 5, 1, 3);
const opened = closedAfterEach<{ close(): unknown }>();
const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas.splice(0)) await dropSchema(s).catch(() => undefined);
  await closeAdmin();
});

/** A logger that keeps what was logged. */
function recordingLogger(): Logger & {
  lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }>;
} {
  const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    lines.push({ level, message, ...(fields ? { fields } : {}) });
  };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const pruned = (l: ReturnType<typeof recordingLogger>) =>
  l.lines.filter((x) => x.message === 'scheduled maintenance done');
const skipped = (l: ReturnType<typeof recordingLogger>) =>
  l.lines.filter((x) => x.message.startsWith('scheduled maintenance: another process'));

async function twoHosts(storages: [StorageAdapter, StorageAdapter]) {
  const clock = new ManualClock(START);
  const loggers = [recordingLogger(), recordingLogger()] as const;
  const hosts = storages.map((storage, i) =>
    createAgentHost({
      storage,
      clock,
      logger: loggers[i]!,
      maintenance: { schedule: { hour: 4, timezone: 'UTC' }, pollMs: 5 },
    }),
  ) as [AgentHost, AgentHost];
  opened.hosts.push(...hosts);
  for (const h of hosts) await h.start();
  return { clock, loggers, hosts };
}

async function oneDayEach({ clock, loggers }: Awaited<ReturnType<typeof twoHosts>>, days: number) {
  for (let day = 1; day <= days; day++) {
    clock.set(START + (day - 1) * DAY + 3_600_000 + 1000); // 04:00:01 UTC of that day
    // Both hosts looked at the fire time: one pruned, the other saw the day's lease taken.
    await vi.waitFor(
      () => expect(loggers.reduce((n, l) => n + pruned(l).length + skipped(l).length, 0)).toBe(2 * day),
      { timeout: 30_000, interval: 5 },
    );
  }
  return loggers.map((l) => pruned(l).length);
}

describe('scheduled maintenance', () => {
  it('two hosts on one SQLite file with a manual clock: exactly one prunes per day', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ma-sched-'));
    opened.dirs.push(dir);
    const file = join(dir, 'store.db');
    const seed = createSqliteStorage({ path: file });
    await seed.migrate();
    await seedPruneStore(seed, {
      oldRuns: 6,
      recentRuns: 1,
      liveRuns: 1,
      eventsPerRun: 3,
      messagesPerRun: 1,
      now: START,
    });
    await seed.close();
    const setup = await twoHosts([createSqliteStorage({ path: file }), createSqliteStorage({ path: file })]);
    // Before the hour: nothing.
    setup.clock.set(START + 30 * 60_000);
    const counts = await oneDayEach(setup, 3);
    expect(counts[0]! + counts[1]!).toBe(3);
    const first = [...setup.loggers[0].lines, ...setup.loggers[1].lines].find(
      (x) => x.message === 'scheduled maintenance done',
    );
    expect(first?.fields?.rows).toBeGreaterThan(0);
  }, 90_000);

  it('a failing scheduled prune is logged with its typed code; the host goes on and stop() ends the schedule', async () => {
    const logger = recordingLogger();
    const clock = new ManualClock(START);
    const storage = createSqliteStorage({ path: ':memory:' });
    const host = createAgentHost({
      storage,
      clock,
      logger,
      maintenance: { schedule: { hour: 4, timezone: 'UTC' }, pollMs: 5 },
    });
    opened.hosts.push(host);
    await host.start();
    // Another process holds the prune lease: the scheduled prune is refused MAINTENANCE_BUSY.
    await storage.maintenance.acquireLease('maintenance', 'host:elsewhere', START, 10 * DAY);
    clock.set(START + 3_600_000 + 1000);
    await vi.waitFor(
      () => expect(logger.lines.some((l) => l.message.startsWith('scheduled maintenance failed'))).toBe(true),
      { timeout: 30_000, interval: 5 },
    );
    const failed = logger.lines.find((l) => l.message.startsWith('scheduled maintenance failed'));
    expect(failed).toMatchObject({ level: 'error', fields: { code: 'MAINTENANCE_BUSY' } });
    expect((await host.listRuns()).length).toBe(0); // the host still answers
    await host.stop();
    clock.set(START + DAY + 3_600_000 + 1000);
    const lines = logger.lines.length;
    // No scheduled work after stop(): a later poll would have logged within a few pollMs.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(logger.lines.length).toBe(lines);
  }, 60_000);
});

describePostgres('scheduled maintenance on PostgreSQL', () => {
  it('two hosts on one PostgreSQL schema with a manual clock: exactly one prunes per day', async () => {
    const schema = freshSchemaName('ma_sched');
    schemas.push(schema);
    const seed = pgStorage(schema);
    await seed.migrate();
    await seedPruneStore(seed, {
      oldRuns: 4,
      recentRuns: 1,
      liveRuns: 1,
      eventsPerRun: 3,
      messagesPerRun: 1,
      now: START,
    });
    await seed.close();
    const setup = await twoHosts([pgStorage(schema), pgStorage(schema)]);
    const counts = await oneDayEach(setup, 2);
    expect(counts[0]! + counts[1]!).toBe(2);
  }, 90_000);
});
