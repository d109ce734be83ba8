import type { RunRecord } from '../../core/run-records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { SqlQueries, SyncRepository } from './sql-queries';
import { TableMapping, assignments, type Row } from './table-mapping';

const RUNS = new TableMapping<RunRecord>('runs', {
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
});

/**
 * The runnable-run rule of `RunRepository.acquireLease`, as one statement: the oldest non-terminal run
 * whose lease is free (none, or expired at `@now`) and that is `queued`, `running` (takeover after a
 * crash), or `waiting` with a wake request, an abort request or a due `not_before`. Inside the write
 * transaction (SQLite: `BEGIN IMMEDIATE`), so two connections never lease the same run. PostgreSQL: the
 * same statement with `FOR UPDATE SKIP LOCKED` on the subquery (and the lease condition repeated in the
 * outer `WHERE`, which READ COMMITTED re-checks on the locked row).
 */
const ACQUIRE_LEASE_SQL = `UPDATE runs SET lease_owner = @owner, lease_expires_at = @expiresAt
  WHERE id = (
    SELECT id FROM runs
    WHERE status IN ('queued', 'running', 'waiting')
      AND (lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= @now)
      AND (status IN ('queued', 'running') OR wake_requested = 1 OR abort_requested = 1 OR (not_before IS NOT NULL AND not_before <= @now))
    ORDER BY created_at, id
    LIMIT 1
  )
  AND (lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= @now)
  RETURNING *`;

const RENEW_LEASE_SQL = `UPDATE runs SET lease_expires_at = @expiresAt WHERE id = @id AND lease_owner = @owner`;

const RELEASE_LEASE_SQL = `UPDATE runs SET lease_owner = NULL, lease_expires_at = NULL WHERE id = @id AND lease_owner = @owner`;

// PostgreSQL: SUM((usage->>'costUsd')::double precision)
const RUN_TOTALS_SQL = `SELECT COUNT(*) AS runs, COALESCE(SUM(json_extract(usage, '$.costUsd')), 0) AS cost FROM runs WHERE created_at >= @from AND created_at < @to`;

/** The runs repository, with run leases. Synchronous, over one connection's prepared statements. @internal */
export function sqliteRunRepository(q: SqlQueries): SyncRepository<StorageSession['runs']> {
  const { all, one, exec, byId, mustInsert, limit, cas } = q;
  return {
    insert: (record) => mustInsert(RUNS, record),
    get: (id) => byId(RUNS, 'id', id),
    patch: (id, patch, expectLeaseOwner) => {
      const params: Row = { id };
      const { sets, signature } = assignments<RunRecord>(RUNS, patch, 'id', params);
      const owner = expectLeaseOwner !== undefined;
      if (owner) params.expectLeaseOwner = expectLeaseOwner;
      const sql = cas(
        `runs|${signature}|${owner ? 'o' : ''}`,
        () =>
          `UPDATE runs SET ${sets} WHERE id = @id${owner ? ` AND lease_owner = @expectLeaseOwner` : ''} RETURNING *`,
      );
      const row = one(sql, params);
      return row ? RUNS.fromRow(row) : undefined;
    },
    list: (filter = {}) => {
      const params: Row = { limit: limit(filter.limit) };
      const where: string[] = [];
      if (filter.status !== undefined) {
        where.push('status = @status');
        params.status = filter.status;
      }
      if (filter.sessionId !== undefined) {
        where.push('session_id = @sessionId');
        params.sessionId = filter.sessionId;
      }
      if (filter.startedBy !== undefined) {
        where.push('started_by = @startedBy');
        params.startedBy = filter.startedBy;
      }
      const clause = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
      return all(`SELECT * FROM runs${clause} ORDER BY created_at DESC, id DESC LIMIT @limit`, params).map((r) =>
        RUNS.fromRow(r),
      );
    },
    acquireLease: (owner, now, leaseMs) => {
      const row = one(ACQUIRE_LEASE_SQL, { owner, now, expiresAt: now + leaseMs });
      return row ? RUNS.fromRow(row) : undefined;
    },
    renewLease: (id, owner, now, leaseMs) => exec(RENEW_LEASE_SQL, { id, owner, expiresAt: now + leaseMs }) === 1,
    releaseLease: (id, owner) => exec(RELEASE_LEASE_SQL, { id, owner }) === 1,
    totalsBetween: (from, to) => {
      const row = one(RUN_TOTALS_SQL, { from, to });
      return { runs: Number(row?.runs ?? 0), costUsd: Number(row?.cost ?? 0) };
    },
  };
}
