import type { AuditRecord } from '../../core/records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { SqlQueries, SyncRepository } from './sql-queries';
import { TableMapping } from './table-mapping';

const AUDIT = new TableMapping<AuditRecord>('audit', {
  id: 'value',
  seq: 'value',
  at: 'value',
  action: 'value',
  actor: 'value',
  capabilityId: 'value',
  invocationId: 'value',
  runId: 'value',
  taskId: 'value',
  outcome: 'value',
  approvalId: 'value',
  grantId: 'value',
  idempotencyKey: 'value',
  inputSummary: 'value',
  reason: 'value',
});

/**
 * The audit insert: every column but `seq` (assigned by SQLite), with positional parameters in the order
 * `SqliteRepositories.insertAudit` binds them (no name lookup per column: this is the hot insert of reads).
 * @internal
 */
export const AUDIT_INSERT_SQL = `INSERT INTO audit ("id", "at", "action", "actor", "capability_id", "invocation_id", "run_id", "task_id", "outcome", "approval_id", "grant_id", "idempotency_key", "input_summary", "reason")
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

const AUDIT_LIST_SQL = `SELECT * FROM audit WHERE seq > @after AND (@action IS NULL OR action = @action) AND (@capabilityId IS NULL OR capability_id = @capabilityId) AND (@invocationId IS NULL OR invocation_id = @invocationId) ORDER BY seq LIMIT @limit`;

/** The audit log repository. Synchronous, over one connection's prepared statements. @internal */
export function sqliteAuditRepository(
  q: SqlQueries,
  insertAudit: (record: AuditRecord) => number,
): SyncRepository<StorageSession['audit']> {
  const { all, limit } = q;
  return {
    // A plain INSERT: the stored row is the record with its new seq (no RETURNING, nothing to decode).
    append: (record) => ({ ...record, seq: insertAudit(record) }),
    list: (filter = {}) =>
      all(AUDIT_LIST_SQL, {
        after: filter.after ?? 0,
        action: filter.action ?? null,
        capabilityId: filter.capabilityId ?? null,
        invocationId: filter.invocationId ?? null,
        limit: limit(filter.limit ?? 100),
      }).map((r) => AUDIT.fromRow(r)),
  };
}
