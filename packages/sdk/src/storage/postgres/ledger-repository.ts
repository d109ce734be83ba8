import type { LedgerEntry } from '../../core/records';
import type { LedgerRepository } from '../../ports/storage-adapter';
import { TableMapping, assignments, type Row } from '../sqlite/table-mapping';
import type { PgQueries } from './sql-queries';

const LEDGER = new TableMapping<LedgerEntry>('"{schema}".ledger', {
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

// A claim is this one statement: the primary key and the unique (scope_id, call_id) index decide between
// concurrent claimers in any number of processes (the loser waits for the winner's commit, then inserts nothing).
const LEDGER_INSERT_SQL = `${LEDGER.insertSql} ON CONFLICT DO NOTHING`;

const LEDGER_BY_RUN_SQL = `SELECT * FROM "{schema}".ledger WHERE run_id = @runId ORDER BY claimed_at, key LIMIT @limit`;

const LEDGER_BY_CALL_SQL = `SELECT * FROM "{schema}".ledger WHERE scope_id = @scopeId AND call_id = @callId`;

const USAGE_FOR_GRANT_SQL = `SELECT COUNT(*) AS invocations, COALESCE(SUM(bytes), 0) AS bytes FROM "{schema}".ledger WHERE grant_id = @grantId AND claimed_at >= @from AND claimed_at < @to`;

const DELETE_SETTLED_SQL = `DELETE FROM "{schema}".ledger WHERE state = ANY(@states) AND state NOT IN ('running', 'unknown') AND settled_at IS NOT NULL AND settled_at < @settledBefore`;

/**
 * The ledger repository: one row per idempotency key. A compare-and-set is one `UPDATE … WHERE token = …`,
 * which READ COMMITTED re-checks on the newest row version, so two executors never both win.
 * @internal
 */
export function pgLedgerRepository(q: PgQueries): LedgerRepository {
  const { all, one, exec, byId, limit, cas } = q;
  return {
    get: (key) => byId(LEDGER, 'key', key),
    findByCall: async (scopeId, callId) => {
      const row = await one(LEDGER_BY_CALL_SQL, { scopeId, callId });
      return row ? LEDGER.fromRow(row) : undefined;
    },
    insert: async (entry) => (await exec(LEDGER_INSERT_SQL, LEDGER.toParams(entry))) === 1,
    compareAndSet: async (key, expectedToken, patch, expectedStates) => {
      const params: Row = { key, expectedToken };
      const { sets, signature } = assignments(LEDGER, patch, 'key', params);
      if (expectedStates) params.expectedStates = [...expectedStates];
      const sql = cas(`pg|ledger|${signature}|${expectedStates ? 's' : ''}`, () => {
        const where = `key = @key AND token = @expectedToken${expectedStates ? ' AND state = ANY(@expectedStates)' : ''}`;
        return `UPDATE "{schema}".ledger SET ${sets} WHERE ${where}`;
      });
      return (await exec(sql, params)) === 1;
    },
    listByState: async (list, options = {}) => {
      const params: Row = { states: [...list], limit: limit(options.limit) };
      const before = options.claimedBefore !== undefined;
      if (before) params.claimedBefore = options.claimedBefore;
      const where = `state = ANY(@states)${before ? ' AND claimed_at < @claimedBefore' : ''}`;
      const rows = await all(
        `SELECT * FROM "{schema}".ledger WHERE ${where} ORDER BY claimed_at, key LIMIT @limit`,
        params,
      );
      return rows.map((r) => LEDGER.fromRow(r));
    },
    listByRun: async (runId, options = {}) => {
      const rows = await all(LEDGER_BY_RUN_SQL, { runId, limit: limit(options.limit ?? 100) });
      return rows.map((r) => LEDGER.fromRow(r));
    },
    usageForGrant: async (grantId, from, to) => {
      const row = await one(USAGE_FOR_GRANT_SQL, { grantId, from, to });
      return { invocations: Number(row?.invocations ?? 0), bytes: Number(row?.bytes ?? 0) };
    },
    deleteSettledBefore: (settledBefore, list) => exec(DELETE_SETTLED_SQL, { states: [...list], settledBefore }),
  };
}
