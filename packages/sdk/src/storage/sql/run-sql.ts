/**
 * The runs table for both SQL stores: row mapping, the list, leases and totals.
 * @packageDocumentation
 */
import type { RunRecord } from '../../core/run-records';
import type { RunPatch, RunRepository } from '../../ports/storage-adapter';
import type { SqlDialect } from './dialect';
import { type EqualityFilters, filteredList } from './filters';
import { count, exactlyOne, limitParam, nothing, perDialect, row, SqlTexts, type Statements } from './query';
import { assignments, type ColumnSpec, type Row, TableMapping } from './table-mapping';

/**
 * Every field but `prunedAt`, which only retention writes (`pruned_at`; see `RunMapping`), and `forkedFrom`, stored
 * as two columns (`forked_from_run_id`, `forked_at_seq`) named here by the fields `forkedFromRunId` and
 * `forkedAtSeq`, which the record does not have (see `RunMapping`).
 */
const RUN_FIELDS: ColumnSpec<Omit<RunRecord, 'prunedAt' | 'forkedFrom'> & ForkColumns> = {
  id: 'value',
  goal: 'value',
  mode: 'value',
  status: 'value',
  step: 'value',
  startedBy: 'value',
  origin: 'value',
  parentRunId: 'value',
  depth: 'value',
  runtimeState: 'lazyJson', // the largest field (middleware state); most readers of a run never look at it
  sessionId: 'value',
  capabilityAllowlist: 'jsonOrNull',
  budgets: 'json',
  usage: 'json',
  checklist: 'jsonOrNull',
  report: 'jsonOrNull',
  finalText: 'value',
  error: 'jsonOrNull',
  abortRequested: 'bool',
  abortReason: 'value',
  wakeRequested: 'bool',
  leaseOwner: 'value',
  leaseExpiresAt: 'value',
  notBefore: 'value',
  createdAt: 'value',
  updatedAt: 'value',
  startedAt: 'value',
  endedAt: 'value',
  forkedFromRunId: 'value',
  forkedAtSeq: 'value',
};

/** The columns of `RunRecord.forkedFrom`, as fields of the mapping. */
interface ForkColumns {
  forkedFromRunId: string | null;
  forkedAtSeq: number | null;
}

const RUN_FILTERS: EqualityFilters = [
  ['status', 'status'],
  ['sessionId', 'session_id'],
  ['startedBy', 'started_by'],
];

/**
 * Whether a patch may make the run runnable (then workers of other processes are woken); step-by-step progress
 * does not.
 * @internal
 */
export function wakesWorkers(patch: RunPatch): boolean {
  return (
    patch.wakeRequested === true ||
    patch.abortRequested === true ||
    (patch.notBefore !== undefined && patch.notBefore !== null) ||
    patch.status === 'queued' ||
    patch.leaseOwner === null
  );
}

/**
 * The runs table's mapping: the record's fields, plus `prunedAt` from `pruned_at` when retention set it (absent
 * otherwise). Only retention writes that column, so inserts and patches leave it alone. `forkedFrom` is written by the
 * insert only (a patch has no such field) and read back when the run is a fork (absent otherwise).
 */
class RunMapping extends TableMapping<RunRecord> {
  constructor(table: string) {
    // `prunedAt` has no column of its own here, so inserts and patches never write it.
    // The fork columns are read back as `forkedFrom` (below), never as fields of their own.
    super(table, RUN_FIELDS as unknown as ColumnSpec<RunRecord>, ['forkedFromRunId', 'forkedAtSeq']);
  }

  override toParams(record: RunRecord): Row {
    const params = super.toParams(record);
    params.forkedFromRunId = record.forkedFrom?.runId ?? null;
    params.forkedAtSeq = record.forkedFrom?.atSeq ?? null;
    return params;
  }

  override fromRow(row: Row): RunRecord {
    const record = super.fromRow(row);
    const prunedAt = row.pruned_at;
    if (prunedAt !== null && prunedAt !== undefined) record.prunedAt = Number(prunedAt);
    const forkedFrom = row.forked_from_run_id;
    if (typeof forkedFrom === 'string') record.forkedFrom = { runId: forkedFrom, atSeq: Number(row.forked_at_seq) };
    return record;
  }
}

/** The runs repository's statements in dialect `d`, with run leases. @internal */
export const runStatements = perDialect((d: SqlDialect): Statements<RunRepository> => {
  const table = d.table('runs');
  const RUNS = new RunMapping(table);
  const notify = d.notify('runs');
  const andNotify = notify === null ? '' : ` RETURNING ${notify}`;
  const leaseFree = '(lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= @now)';
  /**
   * The runnable-run rule of `RunRepository.acquireLease`, as one statement: the oldest non-terminal run whose
   * lease is free (none, or expired at `@now`) and that is `queued`, `running` (takeover after a crash), or
   * `waiting` with a wake request, an abort request or a due `not_before`. The lease condition is repeated in the
   * outer `WHERE`, which PostgreSQL's READ COMMITTED re-checks on the locked, newest row version.
   */
  const acquireSql = `UPDATE ${table} SET lease_owner = @owner, lease_expires_at = @expiresAt
  WHERE id = (
    SELECT id FROM ${table}
    WHERE status IN ('queued', 'running', 'waiting')
      AND ${leaseFree}
      AND (status IN ('queued', 'running') OR ${d.isTrue('wake_requested')} OR ${d.isTrue('abort_requested')} OR (not_before IS NOT NULL AND not_before <= @now))
    ORDER BY created_at, ${d.byCodePoint('id')}
    LIMIT 1${d.skipLocked}
  )
  AND ${leaseFree}
  RETURNING *`;
  const renewSql = `UPDATE ${table} SET lease_expires_at = @expiresAt WHERE id = @id AND lease_owner = @owner`;
  const releaseSql = `UPDATE ${table} SET lease_owner = NULL, lease_expires_at = NULL WHERE id = @id AND lease_owner = @owner${andNotify}`;
  const totalsSql = `SELECT COUNT(*) AS runs, COALESCE(SUM(${d.jsonNumber('usage', 'costUsd')}), 0) AS cost FROM ${table} WHERE created_at >= @from AND created_at < @to`;
  const list = filteredList(RUNS, {
    filters: RUN_FILTERS,
    nullIsAny: false,
    order: `created_at DESC, ${d.byCodePoint('id')} DESC`,
    limited: true,
  });
  const texts = new SqlTexts();
  const decode = (r: Row | undefined) => (r ? RUNS.fromRow(r) : undefined);
  return {
    insert: (record) => count(`${RUNS.insertSql}${andNotify}`, RUNS.toParams(record), nothing),
    get: (id) => row(RUNS.selectBy('id'), { id }, decode),
    patch: (id, patch, expectLeaseOwner) => {
      const params: Row = { id };
      const set = assignments<RunRecord>(RUNS, patch, 'id', params);
      const owner = expectLeaseOwner !== undefined;
      if (owner) params.expectLeaseOwner = expectLeaseOwner;
      const wake = notify !== null && wakesWorkers(patch);
      const sql = texts.get(
        `patch|${set.signature}|${owner ? 'o' : ''}|${wake ? 'n' : ''}`,
        () =>
          `UPDATE ${table} SET ${set.sets()} WHERE id = @id${owner ? ' AND lease_owner = @expectLeaseOwner' : ''} RETURNING *${wake ? `, ${notify}` : ''}`,
      );
      return row(sql, params, decode);
    },
    list: (filter = {}) => list(filter, { limit: limitParam(filter.limit, d.noLimit) }),
    acquireLease: (owner, now, leaseMs) => row(acquireSql, { owner, now, expiresAt: now + leaseMs }, decode),
    renewLease: (id, owner, now, leaseMs) => count(renewSql, { id, owner, expiresAt: now + leaseMs }, exactlyOne),
    releaseLease: (id, owner) => count(releaseSql, { id, owner }, exactlyOne),
    totalsBetween: (from, to) =>
      row(totalsSql, { from, to }, (r) => ({ runs: Number(r?.runs ?? 0), costUsd: Number(r?.cost ?? 0) })),
  };
});
