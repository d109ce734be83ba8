/**
 * The plans table for both SQL stores: reviewed artifacts approvals bind to.
 * @packageDocumentation
 */
import type { PlanRecord } from '../../core/records';
import type { PlanRepository } from '../../ports/storage-adapter';
import type { SqlDialect } from './dialect';
import { count, exactlyOne, nothing, perDialect, row, type Statements } from './query';
import { type ColumnSpec, TableMapping } from './table-mapping';

const PLAN_FIELDS: ColumnSpec<PlanRecord> = {
  id: 'value',
  type: 'value',
  payload: 'json',
  payloadHash: 'value',
  revision: 'value',
  mediaEntityId: 'value',
  mediaKind: 'value',
  bytes: 'value',
  createdBy: 'value',
  createdAt: 'value',
  updatedAt: 'value',
};

/** The plans repository's statements in dialect `d` (compare-and-set on the revision). @internal */
export const planStatements = perDialect((d: SqlDialect): Statements<PlanRepository> => {
  const table = d.table('plans');
  const PLANS = new TableMapping<PlanRecord>(table, PLAN_FIELDS);
  const casSql = `UPDATE ${table} SET ${PLANS.setEvery(['id'])} WHERE id = @id AND revision = @expectedRevision`;
  return {
    insert: (record) => count(PLANS.insertSql, PLANS.toParams(record), nothing),
    get: (id) => row(PLANS.selectBy('id'), { id }, (r) => (r ? PLANS.fromRow(r) : undefined)),
    compareAndSet: (id, expectedRevision, record) =>
      count(casSql, { ...PLANS.toParams({ ...record, id }), expectedRevision }, exactlyOne),
  };
});
