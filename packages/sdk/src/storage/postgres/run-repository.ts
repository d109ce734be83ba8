import type { RunRecord } from '../../core/run-records';
import type { RunPatch, RunRepository } from '../../ports/storage-adapter';
import { TableMapping, assignments, type Row } from '../sqlite/table-mapping';
import type { PgQueries } from './sql-queries';

const RUNS = new TableMapping<RunRecord>('"{schema}".runs', {
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

/** `NOTIFY` of the `runs` topic (delivered at commit): idle workers of every process look for a run at once. */
const NOTIFY_RUNS = `pg_notify('{channel}', 'runs')`;

const RUNS_INSERT_SQL = `${RUNS.insertSql} RETURNING ${NOTIFY_RUNS}`;

/**
 * The runnable-run rule of `RunRepository.acquireLease` (see the SQLite statement), for many processes: the
 * candidate is locked with `FOR UPDATE SKIP LOCKED`, so concurrent workers each take a different run instead of
 * queueing on the same row, and the lease condition is repeated in the outer `WHERE` (re-checked on the locked,
 * newest row version).
 */
const ACQUIRE_LEASE_SQL = `UPDATE "{schema}".runs SET lease_owner = @owner, lease_expires_at = @expiresAt
  WHERE id = (
    SELECT id FROM "{schema}".runs
    WHERE status IN ('queued', 'running', 'waiting')
      AND (lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= @now)
      AND (status IN ('queued', 'running') OR wake_requested OR abort_requested OR (not_before IS NOT NULL AND not_before <= @now))
    ORDER BY created_at, id
    LIMIT 1
    FOR UPDATE SKIP LOCKED
  )
  AND (lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= @now)
  RETURNING *`;

const RENEW_LEASE_SQL = `UPDATE "{schema}".runs SET lease_expires_at = @expiresAt WHERE id = @id AND lease_owner = @owner`;

const RELEASE_LEASE_SQL = `UPDATE "{schema}".runs SET lease_owner = NULL, lease_expires_at = NULL WHERE id = @id AND lease_owner = @owner RETURNING ${NOTIFY_RUNS}`;

const RUN_TOTALS_SQL = `SELECT COUNT(*) AS runs, COALESCE(SUM((usage->>'costUsd')::double precision), 0) AS cost FROM "{schema}".runs WHERE created_at >= @from AND created_at < @to`;

/** Whether a patch may make the run runnable (then workers elsewhere are woken); step-by-step progress does not. */
function wakes(patch: RunPatch): boolean {
  return (
    patch.wakeRequested === true ||
    patch.abortRequested === true ||
    (patch.notBefore !== undefined && patch.notBefore !== null) ||
    patch.status === 'queued' ||
    patch.leaseOwner === null
  );
}

/** The runs repository, with run leases shared by every process on the database. @internal */
export function pgRunRepository(q: PgQueries): RunRepository {
  const { all, one, exec, byId, limit, cas } = q;
  return {
    insert: async (record) => {
      await exec(RUNS_INSERT_SQL, RUNS.toParams(record));
    },
    get: (id) => byId(RUNS, 'id', id),
    patch: async (id, patch, expectLeaseOwner) => {
      const params: Row = { id };
      const { sets, signature } = assignments<RunRecord>(RUNS, patch, 'id', params);
      const owner = expectLeaseOwner !== undefined;
      if (owner) params.expectLeaseOwner = expectLeaseOwner;
      const notify = wakes(patch);
      const sql = cas(
        `pg|runs|${signature}|${owner ? 'o' : ''}|${notify ? 'n' : ''}`,
        () =>
          `UPDATE "{schema}".runs SET ${sets} WHERE id = @id${owner ? ' AND lease_owner = @expectLeaseOwner' : ''} RETURNING *${notify ? `, ${NOTIFY_RUNS}` : ''}`,
      );
      const row = await one(sql, params);
      return row ? RUNS.fromRow(row) : undefined;
    },
    list: async (filter = {}) => {
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
      const rows = await all(
        `SELECT * FROM "{schema}".runs${clause} ORDER BY created_at DESC, id DESC LIMIT @limit`,
        params,
      );
      return rows.map((r) => RUNS.fromRow(r));
    },
    acquireLease: async (owner, now, leaseMs) => {
      const row = await one(ACQUIRE_LEASE_SQL, { owner, now, expiresAt: now + leaseMs });
      return row ? RUNS.fromRow(row) : undefined;
    },
    renewLease: async (id, owner, now, leaseMs) =>
      (await exec(RENEW_LEASE_SQL, { id, owner, expiresAt: now + leaseMs })) === 1,
    releaseLease: async (id, owner) => (await exec(RELEASE_LEASE_SQL, { id, owner })) === 1,
    totalsBetween: async (from, to) => {
      const row = await one(RUN_TOTALS_SQL, { from, to });
      return { runs: Number(row?.runs ?? 0), costUsd: Number(row?.cost ?? 0) };
    },
  };
}
