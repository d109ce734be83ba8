import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isMediaAgentError } from '../../src/core/errors';
import { createSqliteStorage, type SqliteStorage } from '../../src/sqlite';
import type { LedgerEntry } from '../../src/core/records';
import { SQLITE_MIGRATIONS } from '../../src/storage/sqlite/migrations';
import { STORAGE_SCHEMA_VERSION } from '../../src/ports/storage-adapter';
import { RETENTION_KINDS } from '../../src/ports/maintenance-repository';
import { spawnFixture } from './child';
import { expectCode } from './expect-code';
import { ledgerEntry } from './ledger-entry';
import {
  SECONDARY_INDEXES,
  SQLITE_MIGRATION_ROWS,
  V5_DECISION_COLUMNS,
  V5_DECISION_MIGRATED,
  V5_DECISION_VALUES,
} from './migration-rows';
import { runRecord } from './run-record';

const dirs: string[] = [];
const open: SqliteStorage[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-sqlite-'));
  dirs.push(dir);
  return dir;
}
function storage(path: string, busyTimeoutMs?: number): SqliteStorage {
  const s = createSqliteStorage(busyTimeoutMs === undefined ? { path } : { path, busyTimeoutMs });
  open.push(s);
  return s;
}
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

const entry = (key: string, overrides: Partial<LedgerEntry> = {}) => ledgerEntry(key, { runId: '1', ...overrides });

describe('SqliteStorage', () => {
  it('creates the database file and its missing parent directories on first use, not in the constructor', async () => {
    const path = join(tempDir(), 'nested', 'deeper', 'store.sqlite');
    const s = storage(path);
    expect(existsSync(join(path, '..'))).toBe(false);
    await s.migrate();
    expect(existsSync(path)).toBe(true);
    expect(await s.schemaVersion()).toBe(STORAGE_SCHEMA_VERSION);
  });

  it('runs the file in WAL mode and records the migration in schema_migrations and user_version', async () => {
    const path = join(tempDir(), 'store.sqlite');
    const s = storage(path);
    await s.migrate();
    await s.settings.set('k', 1);
    expect(existsSync(`${path}-wal`)).toBe(true);
    const raw = new Database(path, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.pragma('user_version', { simple: true })).toBe(STORAGE_SCHEMA_VERSION);
      expect(raw.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all()).toEqual(
        SQLITE_MIGRATION_ROWS,
      );
    } finally {
      raw.close();
    }
  });

  it("checkpoints the WAL at 16 MiB (4000 pages of 4 KiB), not at SQLite's default of 1000 pages (fewer checkpoints, fewer fsyncs)", async () => {
    const path = join(tempDir(), 'store.sqlite');
    const pageSize = 4096;
    const s = createSqliteStorage({ path, pageSizeBytes: pageSize });
    open.push(s);
    await s.migrate();
    // Each write changes one page (the row's overflow pages stay as they are); 1500 of them pass 1000 pages, not 4000.
    for (let i = 0; i < 1500; i++) await s.settings.set(`k${i % 10}`, `${i}`.padEnd(6000, 'x'));
    const walPages = readFileSync(`${path}-wal`).length / pageSize;
    expect(walPages).toBeGreaterThan(1500);
    expect(walPages).toBeLessThan(4100);
    // Past 4000 pages the WAL is checkpointed and written from its start again: it stops growing.
    for (let i = 0; i < 3000; i++) await s.settings.set(`k${i % 10}`, `${i}`.padEnd(6000, 'x'));
    expect(readFileSync(`${path}-wal`).length / pageSize).toBeLessThan(4200);
  });

  it('creates a new file with 1 KiB pages (fewer bytes written per commit); a file that exists keeps its page size', async () => {
    const pageSizeOf = (file: string) => {
      const db = new Database(file, { readonly: true });
      try {
        return Number(db.pragma('page_size', { simple: true }));
      } finally {
        db.close();
      }
    };
    const fresh = join(tempDir(), 'fresh.sqlite');
    const a = storage(fresh);
    await a.migrate();
    await a.settings.set('k', 'v');
    expect(a.pageSizeBytes).toBe(512);
    expect(pageSizeOf(fresh)).toBe(512);
    // Created at 4096, opened later with the default: it stays 4096 and works as before.
    const old = join(tempDir(), 'old.sqlite');
    const b = createSqliteStorage({ path: old, pageSizeBytes: 4096 });
    open.push(b);
    await b.migrate();
    await b.settings.set('k', 'v');
    await b.close();
    const c = storage(old);
    await c.migrate();
    expect(await c.settings.get('k')).toBe('v');
    await c.settings.set('k', 'w');
    expect(pageSizeOf(old)).toBe(4096);
    expect(() => createSqliteStorage({ path: old, pageSizeBytes: 1000 })).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID', details: { option: 'pageSizeBytes' } }),
    );
  });

  it("returns a run's runtime state decoded when it is first read, as an ordinary enumerable field", async () => {
    const s = storage(join(tempDir(), 'store.sqlite'));
    await s.migrate();
    const state = { guard: { counts: { a: 1 } }, targets: ['x', 'ü'] };
    await s.runs.insert(runRecord('run-1', { runtimeState: state }));
    const read = (await s.runs.get('run-1'))!;
    expect(Object.keys(read)).toContain('runtimeState');
    expect(read).toEqual(runRecord('run-1', { runtimeState: state }));
    expect(JSON.parse(JSON.stringify(read)).runtimeState).toEqual(state);
    expect({ ...read }.runtimeState).toEqual(state);
    expect(structuredClone(read).runtimeState).toEqual(state);
    // Reading it twice gives the same object; changing it changes neither the store nor later reads.
    (read.runtimeState as { guard: { counts: { a: number } } }).guard.counts.a = 2;
    expect((read.runtimeState as { guard: { counts: { a: number } } }).guard.counts.a).toBe(2);
    expect((await s.runs.get('run-1'))!.runtimeState).toEqual(state);
    // A field assigned before it was read holds the assigned value.
    const patched = (await s.runs.patch('run-1', { status: 'running' }))!;
    patched.runtimeState = { other: true };
    expect(patched.runtimeState).toEqual({ other: true });
    expect((await s.runs.patch('run-1', { runtimeState: null }))!.runtimeState).toBeNull();
  });

  it('reports stored runtime state that is not JSON (a damaged file) as STORAGE_FAILED when it is read', async () => {
    const path = join(tempDir(), 'store.sqlite');
    const s = storage(path);
    await s.migrate();
    await s.runs.insert(runRecord('run-1', { runtimeState: { ok: true } }));
    const raw = new Database(path);
    try {
      raw.prepare(`UPDATE runs SET runtime_state = '{"cut' WHERE id = 'run-1'`).run();
    } finally {
      raw.close();
    }
    const read = (await s.runs.get('run-1'))!;
    expect(read.status).toBe('queued');
    let error: unknown;
    try {
      void read.runtimeState;
    } catch (e) {
      error = e;
    }
    expect(isMediaAgentError(error, 'STORAGE_FAILED')).toBe(true);
  });

  it('uses a 5000 ms busy timeout by default and the configured one otherwise', () => {
    expect(storage(':memory:').busyTimeoutMs).toBe(5000);
    expect(storage(':memory:', 250).busyTimeoutMs).toBe(250);
    expect(() => createSqliteStorage({ path: '' })).toThrow(/path/);
    expect(() => createSqliteStorage({ path: ':memory:', busyTimeoutMs: -1 })).toThrow(/busyTimeoutMs/);
  });

  it('gives its page cache 32 MiB by default and the configured size otherwise; a negative size is refused', async () => {
    expect(storage(':memory:').cacheSizeKiB).toBe(32_768);
    const s = createSqliteStorage({ path: ':memory:', cacheSizeKiB: 1024 });
    open.push(s);
    expect(s.cacheSizeKiB).toBe(1024);
    await s.migrate();
    expect(() => createSqliteStorage({ path: ':memory:', cacheSizeKiB: -1 })).toThrow(/cacheSizeKiB/);
  });

  it('keeps data across close and reopen', async () => {
    const path = join(tempDir(), 'store.sqlite');
    const first = storage(path);
    await first.migrate();
    await first.ledger.insert(entry('k1', { callId: 'c1', output: { title: '整理' } }));
    await first.settings.set('automation', { enabled: true });
    await first.audit.append({
      id: 'a1',
      seq: 0,
      at: 1,
      action: 'capability.invoke',
      actor: 'x',
      capabilityId: 'cap.test',
      invocationId: 'inv',
      runId: null,
      taskId: null,
      outcome: 'succeeded',
      approvalId: null,
      grantId: null,
      idempotencyKey: 'k1',
      inputSummary: '{}',
      reason: null,
    });
    await first.close();
    const second = storage(path);
    await second.migrate();
    expect(await second.ledger.findByCall('run:1', 'c1')).toEqual(
      entry('k1', { callId: 'c1', output: { title: '整理' } }),
    );
    expect(await second.settings.get('automation')).toEqual({ enabled: true });
    expect((await second.audit.list()).map((a) => [a.id, a.seq])).toEqual([['a1', 1]]);
    const next = await second.audit.append({ ...(await second.audit.list())[0]!, id: 'a2' });
    expect(next.seq).toBeGreaterThan(1);
  });

  it('refuses repository calls before migrate() with STORAGE_FAILED', async () => {
    const s = storage(join(tempDir(), 'store.sqlite'));
    await expectCode(s.settings.get('k'), 'STORAGE_FAILED');
    await expect(s.settings.get('k')).rejects.toThrow(/migrate\(\)/);
    await s.migrate();
    expect(await s.settings.get('k')).toBeUndefined();
  });

  it('reports a file of garbage bytes as STORAGE_CORRUPT at migrate and at first use, and leaves it alone', async () => {
    const path = join(tempDir(), 'garbage.sqlite');
    writeFileSync(path, Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919 + 13) % 256)));
    const before = sha256(path);
    const s = storage(path);
    await expectCode(s.migrate(), 'STORAGE_CORRUPT');
    await expectCode(s.settings.get('k'), 'STORAGE_CORRUPT');
    await expectCode(
      s.transaction(async (tx) => tx.settings.set('k', 1)),
      'STORAGE_CORRUPT',
    );
    await expectCode(s.schemaVersion(), 'STORAGE_CORRUPT');
    await s.close();
    expect(sha256(path)).toBe(before);

    const short = join(tempDir(), 'short.sqlite');
    writeFileSync(short, 'this is not a database');
    await expectCode(storage(short).migrate(), 'STORAGE_CORRUPT');
  });

  it('refuses a store whose schema version is newer with STORAGE_SCHEMA_TOO_NEW and does not touch it', async () => {
    const path = join(tempDir(), 'newer.sqlite');
    const raw = new Database(path);
    raw.exec(
      `CREATE TABLE future_table (x TEXT); INSERT INTO future_table VALUES ('keep me'); PRAGMA user_version = ${STORAGE_SCHEMA_VERSION + 1};`,
    );
    raw.close();
    const before = sha256(path);
    const s = storage(path);
    await expectCode(s.migrate(), 'STORAGE_SCHEMA_TOO_NEW');
    await expectCode(s.settings.set('k', 1), 'STORAGE_SCHEMA_TOO_NEW');
    await expectCode(s.ledger.get('k'), 'STORAGE_SCHEMA_TOO_NEW');
    expect(await s.schemaVersion()).toBe(STORAGE_SCHEMA_VERSION + 1);
    await s.close();
    expect(sha256(path)).toBe(before);
    expect(existsSync(`${path}-wal`)).toBe(false);
    const check = new Database(path, { readonly: true });
    try {
      expect(check.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all()).toEqual([
        { name: 'future_table' },
      ]);
      expect(check.pragma('journal_mode', { simple: true })).toBe('delete');
    } finally {
      check.close();
    }
  });

  it('fails with STORAGE_LOCKED and writes nothing while another process holds BEGIN EXCLUSIVE past the busy timeout', async () => {
    const path = join(tempDir(), 'locked.sqlite');
    const s = storage(path, 100);
    await s.migrate();
    await s.settings.set('before', 'committed');
    const holder = spawnFixture('hold-lock.ts', [path]);
    try {
      expect(await holder.nextLine()).toBe('locked');
      await expectCode(
        s.transaction(async (tx) => {
          await tx.settings.set('a', 1);
          await tx.ledger.insert(entry('locked-key'));
        }),
        'STORAGE_LOCKED',
      );
      await expectCode(s.ledger.insert(entry('locked-key-2')), 'STORAGE_LOCKED');
      await expectCode(s.settings.set('b', 2), 'STORAGE_LOCKED');
      // WAL: readers are not blocked by the writer
      expect(await s.settings.get('before')).toBe('committed');
      expect(await s.settings.get('child')).toBeUndefined();
    } finally {
      holder.send('release');
      holder.end();
    }
    expect(await holder.nextLine()).toBe('released');
    expect(await holder.exited).toBe(0);
    expect(await s.settings.get('a')).toBeUndefined();
    expect(await s.settings.get('b')).toBeUndefined();
    expect(await s.ledger.get('locked-key')).toBeUndefined();
    expect(await s.ledger.get('locked-key-2')).toBeUndefined();
    expect(await s.ledger.insert(entry('after'))).toBe(true);
    expect(await s.ledger.get('after')).toEqual(entry('after'));
  });

  it('two adapters on one file in one process, claiming the same keys in parallel, never both insert a key', async () => {
    const path = join(tempDir(), 'shared.sqlite');
    const a = storage(path);
    const b = storage(path);
    await Promise.all([a.migrate(), b.migrate()]);
    const claim = (s: SqliteStorage, token: string, i: number) =>
      s.transaction(async (tx) =>
        (await tx.ledger.get(`k-${i}`)) ? false : tx.ledger.insert(entry(`k-${i}`, { token, callId: `c-${i}` })),
      );
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => [
        claim(a, 'A', i),
        i % 2 ? b.ledger.insert(entry(`k-${i}`, { token: 'B', callId: `c-${i}` })) : claim(b, 'B', i),
      ]).flat(),
    );
    for (let i = 0; i < 40; i++) expect(Number(results[2 * i]) + Number(results[2 * i + 1]), `key k-${i}`).toBe(1);
    const rows = await a.ledger.listByState(['running']);
    expect(rows).toHaveLength(40);
    for (let i = 0; i < 40; i++) expect((await b.ledger.get(`k-${i}`))?.token).toBe(results[2 * i] ? 'A' : 'B');
  });

  it('two processes on one file, claiming the same keys in parallel, never both insert a key', async () => {
    const path = join(tempDir(), 'shared.sqlite');
    const count = 60;
    const workers = [
      spawnFixture('claim-worker.ts', [path, 'P1', String(count)]),
      spawnFixture('claim-worker.ts', [path, 'P2', String(count)]),
    ];
    for (const w of workers) expect(await w.nextLine()).toBe('ready');
    for (const w of workers) {
      w.send('go');
      w.end();
    }
    const [won1, won2] = (await Promise.all(workers.map(async (w) => JSON.parse(await w.nextLine()) as string[]))) as [
      string[],
      string[],
    ];
    for (const w of workers) expect(await w.exited).toBe(0);
    expect(won1.filter((k) => won2.includes(k))).toEqual([]);
    expect([...won1, ...won2].sort()).toEqual(Array.from({ length: count }, (_, i) => `k-${i}`).sort());
    const s = storage(path);
    await s.migrate();
    const rows = await s.ledger.listByState(['running']);
    expect(rows).toHaveLength(count);
    for (const row of rows) expect(row.token).toBe(won1.includes(row.key) ? 'token-P1' : 'token-P2');
  });

  it('migrates a version 5 store: stored decisions keep their fields and become raised by their run, open to the new statuses', async () => {
    const path = join(tempDir(), 'v5.sqlite');
    const raw = new Database(path);
    for (const m of SQLITE_MIGRATIONS.filter((m) => m.version <= 5)) for (const sql of m.statements) raw.exec(sql);
    raw.pragma('user_version = 5');
    raw.prepare(`INSERT INTO decisions ${V5_DECISION_COLUMNS} VALUES ${V5_DECISION_VALUES}`).run();
    raw.close();
    const s = storage(path);
    await s.migrate();
    expect(await s.decisions.get('d1')).toEqual(V5_DECISION_MIGRATED);
    const d1 = (await s.decisions.get('d1'))!;
    expect(await s.decisions.update({ ...d1, status: 'awaiting_user', revision: 2 }, 1)).toBe(true);
    expect((await s.decisions.get('d1'))?.status).toBe('awaiting_user');
    await s.close();
  });

  it('migrates a version 1 store to the current version in place, keeping its rows', async () => {
    const path = join(tempDir(), 'v1.sqlite');
    const raw = new Database(path);
    raw.pragma('journal_mode = WAL');
    for (const sql of SQLITE_MIGRATIONS.find((m) => m.version === 1)!.statements) raw.exec(sql);
    raw.prepare(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (1, 'initial', 1)`).run();
    raw.pragma('user_version = 1');
    raw
      .prepare(
        `INSERT INTO ledger (key, capability_id, capability_version, scope_id, call_id, args_hash, state, token, actor, invocation_id, run_id, bytes, output, input_summary, attempts, claimed_at, updated_at)
         VALUES ('old-key', 'cap.test', 1, 'run:1', 'c1', 'h', 'succeeded', 'tok', 'agent:run-1', 'inv', '1', 0, '{"kept":true}', '{}', 1, 1, 1)`,
      )
      .run();
    raw.prepare(`INSERT INTO settings (key, value) VALUES ('automation', '{"enabled":true}')`).run();
    raw.close();

    const s = storage(path);
    expect(await s.schemaVersion()).toBe(1);
    await expectCode(s.runs.get('r'), 'STORAGE_FAILED');
    await s.migrate();
    expect(await s.schemaVersion()).toBe(STORAGE_SCHEMA_VERSION);
    const kept = await s.ledger.get('old-key');
    expect(kept?.state).toBe('succeeded');
    expect(kept?.output).toEqual({ kept: true });
    expect(await s.ledger.findByCall('run:1', 'c1')).toEqual(kept);
    expect(await s.settings.get('automation')).toEqual({ enabled: true });
    await s.runs.insert(runRecord('r1'));
    expect((await s.runs.get('r1'))?.status).toBe('queued');
    expect((await s.events.append({ runId: 'r1', type: 'run_status', at: 1, data: null })).seq).toBe(1);
    const check = new Database(path, { readonly: true });
    try {
      expect(check.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all()).toEqual(
        SQLITE_MIGRATION_ROWS,
      );
    } finally {
      check.close();
    }
  });

  it('migrates a version 8 store to version 9: the indexes no query uses are gone, every row is kept, the ledger sweeps use ledger_state_settled', async () => {
    const path = join(tempDir(), 'v8.sqlite');
    const raw = new Database(path);
    raw.pragma('journal_mode = WAL');
    for (const m of SQLITE_MIGRATIONS.filter((m) => m.version <= 8)) {
      for (const sql of m.statements) raw.exec(sql);
      raw.prepare(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 1)`).run(m.version, m.name);
    }
    raw.pragma('user_version = 8');
    const dropped = [
      'audit_capability',
      'audit_invocation',
      'budget_reservations_run',
      'budget_reservations_state',
      'ledger_state_claimed',
      'runs_parent',
    ];
    const indexes = (db: Database.Database) =>
      (
        db
          .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
          .all() as {
          name: string;
        }[]
      ).map((r) => r.name);
    expect(indexes(raw)).toEqual(expect.arrayContaining(dropped));
    raw
      .prepare(
        `INSERT INTO audit (id, at, action, actor, capability_id, invocation_id, run_id, outcome, input_summary)
         VALUES ('a-old', 5, 'invoke', 'agent:r-old', 'cap.old', 'inv-old', 'r-old', 'succeeded', '{}')`,
      )
      .run();
    raw
      .prepare(
        `INSERT INTO budget_reservations (key, subject, run_id, state, day, month, runs, model_calls, tokens, cost_usd, created_at, updated_at)
         VALUES ('r-old:start', 'user:admin', 'r-old', 'reserved', 0, 0, 1, 0, 0, 0.5, 7, 7)`,
      )
      .run();
    raw
      .prepare(
        `INSERT INTO runs (id, goal, mode, status, step, started_by, budgets, usage, abort_requested, wake_requested, created_at, updated_at, parent_run_id, depth)
         VALUES ('r-child', 'sub', 'execute', 'succeeded', 'finalize', 'agent:r-old', '{}', '{"costUsd":0}', 0, 0, 1, 1, 'r-old', 1)`,
      )
      .run();
    raw.close();

    const s = storage(path);
    await s.migrate();
    expect(await s.schemaVersion()).toBe(STORAGE_SCHEMA_VERSION);
    await s.ledger.insert(entry('k-running', { claimedAt: 10 }));
    await s.ledger.insert(entry('k-done', { state: 'succeeded', claimedAt: 20, settledAt: 30 }));
    expect((await s.audit.list({ capabilityId: 'cap.old' })).map((r) => r.id)).toEqual(['a-old']);
    expect((await s.audit.list({ invocationId: 'inv-old' })).map((r) => r.id)).toEqual(['a-old']);
    expect((await s.budgetUsage.reservations({ runId: 'r-old' })).map((r) => [r.key, r.costUsd])).toEqual([
      ['r-old:start', 0.5],
    ]);
    expect((await s.budgetUsage.reservations({ state: 'reserved' })).map((r) => r.key)).toEqual(['r-old:start']);
    expect((await s.runs.get('r-child'))?.parentRunId).toBe('r-old');
    expect((await s.ledger.listByState(['running'], { claimedBefore: 11 })).map((e) => e.key)).toEqual(['k-running']);
    expect(await s.ledger.deleteSettledBefore(31, ['succeeded'])).toBe(1);
    await s.close();

    const check = new Database(path, { readonly: true });
    try {
      const left = indexes(check);
      for (const name of dropped) expect(left).not.toContain(name);
      expect(left).toEqual(SECONDARY_INDEXES);
      // The recovery sweep (listByState with claimedBefore) and the retention delete are served by the state prefix
      // of ledger_state_settled, not by a scan of the whole ledger.
      const plan = (sql: string) =>
        (
          check
            .prepare(`EXPLAIN QUERY PLAN ${sql}`)
            .all({ states: '["running"]', claimedBefore: 1, settledBefore: 1, limit: 1 }) as {
            detail: string;
          }[]
        )
          .map((r) => r.detail)
          .join(' | ');
      expect(
        plan(
          `SELECT * FROM ledger WHERE state IN (SELECT value FROM json_each(@states)) AND claimed_at < @claimedBefore ORDER BY claimed_at, key LIMIT @limit`,
        ),
      ).toMatch(/SEARCH ledger USING INDEX ledger_state_settled \(state=\?\)/);
      expect(
        plan(
          `DELETE FROM ledger WHERE state IN (SELECT value FROM json_each(@states)) AND state NOT IN ('running', 'unknown') AND settled_at IS NOT NULL AND settled_at < @settledBefore`,
        ),
      ).toMatch(
        /SEARCH ledger USING COVERING INDEX ledger_state_settled \(state=\? AND settled_at>\? AND settled_at<\?\)/,
      );
    } finally {
      check.close();
    }
  });

  it('every secondary index serves a statement the repositories run (EXPLAIN QUERY PLAN), and the filtered lists search an index instead of scanning', async () => {
    const path = join(tempDir(), 'plans.sqlite');
    const s = storage(path);
    await s.migrate();
    const prepared = new Set<string>();
    const prepare = Database.prototype.prepare;
    const spy = vi.spyOn(Database.prototype, 'prepare').mockImplementation(function (this: Database.Database, sql) {
      prepared.add(sql);
      return prepare.call(this, sql);
    });
    try {
      await s.approvals.list({ status: 'requested' });
      await s.approvals.list({ planId: 'p' });
      await s.grants.list({ status: 'active' });
      await s.decisions.list({ status: 'open' });
      await s.decisions.list({ subjectId: 'r', kind: 'budget_reached', status: 'open' });
      await s.decisions.list({ rootCause: 'rc' });
      await s.inbox.listQueued('r');
      await s.policies.listByKind('k');
      await s.ledger.findByCall('run:r', 'c');
      await s.ledger.listByRun('r');
      await s.ledger.listByState(['running'], { claimedBefore: 5 });
      await s.ledger.usageForGrant('g', 0, 1);
      await s.ledger.deleteSettledBefore(1, ['succeeded']);
      await s.runs.list({ status: 'queued' });
      await s.runs.list({ sessionId: 's' });
      await s.runs.totalsBetween(0, 1);
      await s.runs.acquireLease('w', 1, 1);
      await s.runs.insert(runRecord('ended', { status: 'succeeded', endedAt: 0, updatedAt: 0 }));
      await s.schedules.findByClientKey('user:a', 'k');
      await s.schedules.list();
      await s.schedules.due(1, 1);
      await s.schedules.ticks('sch', { before: 1 });
      await s.schedules.firedBetween('sch', 0, 1);
      await s.intents.releaseByRun('r');
      await s.outbox.listByRun('r');
      await s.outbox.dueChats(1, { channelIds: ['c'], owner: 'o' });
      for (const kind of RETENTION_KINDS) {
        await s.maintenance.estimate(kind, { now: 1, before: 1, keepNewest: 1 });
        await s.maintenance.prune(kind, { now: 1, before: 1, keepNewest: 1 }, 1);
      }
    } finally {
      spy.mockRestore();
    }
    const check = new Database(path, { readonly: true });
    try {
      const plans = new Map<string, string>();
      for (const sql of prepared) {
        if (!/^\s*(SELECT|UPDATE|DELETE|INSERT)/i.test(sql)) continue;
        const params = Object.fromEntries(
          [...sql.matchAll(/@(\w+)/g)].map((m) => [m[1], /states/i.test(m[1]!) ? '["succeeded"]' : 1]),
        );
        const detail = (check.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[])
          .map((r) => r.detail)
          .join(' | ');
        plans.set(sql, detail);
      }
      const used = new Set([...plans.values()].flatMap((d) => [...d.matchAll(/INDEX (\w+)/g)].map((m) => m[1]!)));
      const secondary = (
        check.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'`).all() as {
          name: string;
        }[]
      ).map((r) => r.name);
      expect(secondary.length).toBeGreaterThan(10);
      for (const name of secondary) expect(used.has(name), `no statement uses ${name}`).toBe(true);
      for (const [sql, detail] of plans)
        if (/FROM (approvals|grants|decisions) WHERE/.test(sql)) expect(detail, sql).toMatch(/^SEARCH /);
    } finally {
      check.close();
    }
  });

  it("migrates a version 4 store to version 5, keeping each run's step list (the plan column) as its checklist", async () => {
    const path = join(tempDir(), 'v4.sqlite');
    const raw = new Database(path);
    raw.pragma('journal_mode = WAL');
    for (const m of SQLITE_MIGRATIONS.filter((m) => m.version <= 4)) {
      for (const sql of m.statements) raw.exec(sql);
      raw.prepare(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 1)`).run(m.version, m.name);
    }
    raw.pragma('user_version = 4');
    const steps = { goal: 'add Dune', steps: [{ title: 'search', status: 'completed', evidence: 'call_1' }] };
    raw
      .prepare(
        `INSERT INTO runs (id, goal, mode, status, step, started_by, budgets, usage, plan, abort_requested, wake_requested, created_at, updated_at)
         VALUES ('r-old', 'add Dune', 'execute', 'succeeded', 'finalize', 'user:admin', '{}', '{"costUsd":0}', ?, 0, 0, 1, 1)`,
      )
      .run(JSON.stringify(steps));
    raw.close();

    const s = storage(path);
    await s.migrate();
    expect(await s.schemaVersion()).toBe(STORAGE_SCHEMA_VERSION);
    expect((await s.runs.get('r-old'))?.checklist).toEqual(steps);
    await s.runs.patch('r-old', { checklist: null });
    expect((await s.runs.get('r-old'))?.checklist).toBeNull();
  });

  it("migrates a version 3 store to version 4, backfilling each grant's usage counters per UTC day from its ledger entries", async () => {
    const path = join(tempDir(), 'v3.sqlite');
    const raw = new Database(path);
    raw.pragma('journal_mode = WAL');
    for (const m of SQLITE_MIGRATIONS.filter((m) => m.version <= 3)) {
      for (const sql of m.statements) raw.exec(sql);
      raw.prepare(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 1)`).run(m.version, m.name);
    }
    raw.pragma('user_version = 3');
    const day = 86_400_000;
    const insert = raw.prepare(
      `INSERT INTO ledger (key, capability_id, capability_version, scope_id, call_id, args_hash, state, token, actor, invocation_id, run_id, grant_id, bytes, input_summary, attempts, claimed_at, updated_at)
       VALUES (?, 'cap.test', 1, 'run:1', NULL, 'h', 'succeeded', 'tok', 'agent:run-1', 'inv', '1', ?, ?, '{}', 1, ?, ?)`,
    );
    const rows: Array<[string, string | null, number, number]> = [
      ['a', 'g1', 10, 20 * day],
      ['b', 'g1', 5, 20 * day + 86_399_999],
      ['c', 'g1', 7, 21 * day],
      ['d', 'g2', 1_000_000_000_000, 20 * day + 1],
      ['e', null, 99, 20 * day],
    ];
    for (const [key, grant, bytes, at] of rows) insert.run(key, grant, bytes, at, at);
    raw.close();

    const s = storage(path);
    await s.migrate();
    expect(await s.schemaVersion()).toBe(STORAGE_SCHEMA_VERSION);
    expect(await s.grantUsage.get('g1', 20 * day)).toEqual({ grantId: 'g1', day: 20 * day, invocations: 2, bytes: 15 });
    expect(await s.grantUsage.get('g1', 21 * day)).toEqual({ grantId: 'g1', day: 21 * day, invocations: 1, bytes: 7 });
    expect(await s.grantUsage.get('g2', 20 * day)).toEqual({
      grantId: 'g2',
      day: 20 * day,
      invocations: 1,
      bytes: 1_000_000_000_000,
    });
    // the same figures the ledger count gives (what budgets were checked against before version 4)
    expect(await s.ledger.usageForGrant('g1', 20 * day, 21 * day)).toEqual({ invocations: 2, bytes: 15 });
    // counting goes on from the backfilled figures
    expect(await s.grantUsage.add('g1', 20 * day, 1, 1)).toEqual({
      grantId: 'g1',
      day: 20 * day,
      invocations: 3,
      bytes: 16,
    });
  });

  it('writes batched audit rows durably: another connection sees them once the event loop has turned, and they survive close and reopen', async () => {
    const path = join(tempDir(), 'audit.sqlite');
    const s = storage(path);
    await s.migrate();
    const row = (id: string) => ({
      id,
      seq: 0,
      at: 1,
      action: 'capability.invoke' as const,
      actor: 'agent:run-1',
      capabilityId: 'cap.read',
      invocationId: `inv-${id}`,
      runId: null,
      taskId: null,
      outcome: 'succeeded',
      approvalId: null,
      grantId: null,
      idempotencyKey: null,
      inputSummary: '{}',
      reason: null,
    });
    const committed = [s.appendAuditBatched(row('r1')), s.appendAuditBatched(row('r2'))];
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    const other = new Database(path, { readonly: true });
    try {
      expect(other.prepare('SELECT id FROM audit ORDER BY seq').all()).toEqual([{ id: 'r1' }, { id: 'r2' }]);
    } finally {
      other.close();
    }
    await Promise.all(committed);
    const pending = s.appendAuditBatched(row('r3'));
    await s.close();
    await pending;
    const reopened = storage(path);
    await reopened.migrate();
    expect((await reopened.audit.list()).map((a) => a.id)).toEqual(['r1', 'r2', 'r3']);
  });

  it('resolves each transaction of a group only after its COMMIT: another connection sees its writes by then', async () => {
    const path = join(tempDir(), 'group.sqlite');
    const s = storage(path);
    await s.migrate();
    const other = new Database(path, { readonly: true });
    try {
      const seen = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          s
            .transaction(async (tx) => {
              await tx.settings.set(`k-${i}`, i);
              await new Promise((resolve) => setTimeout(resolve, i % 3));
              return i;
            })
            .then(
              (value) =>
                (
                  other.prepare('SELECT value FROM settings WHERE key = ?').get(`k-${value}`) as
                    | { value: string }
                    | undefined
                )?.value,
            ),
        ),
      );
      expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    } finally {
      other.close();
    }
  });

  it('never hands out a committed global event sequence again, even after the newest events were deleted; a rollback leaves no trace', async () => {
    const path = join(tempDir(), 'events.sqlite');
    const s = storage(path);
    await s.migrate();
    const first = await s.events.append({ runId: 'r', type: 't', at: 1, data: null });
    await expect(
      s.transaction(async (tx) => {
        await tx.events.append({ runId: 'r', type: 't', at: 2, data: null });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const second = await s.events.append({ runId: 'r', type: 't', at: 3, data: null });
    expect(second.seq).toBe(2);
    expect(second.globalSeq).toBeGreaterThan(first.globalSeq);
    expect((await s.events.listAfter(0)).map((e) => e.at)).toEqual([1, 3]);
    const raw = new Database(path);
    raw.prepare('DELETE FROM run_events WHERE global_seq = ?').run(second.globalSeq);
    raw.close();
    const third = await s.events.append({ runId: 'other', type: 't', at: 4, data: null });
    expect(third.globalSeq).toBeGreaterThan(second.globalSeq);
  });

  it('two adapters on one file in one process, leasing in parallel, never lease the same run; an expired lease is taken over by one only', async () => {
    const path = join(tempDir(), 'leases.sqlite');
    const a = storage(path);
    const b = storage(path);
    await Promise.all([a.migrate(), b.migrate()]);
    const count = 30;
    for (let i = 0; i < count; i++)
      await a.runs.insert(runRecord(`run-${String(i).padStart(2, '0')}`, { createdAt: i }));
    const calls = Array.from({ length: count + 10 }, (_, i) =>
      (i % 2 ? a : b).runs.acquireLease(i % 2 ? 'A' : 'B', 100, 1_000),
    );
    const leased = (await Promise.all(calls)).flatMap((r) => (r ? [r.id] : []));
    expect(leased.sort()).toEqual(Array.from({ length: count }, (_, i) => `run-${String(i).padStart(2, '0')}`));
    for (const id of leased) expect(['A', 'B']).toContain((await a.runs.get(id))?.leaseOwner);

    // every lease expires at 1100 while the runs are `running`: each is taken over exactly once
    for (const id of leased) await a.runs.patch(id, { status: 'running' });
    const takeovers = await Promise.all(
      Array.from({ length: count + 10 }, (_, i) =>
        (i % 2 ? a : b).runs.acquireLease(i % 2 ? 'A2' : 'B2', 1_100, 1_000),
      ),
    );
    const taken = takeovers.flatMap((r) => (r ? [r.id] : []));
    expect(taken.sort()).toEqual(leased);
    expect(await b.runs.acquireLease('C', 1_100, 1_000)).toBeUndefined();
  });

  it('two processes on one file, leasing in parallel, never lease the same run', async () => {
    const path = join(tempDir(), 'leases.sqlite');
    const s = storage(path);
    await s.migrate();
    const count = 60;
    const ids = Array.from({ length: count }, (_, i) => `run-${String(i).padStart(2, '0')}`);
    await s.transaction(async (tx) => {
      for (const [i, id] of ids.entries()) await tx.runs.insert(runRecord(id, { createdAt: i }));
    });
    const workers = [spawnFixture('lease-worker.ts', [path, 'P1']), spawnFixture('lease-worker.ts', [path, 'P2'])];
    for (const w of workers) expect(await w.nextLine()).toBe('ready');
    for (const w of workers) {
      w.send('go');
      w.end();
    }
    const [got1, got2] = (await Promise.all(workers.map(async (w) => JSON.parse(await w.nextLine()) as string[]))) as [
      string[],
      string[],
    ];
    for (const w of workers) expect(await w.exited).toBe(0);
    expect(got1.filter((id) => got2.includes(id))).toEqual([]);
    expect([...got1, ...got2].sort()).toEqual(ids);
    for (const id of ids) expect((await s.runs.get(id))?.leaseOwner).toBe(got1.includes(id) ? 'P1' : 'P2');
  });
});
