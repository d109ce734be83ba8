// host.schedules on the SQL stores (a real SQLite file, the PostgreSQL server): the core of the service tests, and
// two hosts sharing one store — concurrent creates with one client key store one schedule, concurrent changes of one
// schedule both apply (compare-and-set retries), a refused change leaves the row and the audit trail as they were.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CreateScheduleInput } from '../../src/index';
import type { StorageAdapter } from '../../src/ports/storage-adapter';
import { createSqliteStorage } from '../../src/sqlite';
import { closedAfterEach } from '../runtime/harness';
import { closeAdmin, describePostgres, dropSchema, freshSchemaName, pgStorage } from '../storage/postgres-available';
import { ADMIN, ALICE, BOB, makeScheduleHost, T0, type ScheduleHost } from './fixtures';

const HOUR = 3_600_000;
const opened = closedAfterEach<{ close(): unknown }>();
const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas.splice(0)) await dropSchema(s).catch(() => undefined);
  await closeAdmin();
});

/** Opens `count` adapters on one new store. */
type Open = (count: number) => Promise<StorageAdapter[]>;

const stores: Array<[string, Open, typeof describe]> = [
  [
    'a SQLite file',
    async (count) => {
      const dir = mkdtempSync(join(tmpdir(), 'ma-schedules-'));
      opened.dirs.push(dir);
      const all = Array.from({ length: count }, () => createSqliteStorage({ path: join(dir, 'store.db') }));
      for (const s of all) opened.servers.push(s);
      return all;
    },
    describe,
  ],
  [
    'PostgreSQL',
    async (count) => {
      const schema = freshSchemaName('ma_schedules');
      schemas.push(schema);
      const all = Array.from({ length: count }, () => pgStorage(schema, { poolSize: 3 }));
      for (const s of all) opened.servers.push(s);
      return all;
    },
    describePostgres as typeof describe,
  ],
];

const nightly: CreateScheduleInput = {
  actor: ALICE,
  cron: '0 3 * * *',
  timezone: 'Europe/Berlin',
  goal: 'Check for stalled downloads',
  capabilityAllowlist: ['inventory.query'],
  budgets: { maxRunsPerDay: 2, maxCostUsdPerDay: null, maxToolCalls: 10 },
  missed: 'catch_up_one',
};

for (const [name, open, suite] of stores) {
  suite(`host.schedules on ${name}`, () => {
    async function hosts(count: number): Promise<ScheduleHost[]> {
      const storages = await open(count);
      const made: ScheduleHost[] = [];
      // One after the other: the first migrates the store.
      for (const [i, storage] of storages.entries())
        made.push(await makeScheduleHost({ storage, ...(i > 0 ? { idTag: String.fromCharCode(97 + i) } : {}) }));
      for (const h of made) opened.hosts.push(h.host);
      return made;
    }

    it('creates, reads back every field, lists by access, and audits the create in the chain', async () => {
      const [h] = await hosts(1);
      const s = await h!.host.schedules.create({ ...nightly, clientKey: 'nightly' });
      expect(await h!.host.schedules.get(s.id, ALICE)).toEqual(s);
      expect(s).toMatchObject({
        budgets: { maxRunsPerDay: 2, maxCostUsdPerDay: null, maxToolCalls: 10 },
        nextTickAt: Date.UTC(2026, 11, 1, 2),
        revision: 1,
      });
      await h!.host.schedules.create({ ...nightly, actor: BOB });
      expect((await h!.host.schedules.list({ actor: ALICE })).map((x) => x.owner)).toEqual([ALICE]);
      expect(await h!.host.schedules.list({ actor: ADMIN })).toHaveLength(2);
      await expect(h!.host.schedules.get(s.id, BOB)).rejects.toMatchObject({ code: 'SCHEDULE_NOT_FOUND' });
      const rows = await h!.auditRows();
      expect(rows.map((r) => [r.actor, r.capabilityId])).toEqual([
        [ALICE, 'host.schedules.create'],
        [BOB, 'host.schedules.create'],
      ]);
      expect((await h!.host.audit.verify()).ok).toBe(true);
    });

    it('refuses bad input, a forbidden capability and a reused key, storing nothing and auditing nothing', async () => {
      const [h] = await hosts(1);
      for (const [input, code] of [
        [{ ...nightly, cron: '0 0 30 2 *' }, 'SCHEDULE_INVALID'],
        [{ ...nightly, timezone: 'Europe/Atlantis' }, 'SCHEDULE_INVALID'],
        [{ ...nightly, cron: undefined, everyMs: 1_000 }, 'SCHEDULE_INVALID'],
        [{ ...nightly, capabilityAllowlist: ['system.inspect'] }, 'SCHEDULE_CAPABILITY_FORBIDDEN'],
        [{ ...nightly, owner: BOB }, 'ADMIN_FORBIDDEN'],
      ] as const)
        await expect(h!.host.schedules.create(input as CreateScheduleInput)).rejects.toMatchObject({ code });
      expect(await h!.host.schedules.list()).toEqual([]);
      expect(await h!.auditRows()).toEqual([]);
      const first = await h!.host.schedules.create({ ...nightly, clientKey: 'k' });
      expect(await h!.host.schedules.create({ ...nightly, clientKey: 'k' })).toEqual(first);
      await expect(h!.host.schedules.create({ ...nightly, clientKey: 'k', missed: 'skip' })).rejects.toMatchObject({
        code: 'SCHEDULE_KEY_REUSED',
        details: { scheduleId: first.id },
      });
      expect(await h!.host.schedules.list()).toEqual([first]);
      expect(await h!.auditRows()).toHaveLength(1);
    });

    it('updates, pauses, resumes and deletes, each one audited row; another user can do none of it', async () => {
      const [h] = await hosts(1);
      const s = await h!.host.schedules.create({ actor: ALICE, everyMs: HOUR, goal: 'poll' });
      await expect(h!.host.schedules.pause(s.id, BOB)).rejects.toMatchObject({ code: 'SCHEDULE_NOT_FOUND' });
      h!.clock.advance(90 * 60_000);
      const updated = await h!.host.schedules.update(s.id, { goal: 'poll more', missed: 'catch_up_one' }, ALICE);
      expect(updated).toMatchObject({ goal: 'poll more', missed: 'catch_up_one', revision: 2, nextTickAt: T0 + HOUR });
      expect(await h!.host.schedules.pause(s.id, ALICE)).toMatchObject({ status: 'paused', nextTickAt: null });
      h!.clock.advance(HOUR);
      expect(await h!.host.schedules.resume(s.id, ADMIN)).toMatchObject({
        status: 'active',
        nextTickAt: T0 + 3 * HOUR,
      });
      await h!.host.schedules.delete(s.id, ALICE);
      await expect(h!.host.schedules.get(s.id)).rejects.toMatchObject({ code: 'SCHEDULE_NOT_FOUND' });
      expect((await h!.auditRows()).map((r) => r.capabilityId)).toEqual([
        'host.schedules.create',
        'host.schedules.update',
        'host.schedules.pause',
        'host.schedules.resume',
        'host.schedules.delete',
      ]);
    });

    it('two hosts on one store: concurrent creates with one key store one schedule', async () => {
      const [a, b] = await hosts(2);
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 ? a! : b!).host.schedules.create({ ...nightly, clientKey: 'race' })),
      );
      expect(new Set(results.map((r) => r.id)).size).toBe(1);
      expect(await a!.host.schedules.list()).toHaveLength(1);
      expect(await a!.auditRows()).toHaveLength(1);
    });

    it('two hosts on one store: concurrent changes of one schedule both apply, one revision each', async () => {
      const [a, b] = await hosts(2);
      const s = await a!.host.schedules.create(nightly);
      await Promise.all([
        a!.host.schedules.update(s.id, { goal: 'from a' }, ALICE),
        b!.host.schedules.update(s.id, { missed: 'skip' }, ADMIN),
        a!.host.schedules.update(s.id, { budgets: { maxRunsPerDay: 5 } }, ALICE),
      ]);
      const now = await b!.host.schedules.get(s.id);
      expect(now).toMatchObject({ goal: 'from a', missed: 'skip', budgets: { maxRunsPerDay: 5 }, revision: 4 });
      expect(await a!.auditRows()).toHaveLength(4);
    });
  });
}
