import type { ApprovalRecord } from '../../core/records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { SqlQueries, SyncRepository } from './sql-queries';
import { TableMapping, assignments, type Row } from './table-mapping';

const APPROVALS = new TableMapping<ApprovalRecord>('approvals', {
  id: 'value',
  planType: 'value',
  planId: 'value',
  payloadHash: 'value',
  revision: 'value',
  status: 'value',
  requestedBy: 'value',
  reason: 'value',
  requestedAt: 'value',
  expiresAt: 'value',
  decidedBy: 'value',
  decidedAt: 'value',
  consumedBy: 'value',
  consumedAt: 'value',
});

/**
 * The list: only the filters given become conditions, so `approvals_status` or `approvals_plan` serves it (a
 * `(@x IS NULL OR col = @x)` condition is served by no index: every list scanned the table).
 */
function approvalsListSql(where: readonly string[]): string {
  const clause = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  return `SELECT * FROM approvals${clause} ORDER BY requested_at DESC, id DESC LIMIT @limit`;
}

/** The approvals repository. Synchronous, over one connection's prepared statements. @internal */
export function sqliteApprovalRepository(q: SqlQueries): SyncRepository<StorageSession['approvals']> {
  const { all, exec, byId, mustInsert, limit, cas } = q;
  return {
    insert: (record) => mustInsert(APPROVALS, record),
    get: (id) => byId(APPROVALS, 'id', id),
    compareAndSet: (id, expectedStatus, patch) => {
      const params: Row = { id, expectedStatus };
      const { sets, signature } = assignments(APPROVALS, patch, 'id', params);
      return (
        exec(
          cas(
            `approvals|${signature}`,
            () => `UPDATE approvals SET ${sets} WHERE id = @id AND status = @expectedStatus`,
          ),
          params,
        ) === 1
      );
    },
    list: (filter = {}) => {
      const params: Row = { limit: limit(filter.limit) };
      const where: string[] = [];
      if (filter.status != null) {
        where.push('status = @status');
        params.status = filter.status;
      }
      if (filter.planId != null) {
        where.push('plan_id = @planId');
        params.planId = filter.planId;
      }
      return all(approvalsListSql(where), params).map((r) => APPROVALS.fromRow(r));
    },
  };
}
