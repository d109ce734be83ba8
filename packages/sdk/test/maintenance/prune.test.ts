// host.maintenance on real stores (a SQLite file, the PostgreSQL server): what retention removes and what it never
// touches, dry runs, whole batches, MAINTENANCE_BUSY in one process and across processes (the lease), the file
// shrinking after a prune.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { seedPruneStore, writePruneFixture } from '../../../../bench/_prune-fixture';
import { ConsoleLogger, createAgentHost, type AgentHost, type AgentOptions } from '../../src/index';
import type { PruneProgress } from '../../src/operations';
import { ManualClock } from '../../src/ports/clock';
import type { StorageAdapter } from '../../src/ports/storage-adapter';
import { createSqliteStorage } from '../../src/sqlite';
import { closedAfterEach } from '../runtime/harness';
import { expectCode } from '../storage/expect-code';
import { runRecord } from '../storage/run-record';
import { closeAdmin, describePostgres, dropSchema, freshSchemaName, pgStorage } from '../storage/postgres-available';

const NOW = Date.UTC(2026, 5, 1, 12);
const opened = closedAfterEach<{ close(): unknown }>();
const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas.splice(0)) await dropSchema(s).catch(() => undefined);
  await closeAdmin();
});

function tempFile(name = 'store.db'): string {
  const dir = mkdtempSync(join(tmpdir(), 'ma-prune-'));
  opened.dirs.push(dir);
  return join(dir, name);
}

async function startHost(storage: StorageAdapter, options: AgentOptions = {}): Promise<AgentHost> {
  const host = createAgentHost({
    storage,
    clock: new ManualClock(NOW),
    logger: new ConsoleLogger('silent'),
    maintenance: { schedule: false },
    ...options,
  });
  opened.hosts.push(host);
  await host.start({ workers: false });
  return host;
}

const SMALL = { oldRuns: 12, recentRuns: 3, liveRuns: 2, eventsPerRun: 5, messagesPerRun: 2, now: NOW };

type Make = () => Promise<StorageAdapter>;
const stores: Array<[string, Make, typeof describe]> = [
  [
    'SQLite file',
    async () => {
      const s = createSqliteStorage({ path: tempFile() });
      await s.migrate();
      return s;
    },
    describe,
  ],
  [
    'PostgreSQL',
    async () => {
      const schema = freshSchemaName('ma_prune');
      schemas.push(schema);
      const s = pgStorage(schema, { poolSize: 4 });
      await s.migrate();
      return s;
    },
    describePostgres as typeof describe,
  ],
];

for (const [name, make, suite] of stores) {
  suite(`host.maintenance on ${name}`, () => {
    // n8n-io/n8n#7333: pruning with a tiny count removed executions that had not finished yet. Here a count limit
    // of 1 removes only terminal runs' events and messages; running ones keep everything, and a pruned run still
    // answers with its goal, status and report.
    it('n8n-io/n8n#7333: a tiny maxCount never touches live runs; pruned runs keep goal, status and report', async () => {
      const storage = await make();
      const seeded = await seedPruneStore(storage, SMALL);
      const host = await startHost(storage, { retention: { runs: { maxCount: 1 } } });
      const summary = await host.maintenance.prune({ kinds: ['runs'], batchSize: 4 });
      expect(summary.dryRun).toBe(false);
      // 12 old + 3 recent terminal runs, newest kept: 14 runs lose 5 events and 2 messages each.
      expect(summary.kinds.runs?.rows).toBeGreaterThanOrEqual(14 * 7);
      expect(summary.kinds.runs?.batches).toBeGreaterThanOrEqual(4);
      for (const id of seeded.liveRunIds) {
        const detail = await host.getRun(id);
        expect(detail.run.status).toBe('running');
        expect(await storage.events.listByRun(id, { limit: 200 })).toHaveLength(SMALL.eventsPerRun);
        expect(await storage.messages.list(id)).toHaveLength(SMALL.messagesPerRun);
      }
      for (const id of seeded.oldRunIds) {
        const run = await storage.runs.get(id);
        expect(run).toMatchObject({ id, status: 'succeeded', report: { summary: expect.any(String) } });
        expect(run?.goal).toMatch(/^add film/);
        expect(await storage.events.listByRun(id, { limit: 200 })).toHaveLength(0);
        expect(await storage.messages.list(id)).toHaveLength(0);
      }
      const newest = seeded.recentRunIds.at(-1)!;
      expect(await storage.events.listByRun(newest, { limit: 200 })).toHaveLength(SMALL.eventsPerRun);
    });

    it('a dry run removes nothing and counts what the real prune then removes; defaults keep recent records', async () => {
      const storage = await make();
      const seeded = await seedPruneStore(storage, SMALL);
      const host = await startHost(storage);
      const before = await host.maintenance.usage();
      const plan = await host.maintenance.prune({ dryRun: true });
      expect(plan.dryRun).toBe(true);
      expect(await host.maintenance.usage()).toMatchObject({ kinds: before.kinds });
      // Default retention: runs 90 days, audit 730 (kept: 200 days old), approvals/plans 180, ledger kept.
      expect(plan.kinds.runs?.rows).toBe(SMALL.oldRuns * (SMALL.eventsPerRun + SMALL.messagesPerRun));
      expect(plan.kinds.audit?.rows).toBe(0);
      expect(plan.kinds.ledger).toBeUndefined();
      expect(plan.kinds.runReports).toBeUndefined();
      const done = await host.maintenance.prune();
      expect(done.kinds.runs?.rows).toBe(plan.kinds.runs?.rows);
      expect(done.kinds.approvals?.rows).toBe(plan.kinds.approvals?.rows);
      expect(done.usageAfter?.kinds.runs.rows).toBeLessThan(done.usageBefore!.kinds.runs.rows);
      for (const id of seeded.recentRunIds)
        expect(await storage.events.listByRun(id, { limit: 200 })).toHaveLength(SMALL.eventsPerRun);
      expect((await host.maintenance.prune({ dryRun: true })).kinds.runs?.rows).toBe(0);
    });

    it('two prunes at once in one process: the second is refused MAINTENANCE_BUSY, the first completes', async () => {
      const storage = await make();
      await seedPruneStore(storage, SMALL);
      const host = await startHost(storage);
      const first = host.maintenance.prune({ batchSize: 1 });
      await expectCode(host.maintenance.prune(), 'MAINTENANCE_BUSY');
      const summary = await first;
      expect(summary.kinds.runs?.batches).toBeGreaterThanOrEqual(SMALL.oldRuns);
      // Once it ended, the next prune runs (nothing left to remove).
      expect((await host.maintenance.prune()).kinds.runs?.rows).toBe(0);
    });

    it('another process holding the maintenance lease: MAINTENANCE_BUSY; after it is released, the prune runs', async () => {
      const storage = await make();
      await seedPruneStore(storage, SMALL);
      const host = await startHost(storage);
      const other = storage.maintenance;
      expect(await other.acquireLease('maintenance', 'host:other-process', NOW, 60_000)).toBe(true);
      await expectCode(host.maintenance.prune(), 'MAINTENANCE_BUSY');
      expect((await host.maintenance.usage()).kinds.runs.rows).toBeGreaterThan(0);
      expect(await other.releaseLease('maintenance', 'host:other-process')).toBe(true);
      expect((await host.maintenance.prune()).kinds.runs?.rows).toBeGreaterThan(0);
    });

    it('batches that remove 0 rows (finished runs without events) do not end the prune: it goes on until done', async () => {
      const storage = await make();
      const seeded = await seedPruneStore(storage, SMALL);
      const DAY = 86_400_000;
      for (let i = 0; i < 3; i++)
        await storage.runs.insert(
          runRecord(`empty-${i}`, { status: 'succeeded', endedAt: NOW - 300 * DAY + i, updatedAt: NOW - 300 * DAY }),
        );
      const host = await startHost(storage);
      const dry = await host.maintenance.prune({ dryRun: true, kinds: ['runs'] });
      const summary = await host.maintenance.prune({ kinds: ['runs'], batchSize: 1 });
      expect(summary.kinds.runs?.rows).toBe(dry.kinds.runs?.rows);
      expect(summary.kinds.runs?.stalled).toBeUndefined();
      expect(summary.kinds.runs?.batches).toBe(3 + SMALL.oldRuns);
      for (const id of seeded.oldRunIds) expect(await storage.events.listByRun(id, { limit: 200 })).toEqual([]);
    });

    it('a store that never says done and removes nothing: the kind stops after two such batches, stalled', async () => {
      const storage = await make();
      const real = storage.maintenance;
      const stuck = new Proxy(storage, {
        get(target, key, receiver) {
          if (key === 'maintenance')
            return new Proxy(real, {
              get(m, k, r) {
                if (k === 'prune') return async () => ({ rows: 0, bytes: 0, done: false, items: 0 });
                const v = Reflect.get(m, k, r) as unknown;
                return typeof v === 'function' ? v.bind(m) : v;
              },
            });
          const v = Reflect.get(target, key, receiver) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
      const host = await startHost(stuck);
      const summary = await host.maintenance.prune({ kinds: ['runs', 'audit'] });
      expect(summary.kinds.runs).toMatchObject({ rows: 0, batches: 2, stalled: true });
      expect(summary.kinds.audit).toMatchObject({ batches: 2, stalled: true });
    });

    it('two hosts on one store in one process: the second prune is refused naming "another host or process"', async () => {
      const storage = await make();
      await seedPruneStore(storage, SMALL);
      const a = await startHost(storage);
      const b = await startHost(storage);
      let refused: unknown;
      await a.maintenance.prune({
        batchSize: 1,
        onProgress: () => {
          refused ??= b.maintenance.prune().catch((e: unknown) => e);
        },
      });
      const error = (await refused) as Error & { code: string };
      expect(error.code).toBe('MAINTENANCE_BUSY');
      expect(error.message).toMatch(/another host or process/);
    });

    it('prune options are type-checked: dryRun "true" is refused (nothing removed), messages show the real type', async () => {
      const storage = await make();
      await seedPruneStore(storage, SMALL);
      const host = await startHost(storage);
      const before = (await host.maintenance.usage()).kinds.runs.rows;
      const cases: Array<[unknown, string, RegExp]> = [
        [{ dryRun: 'true' }, 'prune.dryRun', /got "true" \(a string\)/],
        [{ dryRun: 1 }, 'prune.dryRun', /got 1$/],
        [{ batchSize: '5' }, 'prune.batchSize', /got "5" \(a string\)/],
        [{ batchSize: null }, 'prune.batchSize', /got null$/],
        [{ kinds: 'runs' }, 'prune.kinds', /got "runs" \(a string\)/],
        [{ kinds: ['events'] }, 'prune.kinds', /got "events" \(a string\)/],
        [{ signal: {} }, 'prune.signal', /got an object$/],
        [{ onProgress: 'log' }, 'prune.onProgress', /a function/],
        [{ dryrun: true }, 'prune.dryrun', /unknown/],
        [null, 'prune', /got null$/],
      ];
      for (const [options, option, message] of cases) {
        const error = await host.maintenance.prune(options as never).catch((e: unknown) => e);
        expect(error, JSON.stringify(options)).toMatchObject({ code: 'OPTIONS_INVALID', details: { option } });
        expect((error as Error).message).toMatch(message);
      }
      expect((await host.maintenance.usage()).kinds.runs.rows).toBe(before);
    });

    it('an abort between batches ends the prune with whole batches removed and says aborted', async () => {
      const storage = await make();
      const seeded = await seedPruneStore(storage, SMALL);
      const host = await startHost(storage);
      const abort = new AbortController();
      const progress: PruneProgress[] = [];
      const summary = await host.maintenance.prune({
        batchSize: 2,
        signal: abort.signal,
        onProgress: (p) => {
          progress.push(p);
          if (progress.length === 2) abort.abort();
        },
      });
      expect(summary.aborted).toBe(true);
      expect(summary.kinds.runs?.batches).toBe(2);
      const emptied = [];
      for (const id of seeded.oldRunIds)
        emptied.push((await storage.events.listByRun(id, { limit: 200 })).length === 0);
      // Whole runs only: four runs emptied (two batches of two), the others untouched.
      expect(emptied.filter(Boolean)).toHaveLength(4);
      for (const id of seeded.oldRunIds) {
        const n = (await storage.events.listByRun(id, { limit: 200 })).length;
        expect([0, SMALL.eventsPerRun]).toContain(n);
      }
    });
  });
}

describe('host.maintenance on a SQLite file: failures and the file size', () => {
  it('a store locked by another connection mid-prune surfaces its typed error; earlier batches stay whole', async () => {
    const file = tempFile();
    const storage = createSqliteStorage({ path: file, busyTimeoutMs: 50 });
    await storage.migrate();
    const seeded = await seedPruneStore(storage, SMALL);
    const host = await startHost(storage);
    const blocker = new Database(file);
    opened.servers.push({ close: () => blocker.close() });
    const error = await host.maintenance
      .prune({
        kinds: ['runs'],
        batchSize: 3,
        onProgress: () => {
          if (!blocker.inTransaction) blocker.exec('BEGIN EXCLUSIVE');
        },
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: expect.stringMatching(/^STORAGE_/) });
    blocker.exec('ROLLBACK');
    const counts = [];
    for (const id of seeded.oldRunIds) counts.push((await storage.events.listByRun(id, { limit: 200 })).length);
    expect(counts.filter((n) => n === 0)).toHaveLength(3);
    expect(counts.filter((n) => n === SMALL.eventsPerRun)).toHaveLength(SMALL.oldRuns - 3);
    // The lease was given back: the next prune runs and finishes the work.
    expect((await host.maintenance.prune({ kinds: ['runs'] })).kinds.runs?.rows).toBe(
      (SMALL.oldRuns - 3) * (SMALL.eventsPerRun + SMALL.messagesPerRun),
    );
  });

  // n8n-io/n8n#37926 (and n8n-io/n8n#819): the SQLite file never shrank after execution pruning; the disk stayed
  // full until a manual VACUUM with the service stopped. Here prune compacts the file itself, while the host runs.
  it('n8n-io/n8n#37926: a store of 20 000 events shrinks by at least 80 % (database + WAL) after prune', async () => {
    const file = tempFile();
    const fixture = await writePruneFixture({
      file,
      oldRuns: 190,
      recentRuns: 8,
      liveRuns: 2,
      eventsPerRun: 100,
      messagesPerRun: 10,
      now: NOW,
    });
    expect(fixture.events).toBe(20_000);
    const size = () => statSync(file).size + (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0);
    const before = size();
    const storage = createSqliteStorage({ path: file });
    const host = await startHost(storage, { retention: { audit: 90, ledger: 90 } });
    const summary = await host.maintenance.prune();
    const after = size();
    expect(after, `before ${before} B, after ${after} B`).toBeLessThanOrEqual(before * 0.2);
    expect(summary.compacted?.freedBytes).toBeGreaterThan(0);
    expect(summary.usageAfter?.files?.databaseBytes).toBeLessThan(summary.usageBefore!.files!.databaseBytes);
    const old = await host.getRun(fixture.oldRunIds[0]!);
    expect(old.run).toMatchObject({
      status: 'succeeded',
      goal: expect.stringMatching(/^add film/),
      report: expect.anything(),
    });
    expect(old.events).toHaveLength(0);
    for (const id of [...fixture.recentRunIds, ...fixture.liveRunIds])
      expect((await host.getRun(id, { limit: 200 })).events).toHaveLength(100);
    // The audit rows retention removed (a prefix) leave a chain that still verifies from its checkpoint.
    expect(summary.kinds.audit?.rows).toBeGreaterThan(0);
    expect(await host.audit.verify()).toMatchObject({ ok: true });
  }, 120_000);
});
