import type { LedgerEntry } from '../../core/records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { SqlQueries, SyncRepository } from './sql-queries';
import { TableMapping, assignments, type Row } from './table-mapping';

const LEDGER = new TableMapping<LedgerEntry>('ledger', {
  key: 'value',
  capabilityId: 'value',
  capabilityVersion: 'value',
  scopeId: 'value',
  callId: 'value',
  argsHash: 'value',
  state: 'value',
  token: 'value',
  actor: 'value',
  invocationId: 'value',
  runId: 'value',
  taskId: 'value',
  approvalId: 'value',
  grantId: 'value',
  bytes: 'value',
  output: 'jsonOrNull',
  error: 'jsonOrNull',
  inputSummary: 'value',
  attempts: 'value',
  claimedAt: 'value',
  updatedAt: 'value',
  settledAt: 'value',
});

const LEDGER_INSERT_SQL = `${LEDGER.insertSql} ON CONFLICT DO NOTHING`;

const LEDGER_BY_CALL_SQL = `SELECT * FROM ledger WHERE scope_id = @scopeId AND call_id = @callId`;

const LEDGER_BY_RUN_SQL = `SELECT * FROM ledger WHERE run_id = @runId ORDER BY claimed_at, key LIMIT @limit`;

const USAGE_FOR_GRANT_SQL = `SELECT COUNT(*) AS invocations, COALESCE(SUM(bytes), 0) AS bytes FROM ledger WHERE grant_id = @grantId AND claimed_at >= @from AND claimed_at < @to`;

const DELETE_SETTLED_SQL = `DELETE FROM ledger WHERE state IN (SELECT value FROM json_each(@states)) AND state NOT IN ('running', 'unknown') AND settled_at IS NOT NULL AND settled_at < @settledBefore`;

/** The ledger repository: one row per idempotency key. Synchronous, over one connection's prepared statements. @internal */
export function sqliteLedgerRepository(q: SqlQueries): SyncRepository<StorageSession['ledger']> {
  const { all, one, exec, byId, states, limit, cas } = q;
  return {
    get: (key) => byId(LEDGER, 'key', key),
    findByCall: (scopeId, callId) => {
      const row = one(LEDGER_BY_CALL_SQL, { scopeId, callId });
      return row ? LEDGER.fromRow(row) : undefined;
    },
    insert: (entry) => exec(LEDGER_INSERT_SQL, LEDGER.toParams(entry)) === 1,
    compareAndSet: (key, expectedToken, patch, expectedStates) => {
      const params: Row = { key, expectedToken };
      const { sets, signature } = assignments(LEDGER, patch, 'key', params);
      if (expectedStates) params.expectedStates = states(expectedStates);
      const sql = cas(`ledger|${signature}|${expectedStates ? 's' : ''}`, () => {
        const where = `key = @key AND token = @expectedToken${expectedStates ? ` AND state IN (SELECT value FROM json_each(@expectedStates))` : ''}`;
        return `UPDATE ledger SET ${sets} WHERE ${where}`;
      });
      return exec(sql, params) === 1;
    },
    listByState: (list, options = {}) => {
      const params: Row = { states: states(list), limit: limit(options.limit) };
      const before = options.claimedBefore !== undefined;
      if (before) params.claimedBefore = options.claimedBefore;
      const where = `state IN (SELECT value FROM json_each(@states))${before ? ` AND claimed_at < @claimedBefore` : ''}`;
      return all(`SELECT * FROM ledger WHERE ${where} ORDER BY claimed_at, key LIMIT @limit`, params).map((r) =>
        LEDGER.fromRow(r),
      );
    },
    listByRun: (runId, options = {}) =>
      all(LEDGER_BY_RUN_SQL, { runId, limit: limit(options.limit ?? 100) }).map((r) => LEDGER.fromRow(r)),
    usageForGrant: (grantId, from, to) => {
      const row = one(USAGE_FOR_GRANT_SQL, { grantId, from, to });
      return { invocations: Number(row?.invocations ?? 0), bytes: Number(row?.bytes ?? 0) };
    },
    deleteSettledBefore: (settledBefore, list) => exec(DELETE_SETTLED_SQL, { states: states(list), settledBefore }),
  };
}
