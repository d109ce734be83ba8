import type { BudgetReservation } from '../../core/budget-records';
import type { BudgetUsageRepository } from '../../ports/storage-adapter';
import { countersOf } from '../sqlite/budget-usage-repository';
import { TableMapping } from '../sqlite/table-mapping';
import type { PgQueries } from './sql-queries';

const RESERVATIONS = new TableMapping<BudgetReservation>('"{schema}".budget_reservations', {
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

const USAGE_GET_SQL = `SELECT runs, model_calls, tokens, cost_usd FROM "{schema}".budget_usage WHERE subject = @subject AND period = @period AND start = @start`;

/**
 * Inside a transaction the check reads the counters with their row locked (created at zero when the period has
 * none yet — so the first reservations of a subject never seen before lock a row too), so a concurrent reservation
 * in another process waits for this transaction and then reads its charge: check and charge stay atomic across
 * processes under READ COMMITTED.
 */
const USAGE_LOCK_SQL = `INSERT INTO "{schema}".budget_usage AS u (subject, period, start, runs, model_calls, tokens, cost_usd)
  VALUES (@subject, @period, @start, 0, 0, 0, 0)
  ON CONFLICT (subject, period, start) DO UPDATE SET runs = u.runs
  RETURNING runs, model_calls, tokens, cost_usd`;

const USAGE_ADD_SQL = `INSERT INTO "{schema}".budget_usage AS u (subject, period, start, runs, model_calls, tokens, cost_usd)
  VALUES (@subject, @period, @start, @runs, @modelCalls, @tokens, @costUsd)
  ON CONFLICT (subject, period, start) DO UPDATE SET runs = u.runs + excluded.runs,
    model_calls = u.model_calls + excluded.model_calls, tokens = u.tokens + excluded.tokens,
    cost_usd = u.cost_usd + excluded.cost_usd
  RETURNING runs, model_calls, tokens, cost_usd`;

const RESERVE_SQL = `INSERT INTO "{schema}".budget_reservations (key, subject, run_id, state, day, month, runs, model_calls, tokens, cost_usd, created_at, updated_at)
  VALUES (@key, @subject, @runId, @state, @day, @month, @runs, @modelCalls, @tokens, @costUsd, @createdAt, @updatedAt)
  ON CONFLICT (key) DO NOTHING`;

const UPDATE_SQL = `UPDATE "{schema}".budget_reservations SET state = @state, runs = @runs, model_calls = @modelCalls, tokens = @tokens,
  cost_usd = @costUsd, updated_at = @updatedAt WHERE key = @key AND state = @expectedState`;

const LIST_SQL = `SELECT * FROM "{schema}".budget_reservations WHERE (@state::text IS NULL OR state = @state) AND (@runId::text IS NULL OR run_id = @runId)
  ORDER BY created_at, key LIMIT @limit`;

/** The spending counters and reservations repository. @internal */
export function pgBudgetUsageRepository(q: PgQueries): BudgetUsageRepository {
  const { one, all, exec, byId } = q;
  return {
    get: async (subject, period, start) =>
      countersOf(
        subject,
        period,
        start,
        await one(q.inTransaction ? USAGE_LOCK_SQL : USAGE_GET_SQL, { subject, period, start }),
      ),
    add: async (subject, period, start, d) =>
      countersOf(
        subject,
        period,
        start,
        await one(USAGE_ADD_SQL, {
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
    reserve: async (record) => (await exec(RESERVE_SQL, RESERVATIONS.toParams(record))) === 1,
    updateReservation: async (key, expectedState, patch) =>
      (await exec(UPDATE_SQL, { key, expectedState, ...patch })) === 1,
    reservations: async (filter = {}) =>
      (
        await all(LIST_SQL, { state: filter.state ?? null, runId: filter.runId ?? null, limit: q.limit(filter.limit) })
      ).map((r) => RESERVATIONS.fromRow(r)),
  };
}
