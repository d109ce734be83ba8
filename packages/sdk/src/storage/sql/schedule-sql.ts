/**
 * The schedules and schedule ticks tables for both SQL stores (the {@link ScheduleRepository}): each method a
 * {@link Program} (all but `delete` are one statement; `delete` removes the schedule, then its tick records).
 * @packageDocumentation
 */
import type { ScheduleRecord, ScheduleTickRecord } from '../../core/schedule-records';
import type { ScheduleRepository } from '../../ports/schedule-repository';
import type { SqlDialect } from './dialect';
import { type EqualityFilters, filteredList } from './filters';
import { count, exactlyOne, limitParam, perDialect, type Program, type Programs, type Query, row, rows } from './query';
import { type ColumnSpec, type Row, TableMapping } from './table-mapping';

const SCHEDULE_FIELDS: ColumnSpec<ScheduleRecord> = {
  id: 'value',
  owner: 'value',
  createdBy: 'value',
  clientKey: 'value',
  cron: 'value',
  everyMs: 'value',
  anchorAt: 'value',
  timezone: 'value',
  goal: 'value',
  mode: 'value',
  capabilityAllowlist: 'jsonOrNull',
  budgets: 'json',
  missed: 'value',
  status: 'value',
  nextTickAt: 'value',
  lastTickAt: 'value',
  lastRunId: 'value',
  revision: 'value',
  createdAt: 'value',
  updatedAt: 'value',
};

const TICK_FIELDS: ColumnSpec<ScheduleTickRecord> = {
  scheduleId: 'value',
  tickAt: 'value',
  outcome: 'value',
  runId: 'value',
  reason: 'value',
  firstTickAt: 'value',
  ticks: 'value',
  handledAt: 'value',
  handledBy: 'value',
};

/** The list's filters (the unfiltered list is served by `schedules_created`). */
const SCHEDULE_FILTERS: EqualityFilters = [
  ['owner', 'owner'],
  ['status', 'status'],
];

/** The list's size when the filter gives none (see {@link ScheduleFilter}). */
const DEFAULT_LIST_LIMIT = 100;
/** The tick page's size when the caller gives none (see `ScheduleRepository.ticks`). */
const DEFAULT_TICKS_LIMIT = 50;

/** A program of one statement: its result. */
function* one<T>(query: Query<T>): Program<T> {
  return (yield query) as T;
}

/**
 * The schedules repository's programs in dialect `d`.
 *
 * @remarks
 * The claim of a tick is `INSERT … ON CONFLICT DO NOTHING` on the tick's primary key (schedule, tick): of any
 * number of transactions inserting the same key, one inserts it. On PostgreSQL a second insert of a key another
 * open transaction inserted waits for that transaction, then inserts nothing if it committed (or inserts, if it
 * rolled back); SQLite's write transactions run one at a time. An idempotent create is the same rule on the
 * unique index of (owner, client key). Every change is a compare-and-set on the revision.
 * @internal
 */
export const schedulePrograms = perDialect((d: SqlDialect): Programs<ScheduleRepository> => {
  const table = d.table('schedules');
  const ticksTable = d.table('schedule_ticks');
  const SCHEDULES = new TableMapping<ScheduleRecord>(table, SCHEDULE_FIELDS);
  const TICKS = new TableMapping<ScheduleTickRecord>(ticksTable, TICK_FIELDS);
  // A duplicate id is no conflict of this target: it fails (the caller made the id; it must be new).
  const insertSql = `${SCHEDULES.insertSql} ON CONFLICT (owner, client_key) WHERE client_key IS NOT NULL DO NOTHING`;
  const byClientKeySql = `SELECT * FROM ${table} WHERE owner = @owner AND client_key = @clientKey`;
  const updateSql = `UPDATE ${table} SET ${SCHEDULES.setEvery(['id'])} WHERE id = @id AND revision = @expectedRevision`;
  const deleteSql = `DELETE FROM ${table} WHERE id = @id AND revision = @expectedRevision`;
  const deleteTicksSql = `DELETE FROM ${ticksTable} WHERE schedule_id = @id`;
  const dueSql = `SELECT * FROM ${table}
  WHERE status = 'active' AND next_tick_at IS NOT NULL AND next_tick_at <= @now
  ORDER BY next_tick_at, ${d.byCodePoint('id')}
  LIMIT @limit`;
  // PostgreSQL skips a row another transaction locked (it is firing it); SQLite's writers take turns anyway.
  const lockDueSql = `SELECT * FROM ${table}
  WHERE id = @id AND status = 'active' AND next_tick_at IS NOT NULL AND next_tick_at <= @now${d.skipLocked}`;
  const claimSql = `${TICKS.insertSql} ON CONFLICT (schedule_id, tick_at) DO NOTHING`;
  const ticksSql = `SELECT * FROM ${ticksTable} WHERE schedule_id = @scheduleId ORDER BY tick_at DESC LIMIT @limit`;
  const ticksBeforeSql = `SELECT * FROM ${ticksTable} WHERE schedule_id = @scheduleId AND tick_at < @before ORDER BY tick_at DESC LIMIT @limit`;
  // A fired tick whose run retention removed (or that names none) joins no run: it counts, at no cost.
  const firedSql = `SELECT COUNT(*) AS runs, COALESCE(SUM(${d.jsonNumber('r.usage', 'costUsd')}), 0) AS cost
  FROM ${ticksTable} k LEFT JOIN ${d.table('runs')} r ON r.id = k.run_id
  WHERE k.schedule_id = @scheduleId AND k.outcome = 'fired' AND k.tick_at >= @from AND k.tick_at < @to`;
  const list = filteredList(SCHEDULES, {
    filters: SCHEDULE_FILTERS,
    nullIsAny: false,
    order: `created_at, ${d.byCodePoint('id')}`,
    limited: true,
  });
  const decode = (r: Row | undefined) => (r ? SCHEDULES.fromRow(r) : undefined);
  const decodeAll = (found: Row[]) => found.map((r) => SCHEDULES.fromRow(r));
  const decodeTicks = (found: Row[]) => found.map((r) => TICKS.fromRow(r));
  return {
    insert: (record) => one(count(insertSql, SCHEDULES.toParams(record), exactlyOne)),
    get: (id) => one(row(SCHEDULES.selectBy('id'), { id }, decode)),
    findByClientKey: (owner, clientKey) => one(row(byClientKeySql, { owner, clientKey }, decode)),
    compareAndSet: (id, expectedRevision, record) =>
      one(count(updateSql, { ...SCHEDULES.toParams(record), id, expectedRevision }, exactlyOne)),
    delete: function* (id, expectedRevision) {
      const deleted = (yield count(deleteSql, { id, expectedRevision }, exactlyOne)) as boolean;
      if (deleted) yield count(deleteTicksSql, { id }, () => undefined);
      return deleted;
    },
    list: (filter = {}) => one(list(filter, { limit: limitParam(filter.limit ?? DEFAULT_LIST_LIMIT, d.noLimit) })),
    due: (now, limit) => one(rows(dueSql, { now, limit: limitParam(limit, d.noLimit) }, decodeAll)),
    lockDue: (id, now) => one(row(lockDueSql, { id, now }, decode)),
    claimTick: (tick) => one(count(claimSql, TICKS.toParams(tick), exactlyOne)),
    ticks: (scheduleId, options = {}) => {
      const limit = limitParam(options.limit ?? DEFAULT_TICKS_LIMIT, d.noLimit);
      return options.before === undefined
        ? one(rows(ticksSql, { scheduleId, limit }, decodeTicks))
        : one(rows(ticksBeforeSql, { scheduleId, before: options.before, limit }, decodeTicks));
    },
    firedBetween: (scheduleId, from, to) =>
      one(
        row(firedSql, { scheduleId, from, to }, (r) => ({
          runs: Number(r?.runs ?? 0),
          costUsd: Number(r?.cost ?? 0),
        })),
      ),
  };
});
