/**
 * The ledger table for both SQL stores: one row per idempotency key.
 * @packageDocumentation
 */
import type { LedgerEntry } from '../../core/records';
import type { LedgerRepository } from '../../ports/storage-adapter';
import type { SqlDialect } from './dialect';
import { count, exactlyOne, limitParam, perDialect, row, rows, SqlTexts, type Statements } from './query';
import { assignments, type ColumnSpec, type Row, TableMapping } from './table-mapping';

const LEDGER_FIELDS: ColumnSpec<LedgerEntry> = {
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
};

/**
 * The ledger repository's statements in dialect `d`. A claim is one `INSERT … ON CONFLICT DO NOTHING`: the primary
 * key and the unique (scope_id, call_id) index decide between concurrent claimers in any number of processes. A
 * compare-and-set is one `UPDATE … WHERE token = …`, which PostgreSQL's READ COMMITTED re-checks on the newest row
 * version, so two executors never both win.
 * @internal
 */
export const ledgerStatements = perDialect((d: SqlDialect): Statements<LedgerRepository> => {
  const table = d.table('ledger');
  const LEDGER = new TableMapping<LedgerEntry>(table, LEDGER_FIELDS);
  const insertSql = `${LEDGER.insertSql} ON CONFLICT DO NOTHING`;
  const byCallSql = `SELECT * FROM ${table} WHERE scope_id = @scopeId AND call_id = @callId`;
  const byRunSql = `SELECT * FROM ${table} WHERE run_id = @runId ORDER BY claimed_at, ${d.byCodePoint('key')} LIMIT @limit`;
  const usageSql = `SELECT COUNT(*) AS invocations, COALESCE(SUM(bytes), 0) AS bytes FROM ${table} WHERE grant_id = @grantId AND claimed_at >= @from AND claimed_at < @to`;
  const deleteSql = `DELETE FROM ${table} WHERE ${d.inList('state', 'states')} AND state NOT IN ('running', 'unknown') AND settled_at IS NOT NULL AND settled_at < @settledBefore`;
  const texts = new SqlTexts();
  const decode = (r: Row | undefined) => (r ? LEDGER.fromRow(r) : undefined);
  const decodeAll = (found: Row[]) => found.map((r) => LEDGER.fromRow(r));
  return {
    get: (key) => row(LEDGER.selectBy('key'), { id: key }, decode),
    findByCall: (scopeId, callId) => row(byCallSql, { scopeId, callId }, decode),
    insert: (entry) => count(insertSql, LEDGER.toParams(entry), exactlyOne),
    compareAndSet: (key, expectedToken, patch, expectedStates) => {
      const params: Row = { key, expectedToken };
      const set = assignments(LEDGER, patch, 'key', params);
      if (expectedStates) params.expectedStates = d.list(expectedStates);
      const sql = texts.get(`cas|${set.signature}|${expectedStates ? 's' : ''}`, () => {
        const states = expectedStates ? ` AND ${d.inList('state', 'expectedStates')}` : '';
        return `UPDATE ${table} SET ${set.sets()} WHERE key = @key AND token = @expectedToken${states}`;
      });
      return count(sql, params, exactlyOne);
    },
    listByState: (states, options = {}) => {
      const params: Row = { states: d.list(states), limit: limitParam(options.limit, d.noLimit) };
      const before = options.claimedBefore !== undefined;
      if (before) params.claimedBefore = options.claimedBefore;
      const sql = texts.get(
        `state|${before ? 'b' : ''}`,
        () =>
          `SELECT * FROM ${table} WHERE ${d.inList('state', 'states')}${before ? ' AND claimed_at < @claimedBefore' : ''} ORDER BY claimed_at, ${d.byCodePoint('key')} LIMIT @limit`,
      );
      return rows(sql, params, decodeAll);
    },
    listByRun: (runId, options = {}) =>
      rows(byRunSql, { runId, limit: limitParam(options.limit ?? 100, d.noLimit) }, decodeAll),
    usageForGrant: (grantId, from, to) =>
      row(usageSql, { grantId, from, to }, (r) => ({
        invocations: Number(r?.invocations ?? 0),
        bytes: Number(r?.bytes ?? 0),
      })),
    deleteSettledBefore: (settledBefore, states) =>
      count(deleteSql, { states: d.list(states), settledBefore }, (n) => n),
  };
});
