/**
 * The shared statements in both dialects: the same SQL but where the dialect differs (table names, list
 * parameters, booleans, SKIP LOCKED, NOTIFY, locking reads), and the pure rules they apply.
 */
import { describe, expect, it } from 'vitest';
import { POSTGRES_DIALECT, POSTGRES_TRANSACTION_DIALECT } from '../../../src/storage/postgres/postgres-dialect';
import { SQLITE_DIALECT } from '../../../src/storage/sqlite/sqlite-dialect';
import { sessionStatements } from '../../../src/storage/sql/session-statements';
import { AUDIT_INSERT_FIELDS } from '../../../src/storage/sql/audit-sql';
import { wakesWorkers } from '../../../src/storage/sql/run-sql';
import { runRecord } from '../run-record';

const sqlite = sessionStatements(SQLITE_DIALECT);
const pg = sessionStatements(POSTGRES_DIALECT);
const pgTx = sessionStatements(POSTGRES_TRANSACTION_DIALECT);

describe('shared statements', () => {
  it('are made once per dialect, with the same methods in every dialect', () => {
    expect(sessionStatements(SQLITE_DIALECT)).toBe(sqlite);
    for (const name of Object.keys(sqlite) as Array<keyof typeof sqlite>)
      expect(Object.keys(pg[name]), name).toEqual(Object.keys(sqlite[name]));
  });

  it('name tables plainly on SQLite and by the {schema} marker on PostgreSQL', () => {
    expect(sqlite.runs.get('r1')).toMatchObject({ sql: 'SELECT * FROM runs WHERE "id" = @id', params: { id: 'r1' } });
    expect(pg.runs.get('r1').sql).toBe('SELECT * FROM "{schema}".runs WHERE "id" = @id');
  });

  it('lease the oldest runnable run; only PostgreSQL skips rows other workers locked', () => {
    const lite = sqlite.runs.acquireLease('w', 10, 5);
    const post = pg.runs.acquireLease('w', 10, 5);
    expect(lite.params).toEqual({ owner: 'w', now: 10, expiresAt: 15 });
    expect(lite.sql).toContain('ORDER BY created_at, id');
    expect(lite.sql).toContain('wake_requested = 1');
    expect(lite.sql).not.toContain('SKIP LOCKED');
    expect(post.sql).toContain('FOR UPDATE SKIP LOCKED');
    expect(post.sql).toContain('OR wake_requested OR abort_requested');
  });

  it('notify other processes on PostgreSQL only, and only for changes that may make a run runnable', () => {
    expect(sqlite.runs.insert(runRecord('r1')).sql).not.toContain('pg_notify');
    expect(pg.runs.insert(runRecord('r1')).sql).toContain(`RETURNING pg_notify('{channel}', 'runs')`);
    expect(pg.runs.patch('r1', { step: 'finalize' }).sql).not.toContain('pg_notify');
    expect(pg.runs.patch('r1', { wakeRequested: true }).sql).toContain('pg_notify');
    expect(sqlite.runs.patch('r1', { wakeRequested: true }).sql).not.toContain('pg_notify');
    expect(pg.runs.releaseLease('r1', 'w').sql).toContain('pg_notify');
  });

  it('break ties by id or key in code-point order: SQLite BINARY as it is, PostgreSQL in the C collation', () => {
    expect(sqlite.ledger.listByRun('r').sql).toContain('ORDER BY claimed_at, key LIMIT');
    expect(pg.ledger.listByRun('r').sql).toContain('ORDER BY claimed_at, key COLLATE "C" LIMIT');
    expect(pg.runs.acquireLease('w', 1, 1).sql).toContain('ORDER BY created_at, id COLLATE "C"');
    expect(pg.inbox.listQueued('r').sql).toContain('ORDER BY created_at, id COLLATE "C"');
    expect(pg.policies.listByKind('k').sql).toContain('ORDER BY created_at, id COLLATE "C"');
  });

  it('bind lists as the dialect reads them: JSON text with json_each on SQLite, an array with ANY on PostgreSQL', () => {
    const lite = sqlite.ledger.listByState(['running', 'unknown']);
    const post = pg.ledger.listByState(['running', 'unknown']);
    expect(lite.sql).toContain('state IN (SELECT value FROM json_each(@states))');
    expect(lite.params.states).toBe('["running","unknown"]');
    expect(post.sql).toContain('state = ANY(@states)');
    expect(post.params.states).toEqual(['running', 'unknown']);
    expect(lite.params.limit).toBe(-1);
    expect(post.params.limit).toBeNull();
  });

  it('read budget counters with their row locked only inside a PostgreSQL transaction', () => {
    expect(sqlite.budgetUsage.get('user:a', 'day', 0).sql).toMatch(/^SELECT/);
    expect(pg.budgetUsage.get('user:a', 'day', 0).sql).toMatch(/^SELECT/);
    expect(pgTx.budgetUsage.get('user:a', 'day', 0).sql).toMatch(/^INSERT INTO "\{schema\}".budget_usage AS u/);
    expect(pg.grantUsage.get('g', 0).sql).toMatch(/^SELECT/);
    expect(pgTx.grantUsage.get('g', 0).sql).toMatch(/^INSERT INTO "\{schema\}".grant_usage AS u/);
  });

  it('list with a condition for each given filter only, the same text for the same filters', () => {
    const a = sqlite.runs.list({ status: 'queued', limit: 2 });
    expect(a.sql).toBe('SELECT * FROM runs WHERE status = @status ORDER BY created_at DESC, id DESC LIMIT @limit');
    expect(a.params).toEqual({ status: 'queued', limit: 2 });
    expect(sqlite.runs.list({ status: 'failed' }).sql).toBe(a.sql);
    expect(pg.approvals.list().sql).toBe(
      'SELECT * FROM "{schema}".approvals ORDER BY requested_at DESC, id COLLATE "C" DESC LIMIT @limit',
    );
    expect(pg.audit.list({ action: 'capability.invoke' }).sql).toBe(
      'SELECT * FROM "{schema}".audit WHERE seq > @after AND action = @action ORDER BY seq LIMIT @limit',
    );
  });

  it('decode rows into records: booleans from 0/1 (SQLite) and true/false (PostgreSQL), JSON from text', () => {
    const stored = { ...runRecord('r1'), abort_requested: 1, wake_requested: false, budgets: '{"maxToolCalls":3}' };
    const query = sqlite.runs.get('r1');
    if (query.returns !== 'row') throw new Error('runs.get reads one row');
    const run = query.result({
      ...Object.fromEntries(
        Object.entries(runRecord('r1')).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]),
      ),
      ...stored,
      usage: JSON.stringify(runRecord('r1').usage),
    });
    expect(run?.abortRequested).toBe(true);
    expect(run?.wakeRequested).toBe(false);
    expect(run?.budgets).toEqual({ maxToolCalls: 3 });
  });
});

describe('audit inserts', () => {
  it('write every field but seq, in the order SQLite binds positionally and PostgreSQL unnests', () => {
    expect(AUDIT_INSERT_FIELDS.map((c) => c.field)).toEqual([
      'id',
      'at',
      'action',
      'actor',
      'capabilityId',
      'invocationId',
      'runId',
      'taskId',
      'outcome',
      'approvalId',
      'grantId',
      'idempotencyKey',
      'inputSummary',
      'reason',
      'prevHash',
      'hash',
    ]);
  });
});

describe('wakesWorkers', () => {
  it('is true for a patch that may make a run runnable, false for step-by-step progress', () => {
    expect(wakesWorkers({ wakeRequested: true })).toBe(true);
    expect(wakesWorkers({ abortRequested: true })).toBe(true);
    expect(wakesWorkers({ notBefore: 5 })).toBe(true);
    expect(wakesWorkers({ status: 'queued' })).toBe(true);
    expect(wakesWorkers({ leaseOwner: null })).toBe(true);
    expect(wakesWorkers({ step: 'finalize', usage: runRecord('r').usage })).toBe(false);
    expect(wakesWorkers({ notBefore: null, wakeRequested: false, status: 'running' })).toBe(false);
  });
});
