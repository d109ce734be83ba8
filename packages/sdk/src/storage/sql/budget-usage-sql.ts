/**
 * The spending counters and reservations tables for both SQL stores.
 * @packageDocumentation
 */
import type { BudgetCounters, BudgetReservation } from '../../core/budget-records';
import type { BudgetCounterKey, BudgetUsageRepository } from '../../ports/storage-adapter';
import type { SqlDialect } from './dialect';
import { type EqualityFilters, filteredList } from './filters';
import { count, exactlyOne, limitParam, perDialect, row, rows, SqlTexts, type Statements } from './query';
import { type ColumnSpec, type Row, TableMapping } from './table-mapping';

const RESERVATION_FIELDS: ColumnSpec<BudgetReservation> = {
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
};

/** The reservations list's filters. */
const RESERVATION_FILTERS: EqualityFilters = [
  ['state', 'state'],
  ['runId', 'run_id'],
];

/** The counters of (`subject`, `period`, `start`) from a counters row (zero when there is none). @internal */
export function countersOf(
  subject: string,
  period: BudgetCounters['period'],
  start: number,
  found: Row | undefined,
): BudgetCounters {
  return {
    subject,
    period,
    start,
    runs: Number(found?.runs ?? 0),
    modelCalls: Number(found?.model_calls ?? 0),
    tokens: Number(found?.tokens ?? 0),
    costUsd: Number(found?.cost_usd ?? 0),
  };
}

/** The parameters of `keys` as rows `i` of a multi-row statement: `@subject0, @period0, @start0, …`. */
function keyParams(keys: ReadonlyArray<BudgetCounterKey>, params: Row): Row {
  keys.forEach((k, i) => {
    params[`subject${i}`] = k.subject;
    params[`period${i}`] = k.period;
    params[`start${i}`] = k.start;
  });
  return params;
}

/** The counters of each of `keys`, in their order, from the rows a multi-row statement returned (in any order). */
function countersInOrder(keys: ReadonlyArray<BudgetCounterKey>, found: Row[]): BudgetCounters[] {
  const byKey = new Map(found.map((r) => [`${String(r.period)} ${Number(r.start)} ${String(r.subject)}`, r]));
  return keys.map((k) => countersOf(k.subject, k.period, k.start, byKey.get(`${k.period} ${k.start} ${k.subject}`)));
}

/**
 * The spending repository's statements in dialect `d`. Where reads lock ({@link SqlDialect.lockReads}), the check
 * reads the counters with their row locked (created at zero when the period has none yet — so the first
 * reservations of a subject never seen before lock a row too): a concurrent reservation in another process waits
 * for this transaction and then reads its charge. SQLite's transactions hold the write lock from their start.
 * @internal
 */
export const budgetUsageStatements = perDialect((d: SqlDialect): Statements<BudgetUsageRepository> => {
  const usage = d.table('budget_usage');
  const table = d.table('budget_reservations');
  const RESERVATIONS = new TableMapping<BudgetReservation>(table, RESERVATION_FIELDS);
  const counters = 'RETURNING runs, model_calls, tokens, cost_usd';
  const getSql = d.lockReads
    ? `INSERT INTO ${usage} AS u (subject, period, start, runs, model_calls, tokens, cost_usd)
  VALUES (@subject, @period, @start, 0, 0, 0, 0)
  ON CONFLICT (subject, period, start) DO UPDATE SET runs = u.runs
  ${counters}`
    : `SELECT runs, model_calls, tokens, cost_usd FROM ${usage} WHERE subject = @subject AND period = @period AND start = @start`;
  const addSql = `INSERT INTO ${usage} AS u (subject, period, start, runs, model_calls, tokens, cost_usd)
  VALUES (@subject, @period, @start, @runs, @modelCalls, @tokens, @costUsd)
  ON CONFLICT (subject, period, start) DO UPDATE SET runs = u.runs + excluded.runs,
    model_calls = u.model_calls + excluded.model_calls, tokens = u.tokens + excluded.tokens,
    cost_usd = u.cost_usd + excluded.cost_usd
  ${counters}`;
  const keyed = 'RETURNING subject, period, start, runs, model_calls, tokens, cost_usd';
  const values = (n: number, amounts: string) =>
    Array.from({ length: n }, (_, i) => `(@subject${i}, @period${i}, @start${i}, ${amounts})`).join(', ');
  const texts = new SqlTexts();
  // The rows of several counters in one statement, in the order of the keys (PostgreSQL inserts, and so locks,
  // the rows of a VALUES list in its order, as one `get` after the other would).
  const getEachSql = (n: number) =>
    texts.get(`get|${n}`, () =>
      d.lockReads
        ? `INSERT INTO ${usage} AS u (subject, period, start, runs, model_calls, tokens, cost_usd)
  VALUES ${values(n, '0, 0, 0, 0')}
  ON CONFLICT (subject, period, start) DO UPDATE SET runs = u.runs
  ${keyed}`
        : `SELECT subject, period, start, runs, model_calls, tokens, cost_usd FROM ${usage}
  WHERE ${Array.from({ length: n }, (_, i) => `(subject = @subject${i} AND period = @period${i} AND start = @start${i})`).join(' OR ')}`,
    );
  const addEachSql = (n: number) =>
    texts.get(
      `add|${n}`,
      () => `INSERT INTO ${usage} AS u (subject, period, start, runs, model_calls, tokens, cost_usd)
  VALUES ${values(n, '@runs, @modelCalls, @tokens, @costUsd')}
  ON CONFLICT (subject, period, start) DO UPDATE SET runs = u.runs + excluded.runs,
    model_calls = u.model_calls + excluded.model_calls, tokens = u.tokens + excluded.tokens,
    cost_usd = u.cost_usd + excluded.cost_usd
  ${keyed}`,
    );
  const reserveSql = `${RESERVATIONS.insertSql} ON CONFLICT (key) DO NOTHING`;
  const updateSql = `UPDATE ${table} SET state = @state, runs = @runs, model_calls = @modelCalls, tokens = @tokens,
  cost_usd = @costUsd, updated_at = @updatedAt WHERE key = @key AND state = @expectedState`;
  const list = filteredList(RESERVATIONS, {
    filters: RESERVATION_FILTERS,
    nullIsAny: true,
    order: `created_at, ${d.byCodePoint('key')}`,
    limited: true,
  });
  return {
    get: (subject, period, start) =>
      row(getSql, { subject, period, start }, (r) => countersOf(subject, period, start, r)),
    add: (subject, period, start, delta) =>
      row(
        addSql,
        {
          subject,
          period,
          start,
          runs: delta.runs,
          modelCalls: delta.modelCalls,
          tokens: delta.tokens,
          costUsd: delta.costUsd,
        },
        (r) => countersOf(subject, period, start, r),
      ),
    getEach: (keys) => rows(getEachSql(keys.length), keyParams(keys, {}), (found) => countersInOrder(keys, found)),
    addEach: (keys, delta) =>
      rows(
        addEachSql(keys.length),
        keyParams(keys, {
          runs: delta.runs,
          modelCalls: delta.modelCalls,
          tokens: delta.tokens,
          costUsd: delta.costUsd,
        }),
        (found) => countersInOrder(keys, found),
      ),
    reservation: (key) =>
      row(RESERVATIONS.selectBy('key'), { id: key }, (r) => (r ? RESERVATIONS.fromRow(r) : undefined)),
    reserve: (record) => count(reserveSql, RESERVATIONS.toParams(record), exactlyOne),
    updateReservation: (key, expectedState, patch) => count(updateSql, { key, expectedState, ...patch }, exactlyOne),
    reservations: (filter = {}) => list(filter, { limit: limitParam(filter.limit, d.noLimit) }),
  };
});
