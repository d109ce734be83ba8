// Prune while runs are driven: two hosts (several workers each) on one SQLite file and on one PostgreSQL schema run
// 24 runs while both prune in a loop with a count limit of 2. Nothing fails, every run ends succeeded, and a run's
// events are either all there (from seq 1 to its end) or all gone with its row, goal and answer kept — never a
// part of a live run's.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, isMediaAgentError, type AgentHost } from '../../src/index';
import type { StorageAdapter } from '../../src/ports/storage-adapter';
import { createSqliteStorage } from '../../src/sqlite';
import { ScriptedProvider, waitForRunStatus } from '../../src/testing';
import { closedAfterEach } from '../runtime/harness';
import { closeAdmin, describePostgres, dropSchema, freshSchemaName, pgStorage } from '../storage/postgres-available';

const RUNS = 24;
const opened = closedAfterEach<{ close(): unknown }>();
const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas.splice(0)) await dropSchema(s).catch(() => undefined);
  await closeAdmin();
});

function host(storage: StorageAdapter): AgentHost {
  const h = createAgentHost({
    storage,
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: [{ match: /./, finalText: 'Done.' }] }), model: 'scripted' },
    runs: { concurrency: 3, pollMs: 5, leaseMs: 60_000 },
    retention: { runs: { maxCount: 2 } },
    maintenance: { schedule: false },
    limits: { runStartsPerMinutePerActor: 1000, runStartsPerMinuteTotal: 1000 },
  });
  opened.hosts.push(h);
  return h;
}

async function driveWhilePruning(storages: [StorageAdapter, StorageAdapter]) {
  const hosts = storages.map(host) as [AgentHost, AgentHost];
  for (const h of hosts) await h.start();
  const ids: string[] = [];
  for (let i = 0; i < RUNS; i++)
    ids.push((await hosts[i % 2]!.startRun({ goal: `run ${i}`, mode: 'plan_only', actor: 'user:admin' })).id);
  let finished = false;
  let prunes = 0;
  let busy = 0;
  const failures: unknown[] = [];
  const loop = async (h: AgentHost) => {
    while (!finished) {
      try {
        await h.maintenance.prune({ kinds: ['runs'], batchSize: 1 });
        prunes++;
      } catch (error) {
        if (isMediaAgentError(error, 'MAINTENANCE_BUSY')) busy++;
        else failures.push(error);
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };
  const loops = [loop(hosts[0]), loop(hosts[1])];
  const ended = [];
  for (const id of ids)
    ended.push(await waitForRunStatus(hosts[0], id, ['succeeded', 'failed', 'cancelled'], { timeoutMs: 60_000 }));
  finished = true;
  await Promise.all(loops);
  // One more prune now that every run ended: the newest two keep their events.
  await hosts[0].maintenance.prune({ kinds: ['runs'] });
  expect(failures).toEqual([]);
  expect(prunes).toBeGreaterThan(0);
  expect(ended.map((r) => r.status)).toEqual(ids.map(() => 'succeeded'));
  let whole = 0;
  for (const id of ids) {
    const { run, events } = await hosts[0].getRun(id, { limit: 1000 });
    expect(run.goal).toMatch(/^run \d+$/);
    expect(run.finalText).toBe('Done.');
    if (events.length === 0) continue;
    whole++;
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)).toMatchObject({ type: 'run_status', data: { status: 'succeeded' } });
  }
  expect(whole).toBe(2);
  return { prunes, busy };
}

describe('prune while runs are driven', () => {
  it('two hosts on one SQLite file: nothing live is touched, nothing fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ma-prune-live-'));
    opened.dirs.push(dir);
    const file = join(dir, 'store.db');
    await driveWhilePruning([createSqliteStorage({ path: file }), createSqliteStorage({ path: file })]);
  }, 120_000);
});

describePostgres('prune while runs are driven on PostgreSQL', () => {
  it('two hosts on one schema: nothing live is touched, nothing fails', async () => {
    const schema = freshSchemaName('ma_prune_live');
    schemas.push(schema);
    await driveWhilePruning([pgStorage(schema, { poolSize: 4 }), pgStorage(schema, { poolSize: 4 })]);
  }, 120_000);
});
