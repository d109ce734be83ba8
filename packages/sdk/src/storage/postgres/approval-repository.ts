import type { ApprovalRecord } from '../../core/records';
import type { ApprovalRepository } from '../../ports/storage-adapter';
import { TableMapping, assignments, type Row } from '../sqlite/table-mapping';
import type { PgQueries } from './sql-queries';

const APPROVALS = new TableMapping<ApprovalRecord>('"{schema}".approvals', {
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

const APPROVALS_LIST_SQL = `SELECT * FROM "{schema}".approvals WHERE (@status::text IS NULL OR status = @status) AND (@planId::text IS NULL OR plan_id = @planId) ORDER BY requested_at DESC, id DESC LIMIT @limit`;

/**
 * The approvals repository. Consuming an approval is a compare-and-set on its status: one `UPDATE … WHERE
 * status = …`, re-checked on the newest row version, so concurrent consumers in many processes get one winner.
 * @internal
 */
export function pgApprovalRepository(q: PgQueries): ApprovalRepository {
  const { all, exec, byId, mustInsert, limit, cas } = q;
  return {
    insert: (record) => mustInsert(APPROVALS, record),
    get: (id) => byId(APPROVALS, 'id', id),
    compareAndSet: async (id, expectedStatus, patch) => {
      const params: Row = { id, expectedStatus };
      const { sets, signature } = assignments(APPROVALS, patch, 'id', params);
      const sql = cas(
        `pg|approvals|${signature}`,
        () => `UPDATE "{schema}".approvals SET ${sets} WHERE id = @id AND status = @expectedStatus`,
      );
      return (await exec(sql, params)) === 1;
    },
    list: async (filter = {}) =>
      (
        await all(APPROVALS_LIST_SQL, {
          status: filter.status ?? null,
          planId: filter.planId ?? null,
          limit: limit(filter.limit),
        })
      ).map((r) => APPROVALS.fromRow(r)),
  };
}
