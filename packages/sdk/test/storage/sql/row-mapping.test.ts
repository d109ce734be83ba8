/**
 * Row decoding and patch statements of the shared SQL repositories, pinned where they were made cheaper: a run row
 * decodes to exactly the record (no fork columns as fields, the same property order every time, the runtime state
 * still decoded on first read), and a patch's SQL text depends on its set of fields only (built once per set).
 */
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { StorageError } from '../../../src/storage/errors';
import { SQLITE_DIALECT } from '../../../src/storage/sqlite/sqlite-dialect';
import { applySqliteMigrations } from '../../../src/storage/sqlite/migrations';
import { sessionStatements } from '../../../src/storage/sql/session-statements';
import { sqliteExecutor } from '../../../src/storage/sqlite/sqlite-executor';
import type { Query } from '../../../src/storage/sql/query';
import type { RunRecord } from '../../../src/core/run-records';
import { runRecord } from '../run-record';

const sqlite = sessionStatements(SQLITE_DIALECT);

function store(): (query: Query<unknown>) => unknown {
  const db = new Database(':memory:');
  applySqliteMigrations(db);
  return sqliteExecutor((sql) => db.prepare(sql));
}

const FIELD_ORDER = Object.keys(runRecord('x'));

describe('run rows', () => {
  it('decode to the record as inserted, its fields in one order, without the fork columns as fields', () => {
    const run = store();
    const plain = runRecord('r1', { runtimeState: { a: [1, 2] }, abortRequested: true, budgets: { maxToolCalls: 3 } });
    const fork = runRecord('r2', { forkedFrom: { runId: 'r1', atSeq: 4 } });
    run(sqlite.runs.insert(plain));
    run(sqlite.runs.insert(fork));
    const gotPlain = run(sqlite.runs.get('r1')) as RunRecord;
    const gotFork = run(sqlite.runs.get('r2')) as RunRecord;
    expect(gotPlain).toEqual(plain);
    expect(gotFork).toEqual(fork);
    expect(Object.keys(gotPlain)).toEqual(FIELD_ORDER);
    expect(Object.keys(gotFork)).toEqual([...FIELD_ORDER, 'forkedFrom']);
    expect('forkedFromRunId' in gotFork || 'forkedAtSeq' in gotFork).toBe(false);
    expect(JSON.parse(JSON.stringify(gotFork))).toEqual(fork);
  });

  it('read prunedAt from its column when retention set it', () => {
    const decoded = sqlite.runs.get('r1');
    if (decoded.returns !== 'row') throw new Error('runs.get reads one row');
    const row = { ...rowOf(runRecord('r1')), pruned_at: 9 };
    expect(decoded.result(row)).toEqual({ ...runRecord('r1'), prunedAt: 9 });
  });

  it('decode the runtime state when it is first read: damaged text fails then, with a StorageError', () => {
    const decoded = sqlite.runs.get('r1');
    if (decoded.returns !== 'row') throw new Error('runs.get reads one row');
    const run = decoded.result({ ...rowOf(runRecord('r1')), runtime_state: '{not json' })!;
    expect(run.status).toBe('queued');
    expect(Object.keys(run)).toContain('runtimeState');
    expect(() => run.runtimeState).toThrow(StorageError);
    const ok = decoded.result({ ...rowOf(runRecord('r1')), runtime_state: '{"n":1}' })!;
    expect(ok.runtimeState).toEqual({ n: 1 });
    ok.runtimeState = { n: 2 };
    expect(ok.runtimeState).toEqual({ n: 2 });
  });
});

describe('patch statements', () => {
  it('make the very same SQL text for the same fields, whatever their order, and bind each value encoded', () => {
    const a = sqlite.runs.patch('r1', { status: 'running', usage: runRecord('r').usage, abortRequested: true }, 'w');
    const b = sqlite.runs.patch('r1', { abortRequested: false, status: 'waiting', usage: runRecord('r').usage }, 'w');
    expect(a.sql).toBe(b.sql);
    expect(a.sql).toBe(
      'UPDATE runs SET "abort_requested" = @v_abortRequested, "status" = @v_status, "usage" = @v_usage WHERE id = @id AND lease_owner = @expectLeaseOwner RETURNING *',
    );
    expect(b.params).toEqual({
      id: 'r1',
      expectLeaseOwner: 'w',
      v_abortRequested: 0,
      v_status: 'waiting',
      v_usage: JSON.stringify(runRecord('r').usage),
    });
  });

  it('skip undefined fields, the key and unknown fields; a patch of nothing assigns the key to itself', () => {
    const q = sqlite.runs.patch('r1', { id: 'other', status: undefined, nope: 1 } as never);
    expect(q.sql).toBe('UPDATE runs SET "id" = "id" WHERE id = @id RETURNING *');
    expect(q.params).toEqual({ id: 'r1' });
    const ledger = sqlite.ledger.compareAndSet('k', 't', { state: 'succeeded', error: null });
    expect(ledger.sql).toBe(
      'UPDATE ledger SET "error" = @v_error, "state" = @v_state WHERE key = @key AND token = @expectedToken',
    );
  });

  it('update the stored row', () => {
    const run = store();
    run(sqlite.runs.insert(runRecord('r1', { leaseOwner: 'w' })));
    const patched = run(sqlite.runs.patch('r1', { step: 'finalize', runtimeState: { k: 'v' } }, 'w')) as RunRecord;
    expect(patched).toEqual(runRecord('r1', { leaseOwner: 'w', step: 'finalize', runtimeState: { k: 'v' } }));
    expect(run(sqlite.runs.patch('r1', { step: 'drive' }, 'someone else'))).toBeUndefined();
  });
});

/** The row a run is stored as (every column, as SQLite returns it). */
function rowOf(record: RunRecord): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(record))
    row[field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] =
      typeof value === 'boolean'
        ? value
          ? 1
          : 0
        : typeof value === 'object' && value !== null
          ? JSON.stringify(value)
          : value;
  row.forked_from_run_id = null;
  row.forked_at_seq = null;
  row.pruned_at = null;
  return row;
}
