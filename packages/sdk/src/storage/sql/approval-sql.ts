/**
 * The approvals table for both SQL stores.
 * @packageDocumentation
 */
import type { ApprovalRecord } from '../../core/records';
import type { ApprovalRepository } from '../../ports/storage-adapter';
import type { SqlDialect } from './dialect';
import { type EqualityFilters, filteredList } from './filters';
import { count, exactlyOne, limitParam, nothing, perDialect, row, SqlTexts, type Statements } from './query';
import { assignments, type ColumnSpec, type Row, TableMapping } from './table-mapping';

const APPROVAL_FIELDS: ColumnSpec<ApprovalRecord> = {
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
  capabilityId: 'value',
  impact: 'jsonOrNull',
  steps: 'json',
  approvedSteps: 'jsonOrNull',
  proposedPayload: 'jsonOrNull',
  proposedPayloadHash: 'value',
  approvedPayload: 'jsonOrNull',
  executedPayloadHash: 'value',
};

/**
 * The list's filters (`status` and `planId` served by `approvals_status` and `approvals_plan`; `requestedBy` scans,
 * which decodes only the rows it keeps).
 */
const APPROVAL_FILTERS: EqualityFilters = [
  ['status', 'status'],
  ['planId', 'plan_id'],
  ['requestedBy', 'requested_by'],
];

/**
 * The approvals repository's statements in dialect `d`. Consuming an approval is a compare-and-set on its status:
 * one `UPDATE … WHERE status = …`, re-checked on the newest row version, so concurrent consumers get one winner.
 * @internal
 */
export const approvalStatements = perDialect((d: SqlDialect): Statements<ApprovalRepository> => {
  const table = d.table('approvals');
  const APPROVALS = new TableMapping<ApprovalRecord>(table, APPROVAL_FIELDS);
  const list = filteredList(APPROVALS, {
    filters: APPROVAL_FILTERS,
    nullIsAny: true,
    order: `requested_at DESC, ${d.byCodePoint('id')} DESC`,
    limited: true,
  });
  const texts = new SqlTexts();
  return {
    insert: (record) => count(APPROVALS.insertSql, APPROVALS.toParams(record), nothing),
    get: (id) => row(APPROVALS.selectBy('id'), { id }, (r) => (r ? APPROVALS.fromRow(r) : undefined)),
    compareAndSet: (id, expectedStatus, patch) => {
      const params: Row = { id, expectedStatus };
      const set = assignments(APPROVALS, patch, 'id', params);
      const sql = texts.get(
        `cas|${set.signature}`,
        () => `UPDATE ${table} SET ${set.sets()} WHERE id = @id AND status = @expectedStatus`,
      );
      return count(sql, params, exactlyOne);
    },
    list: (filter = {}) => list(filter, { limit: limitParam(filter.limit, d.noLimit) }),
  };
});
