/**
 * Records saved at the very same millisecond (a ManualClock that does not move): every list has one defined
 * order — its timestamp, then its id (or key) in code-point order — and memory, SQLite (a file, reopened) and
 * PostgreSQL (in the test database, and in a database whose default collation is ICU en-US) all meet it. Pages by cursor neither overlap nor skip, a limit takes a prefix of the full order,
 * and "latest" (newest first, or the last of an oldest-first list) is the newest record, also after reopening.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BudgetReservation } from '../../src/core/budget-records';
import type {
  ApprovalRecord,
  AuditRecord,
  GrantRecord,
  LedgerEntry,
  PolicyRevisionRecord,
} from '../../src/core/records';
import type { DecisionRecord, InboxRecord } from '../../src/core/run-records';
import { ManualClock } from '../../src/ports/clock';
import { RandomIdGenerator } from '../../src/ports/id-generator';
import type { StorageAdapter } from '../../src/ports/storage-adapter';
import { createSqliteStorage } from '../../src/sqlite';
import * as fixtures from '../../src/testing/storage-conformance/fixtures';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import {
  adminPool,
  closeAdmin,
  describePostgres,
  dropSchema,
  freshSchemaName,
  PG_AVAILABLE,
  PG_URL,
  pgStorage,
} from './postgres-available';
import { runRecord } from './run-record';

/** One backend: `open` makes a fresh migrated store; `reopen` closes it and opens the same data again. */
interface Backend {
  readonly name: string;
  readonly define: (name: string, fn: () => void) => void;
  readonly open: () => Promise<{
    storage: StorageAdapter;
    reopen: () => Promise<StorageAdapter>;
    done: () => Promise<void>;
  }>;
}

const backends: Backend[] = [
  {
    name: 'memory',
    define: describe,
    open: async () => {
      // Nothing to reopen: the same store is the same data.
      const storage = new MemoryStorage();
      await storage.migrate();
      return { storage, reopen: async () => storage, done: () => storage.close() };
    },
  },
  {
    name: 'sqlite (file, reopened)',
    define: describe,
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'media-agent-ties-'));
      const path = join(dir, 'store.sqlite');
      let storage: StorageAdapter = createSqliteStorage({ path });
      await storage.migrate();
      return {
        storage,
        reopen: async () => {
          await storage.close();
          storage = createSqliteStorage({ path });
          await storage.migrate();
          return storage;
        },
        done: async () => {
          await storage.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'postgres (fresh schema, reopened)',
    define: describePostgres,
    open: async () => {
      const schema = freshSchemaName('ma_ties');
      let storage: StorageAdapter = pgStorage(schema);
      await storage.migrate();
      return {
        storage,
        reopen: async () => {
          await storage.close();
          storage = pgStorage(schema);
          await storage.migrate();
          return storage;
        },
        done: async () => {
          await storage.close();
          await dropSchema(schema);
        },
      };
    },
  },
  {
    // A database whose default collation is a language's (as `initdb` makes it on most systems), not `C`.
    name: 'postgres (database with an ICU en-US collation)',
    define: (await icuSupported()) ? describePostgres : describe.skip,
    open: async () => {
      const url = await icuDatabase();
      const schema = freshSchemaName('ma_ties');
      let storage: StorageAdapter = pgStorage(schema, { connectionString: url });
      await storage.migrate();
      return {
        storage,
        reopen: async () => {
          await storage.close();
          storage = pgStorage(schema, { connectionString: url });
          await storage.migrate();
          return storage;
        },
        done: () => storage.close(),
      };
    },
  },
];

/** Whether the server can make the ICU backend's database (PostgreSQL 15+ with ICU, a role that may create one). */
async function icuSupported(): Promise<boolean> {
  if (!PG_AVAILABLE) return false;
  const { rows } = await adminPool().query(
    `SELECT current_setting('server_version_num')::int >= 150000
        AND EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'en-US-x-icu')
        AND (SELECT rolsuper OR rolcreatedb FROM pg_roles WHERE rolname = current_user) AS ok`,
  );
  return rows[0]?.ok === true;
}

/** The database of the ICU backend, made on first use and dropped after the file. */
let icu: { name: string; url: string } | undefined;
async function icuDatabase(): Promise<string> {
  if (!icu) {
    const name = freshSchemaName('ma_ties_icu');
    await adminPool().query(
      `CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`,
    );
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    icu = { name, url: url.toString() };
  }
  return icu.url;
}
afterAll(async () => {
  if (icu) await adminPool().query(`DROP DATABASE IF EXISTS "${icu.name}" WITH (FORCE)`);
  await closeAdmin();
}, 60_000);

/**
 * Ids inserted in this (scrambled) order, all at one timestamp. Their code-point order is `SORTED`: ASCII
 * punctuation and case (which a locale collation would reorder) and a character above U+FFFF next to one just below
 * it (UTF-16 code-unit order puts the astral one first; code-point order, as SQL stores compare UTF-8, puts it last).
 */
const INSERTED = ['t-b', 't\u{1F3AC}', 't_a', 'tA', 't-a', 't\uFF01', 'tB'];
const SORTED = ['t-a', 't-b', 'tA', 'tB', 't_a', 't\uFF01', 't\u{1F3AC}'];
const REVERSED = [...SORTED].reverse();

// The conformance suite's records, at timestamp `at`, about one run, keyed by `id`.
const ledgerEntry = (key: string, at: number, overrides: Partial<LedgerEntry> = {}): LedgerEntry =>
  fixtures.ledgerEntry({ key, argsHash: key, runId: 'run-ties', claimedAt: at, updatedAt: at, ...overrides });
const approval = (id: string, at: number): ApprovalRecord =>
  fixtures.approval({ id, planId: 'plan-ties', requestedAt: at, expiresAt: at + 60_000 });
const grant = (id: string, at: number): GrantRecord => fixtures.grant({ id, createdAt: at, updatedAt: at });
const decision = (id: string, at: number): DecisionRecord =>
  fixtures.decision({ id, dedupeKey: `tie:${id}`, subjectId: 'run-ties', createdAt: at, updatedAt: at });
const inbox = (id: string, at: number): InboxRecord => fixtures.inboxRecord({ id, runId: 'run-ties', createdAt: at });
const reservation = (key: string, at: number): BudgetReservation =>
  fixtures.reservationRow({ key, runId: 'run-ties', createdAt: at, updatedAt: at });
const audit = (id: string, at: number): AuditRecord => fixtures.auditRow({ id, at, invocationId: id });
const policy = (id: string, at: number): PolicyRevisionRecord => ({
  id,
  kind: 'automation',
  status: 'published',
  createdAt: at,
  updatedAt: at,
});

const ids = (list: ReadonlyArray<{ id: string }>) => list.map((r) => r.id);
const keys = (list: ReadonlyArray<{ key: string }>) => list.map((r) => r.key);

for (const backend of backends) {
  /** Runs `body` on a fresh store of this backend, then closes and removes it. */
  const withStore =
    (body: (storage: StorageAdapter, reopen: () => Promise<StorageAdapter>) => Promise<void>) => async () => {
      const { storage, reopen, done } = await backend.open();
      try {
        await body(storage, reopen);
      } finally {
        await done();
      }
    };

  backend.define(`list order when timestamps tie: ${backend.name}`, () => {
    // langchain-ai/langgraph#6871: records saved at one timestamp list in one order, the same on every backend.
    it(
      'every list breaks a timestamp tie by id (or key), in code-point order, newest-first lists reversed',
      withStore(async (s, reopen) => {
        const clock = new ManualClock();
        const at = clock.now();
        await s.transaction(async (t) => {
          for (const id of INSERTED) {
            await t.runs.insert(runRecord(id, { createdAt: at, updatedAt: at }));
            await t.approvals.insert(approval(id, at));
            await t.grants.insert(grant(id, at));
            await t.decisions.insert(decision(id, at));
            await t.inbox.enqueue(inbox(id, at));
            await t.policies.put(policy(id, at));
            await t.ledger.insert(ledgerEntry(id, at));
            await t.budgetUsage.reserve(reservation(id, at));
          }
        });
        for (let pass = 0, store = s; pass < 2; pass++, store = await reopen()) {
          expect(ids(await store.runs.list())).toEqual(REVERSED);
          expect(ids(await store.approvals.list())).toEqual(REVERSED);
          expect(ids(await store.decisions.list())).toEqual(REVERSED);
          expect(ids(await store.grants.list())).toEqual(SORTED);
          expect(ids(await store.inbox.listQueued('run-ties'))).toEqual(SORTED);
          expect(ids(await store.policies.listByKind('automation'))).toEqual(SORTED);
          expect(keys(await store.ledger.listByState(['running']))).toEqual(SORTED);
          expect(keys(await store.ledger.listByRun('run-ties'))).toEqual(SORTED);
          expect(keys(await store.budgetUsage.reservations())).toEqual(SORTED);
          const leased = await store.runs.acquireLease('worker', at, 1_000);
          expect(leased?.id).toBe(SORTED[0]);
          await store.runs.releaseLease(SORTED[0]!, 'worker');
        }
      }),
    );
  });

  backend.define(`pages when timestamps tie: ${backend.name}`, () => {
    // runtara#248: pages of a list meet its order, and neither overlap nor skip when timestamps tie.
    it(
      'a limit takes a prefix of the full order; cursor pages of audit rows and events cover each row once',
      withStore(async (s) => {
        const clock = new ManualClock();
        const at = clock.now();
        for (const id of INSERTED) {
          await s.runs.insert(runRecord(id, { createdAt: at, updatedAt: at, status: 'waiting' }));
          await s.approvals.insert(approval(id, at));
          await s.ledger.insert(ledgerEntry(id, at, { state: 'unknown' }));
          await s.budgetUsage.reserve(reservation(id, at));
        }
        for (let n = 0; n <= INSERTED.length; n++) {
          expect(ids(await s.runs.list({ limit: n }))).toEqual(REVERSED.slice(0, n));
          expect(ids(await s.runs.list({ status: 'waiting', limit: n }))).toEqual(REVERSED.slice(0, n));
          expect(ids(await s.approvals.list({ status: 'requested', limit: n }))).toEqual(REVERSED.slice(0, n));
          expect(keys(await s.ledger.listByState(['unknown'], { limit: n }))).toEqual(SORTED.slice(0, n));
          expect(keys(await s.ledger.listByRun('run-ties', { limit: n }))).toEqual(SORTED.slice(0, n));
          expect(keys(await s.budgetUsage.reservations({ limit: n }))).toEqual(SORTED.slice(0, n));
        }

        const written: AuditRecord[] = [];
        for (let i = 0; i < 10; i++) written.push(await s.audit.append(audit(`audit-${i}`, at)));
        const events = [];
        for (let i = 0; i < 10; i++)
          events.push(await s.events.append({ runId: 'run-ties', type: `e${i}`, at, data: i }));

        const auditPages: string[][] = [];
        for (let after = 0; ; ) {
          const page = await s.audit.list({ after, limit: 3 });
          if (page.length === 0) break;
          auditPages.push(ids(page));
          after = page.at(-1)!.seq;
        }
        expect(auditPages).toEqual([
          ['audit-0', 'audit-1', 'audit-2'],
          ['audit-3', 'audit-4', 'audit-5'],
          ['audit-6', 'audit-7', 'audit-8'],
          ['audit-9'],
        ]);
        expect((await s.audit.list()).map((r) => r.seq)).toEqual(written.map((r) => r.seq));

        const byRun: string[] = [];
        for (let afterSeq = 0; ; ) {
          const page = await s.events.listByRun('run-ties', { afterSeq, limit: 4 });
          if (page.length === 0) break;
          byRun.push(...page.map((e) => e.type));
          afterSeq = page.at(-1)!.seq;
        }
        const global: string[] = [];
        for (let after = 0; ; ) {
          const page = await s.events.listAfter(after, 4);
          if (page.length === 0) break;
          global.push(...page.map((e) => e.type));
          after = page.at(-1)!.globalSeq;
        }
        const types = events.map((e) => e.type);
        expect(types).toEqual(['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8', 'e9']);
        expect(byRun).toEqual(types);
        expect(global).toEqual(types);
      }),
    );
  });

  backend.define(`latest when timestamps tie: ${backend.name}`, () => {
    // apache/burr#920: "latest" is the newest when timestamps tie, also after reopening the database.
    it(
      'with the default time-ordered ids, the newest run, approval, decision, policy revision and event come out as latest',
      withStore(async (s, reopen) => {
        const clock = new ManualClock();
        const at = clock.now();
        const idGen = new RandomIdGenerator();
        const made: string[] = [];
        for (let i = 0; i < 5; i++) {
          const id = idGen.next('run');
          made.push(id);
          await s.runs.insert(runRecord(id, { createdAt: at, updatedAt: at, sessionId: 'session-ties' }));
          await s.approvals.insert(approval(id, at));
          await s.decisions.insert(decision(id, at));
          await s.policies.put(policy(id, at));
          await s.events.append({ runId: 'run-ties', type: `event-${i}`, at, data: null });
        }
        const newest = made.at(-1)!;
        for (let pass = 0, store = s; pass < 2; pass++, store = await reopen()) {
          expect(ids(await store.runs.list({ limit: 1 }))).toEqual([newest]);
          expect(ids(await store.runs.list({ sessionId: 'session-ties', limit: 1 }))).toEqual([newest]);
          expect(ids(await store.approvals.list({ planId: 'plan-ties', limit: 1 }))).toEqual([newest]);
          expect((await store.decisions.list({ subjectId: 'run-ties' }))[0]?.id).toBe(newest);
          expect((await store.policies.listByKind('automation')).at(-1)?.id).toBe(newest);
          expect(ids(await store.runs.list())).toEqual([...made].reverse());
          const events = await store.events.listByRun('run-ties');
          expect(events.at(-1)?.type).toBe('event-4');
          expect((await store.events.listAfter(0, 1_000)).at(-1)?.type).toBe('event-4');
        }
      }),
    );
  });
}
