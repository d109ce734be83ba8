// A run retention pruned, as the API shows it and as it answers a new message, on every store (memory, a SQLite
// file, the PostgreSQL server): `prunedAt` on the record (host.getRun, listRuns, the HTTP run routes), absent on
// runs not pruned; a message to a pruned run is refused `RUN_PRUNED` (HTTP 409) and leaves the run as it was,
// instead of waking it with only its goal and the new message (its conversation is gone).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seedPruneStore } from '../../../../bench/_prune-fixture';
import { createAgentRouter } from '../../src/http';
import { ConsoleLogger, createAgentHost, type AgentHost } from '../../src/index';
import { ManualClock } from '../../src/ports/clock';
import type { StorageAdapter } from '../../src/ports/storage-adapter';
import { createSqliteStorage } from '../../src/sqlite';
import { MemoryStorage } from '../../src/storage';
import { closedAfterEach } from '../runtime/harness';
import { expectCode } from '../storage/expect-code';
import { closeAdmin, describePostgres, dropSchema, freshSchemaName, pgStorage } from '../storage/postgres-available';

const NOW = Date.UTC(2026, 5, 1, 12);
const opened = closedAfterEach<{ close(): unknown }>();
const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas.splice(0)) await dropSchema(s).catch(() => undefined);
  await closeAdmin();
});

const SMALL = { oldRuns: 3, recentRuns: 2, liveRuns: 1, eventsPerRun: 3, messagesPerRun: 2, now: NOW };

const stores: Array<[string, () => Promise<StorageAdapter>, typeof describe]> = [
  ['memory', async () => new MemoryStorage(), describe],
  [
    'SQLite file',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ma-pruned-run-'));
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
      const schema = freshSchemaName('ma_pruned_run');
      schemas.push(schema);
      const s = pgStorage(schema, { poolSize: 2 });
      await s.migrate();
      return s;
    },
    describePostgres as typeof describe,
  ],
];

async function prunedHost(make: () => Promise<StorageAdapter>) {
  const storage = await make();
  const seeded = await seedPruneStore(storage, SMALL);
  const host: AgentHost = createAgentHost({
    storage,
    clock: new ManualClock(NOW),
    logger: new ConsoleLogger('silent'),
    maintenance: { schedule: false },
  });
  opened.hosts.push(host);
  await host.start({ workers: false });
  await host.maintenance.prune({ kinds: ['runs'] });
  return { storage, host, seeded };
}

for (const [name, make, suite] of stores) {
  suite(`a pruned run on ${name}`, () => {
    it('shows prunedAt on getRun, listRuns and the storage record; a run not pruned has none', async () => {
      const { storage, host, seeded } = await prunedHost(make);
      const old = seeded.oldRunIds[0]!;
      const detail = await host.getRun(old);
      expect(detail.run.prunedAt).toBe(NOW);
      expect(detail.run).toMatchObject({ status: 'succeeded', goal: expect.stringMatching(/^add film/) });
      expect(detail.events).toHaveLength(0);
      expect((await storage.runs.get(old))?.prunedAt).toBe(NOW);
      const listed = await host.listRuns({ limit: 100 });
      expect(listed.find((r) => r.id === old)?.prunedAt).toBe(NOW);
      for (const id of [...seeded.recentRunIds, ...seeded.liveRunIds]) {
        const run = (await host.getRun(id)).run;
        expect(run).not.toHaveProperty('prunedAt');
        expect(listed.find((r) => r.id === id)).not.toHaveProperty('prunedAt');
      }
      // A patch of the pruned run (as the runtime makes) keeps the mark.
      const patched = await storage.runs.patch(old, { updatedAt: NOW + 1 });
      expect(patched?.prunedAt).toBe(NOW);
    });

    it('refuses a message to a pruned run with RUN_PRUNED; nothing is queued and the run is not woken', async () => {
      const { storage, host, seeded } = await prunedHost(make);
      const old = seeded.oldRunIds[1]!;
      const owner = (await storage.runs.get(old))!.startedBy;
      const error = await expectCode(host.appendToInbox(old, 'also add the sequel', { actor: owner }), 'RUN_PRUNED');
      expect(String((error as Error).message)).toMatch(/removed by retention.*start a new run/);
      expect(await storage.inbox.listQueued(old)).toHaveLength(0);
      const run = await storage.runs.get(old);
      expect(run).toMatchObject({ status: 'succeeded', wakeRequested: false, prunedAt: NOW });
      // A run not pruned is still woken by a message.
      const recent = seeded.recentRunIds[0]!;
      const recentOwner = (await storage.runs.get(recent))!.startedBy;
      await host.appendToInbox(recent, 'one more thing', { actor: recentOwner });
      expect(await storage.runs.get(recent)).toMatchObject({ status: 'waiting', wakeRequested: true });
    });

    it('HTTP: GET /api/runs/:id carries prunedAt; POST /api/runs/:id/messages answers 409 RUN_PRUNED', async () => {
      const { storage, host, seeded } = await prunedHost(make);
      const old = seeded.oldRunIds[2]!;
      const owner = (await storage.runs.get(old))!.startedBy;
      const router = createAgentRouter(host, { authenticate: () => owner });
      const got = await router.fetch(new Request(`http://nas.local/api/runs/${old}`));
      expect(got.status).toBe(200);
      expect(((await got.json()) as { run: { prunedAt?: number } }).run.prunedAt).toBe(NOW);
      const sent = await router.fetch(
        new Request(`http://nas.local/api/runs/${old}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: 'and the sequel' }),
        }),
      );
      expect(sent.status).toBe(409);
      expect(((await sent.json()) as { code: string }).code).toBe('RUN_PRUNED');
    });
  });
}
