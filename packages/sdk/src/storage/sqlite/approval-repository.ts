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

const APPROVALS_LIST_SQL = `SELECT * FROM approvals WHERE (@status IS NULL OR status = @status) AND (@planId IS NULL OR plan_id = @planId) ORDER BY requested_at DESC, id DESC LIMIT @limit`;

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
    list: (filter = {}) =>
      all(APPROVALS_LIST_SQL, {
        status: filter.status ?? null,
        planId: filter.planId ?? null,
        limit: limit(filter.limit),
      }).map((r) => APPROVALS.fromRow(r)),
  };
}
