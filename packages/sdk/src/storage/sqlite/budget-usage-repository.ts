import type { BudgetCounters, BudgetReservation } from '../../core/budget-records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { SqlQueries, SyncRepository } from './sql-queries';
import { TableMapping } from './table-mapping';

const RESERVATIONS = new TableMapping<BudgetReservation>('budget_reservations', {
  key: 'value',
  subject: 'value',
  runId: 'value',
  state: 'value',
  day: 'value',
  month: 'value',
  runs: 'value',
  modelCalls: 'value',
  tokens: 'value',
  costUsd: 'value',
  createdAt: 'value',
  updatedAt: 'value',
});

const USAGE_GET_SQL = `SELECT runs, model_calls, tokens, cost_usd FROM budget_usage WHERE subject = @subject AND period = @period AND start = @start`;

const USAGE_ADD_SQL = `INSERT INTO budget_usage (subject, period, start, runs, model_calls, tokens, cost_usd)
  VALUES (@subject, @period, @start, @runs, @modelCalls, @tokens, @costUsd)
  ON CONFLICT (subject, period, start) DO UPDATE SET runs = budget_usage.runs + excluded.runs,
    model_calls = budget_usage.model_calls + excluded.model_calls, tokens = budget_usage.tokens + excluded.tokens,
    cost_usd = budget_usage.cost_usd + excluded.cost_usd
  RETURNING runs, model_calls, tokens, cost_usd`;

const RESERVE_SQL = `INSERT INTO budget_reservations (key, subject, run_id, state, day, month, runs, model_calls, tokens, cost_usd, created_at, updated_at)
  VALUES (@key, @subject, @runId, @state, @day, @month, @runs, @modelCalls, @tokens, @costUsd, @createdAt, @updatedAt)
  ON CONFLICT (key) DO NOTHING`;

const UPDATE_SQL = `UPDATE budget_reservations SET state = @state, runs = @runs, model_calls = @modelCalls, tokens = @tokens,
  cost_usd = @costUsd, updated_at = @updatedAt WHERE key = @key AND state = @expectedState`;

const LIST_SQL = `SELECT * FROM budget_reservations WHERE (@state IS NULL OR state = @state) AND (@runId IS NULL OR run_id = @runId)
  ORDER BY created_at, key LIMIT @limit`;

/** Counters from a row (zero when there is none). @internal */
export function countersOf(
  subject: string,
  period: BudgetCounters['period'],
  start: number,
  row: Record<string, unknown> | undefined,
): BudgetCounters {
  return {
    subject,
    period,
    start,
    runs: Number(row?.runs ?? 0),
    modelCalls: Number(row?.model_calls ?? 0),
    tokens: Number(row?.tokens ?? 0),
    costUsd: Number(row?.cost_usd ?? 0),
  };
}

/**
 * The spending counters and reservations repository. Synchronous, over one connection's prepared statements; a
 * transaction holds SQLite's write lock from its start (`BEGIN IMMEDIATE`), so a check and a charge in one are
 * atomic across processes. @internal
 */
export function sqliteBudgetUsageRepository(q: SqlQueries): SyncRepository<StorageSession['budgetUsage']> {
  const { one, all, exec, byId } = q;
  return {
    get: (subject, period, start) => countersOf(subject, period, start, one(USAGE_GET_SQL, { subject, period, start })),
    add: (subject, period, start, d) =>
      countersOf(
        subject,
        period,
        start,
        one(USAGE_ADD_SQL, {
          subject,
          period,
          start,
          runs: d.runs,
          modelCalls: d.modelCalls,
          tokens: d.tokens,
          costUsd: d.costUsd,
        }),
      ),
    reservation: (key) => byId(RESERVATIONS, 'key', key),
    reserve: (record) => exec(RESERVE_SQL, RESERVATIONS.toParams(record)) === 1,
    updateReservation: (key, expectedState, patch) => exec(UPDATE_SQL, { key, expectedState, ...patch }) === 1,
    reservations: (filter = {}) =>
      all(LIST_SQL, { state: filter.state ?? null, runId: filter.runId ?? null, limit: q.limit(filter.limit) }).map(
        (r) => RESERVATIONS.fromRow(r),
      ),
  };
}
