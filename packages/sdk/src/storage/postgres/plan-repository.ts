import type { PlanRecord } from '../../core/records';
import type { PlanRepository } from '../../ports/storage-adapter';
import { TableMapping } from '../sqlite/table-mapping';
import type { PgQueries } from './sql-queries';

const PLANS = new TableMapping<PlanRecord>('"{schema}".plans', {
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
});

const PLANS_CAS_SQL = `UPDATE "{schema}".plans SET ${PLANS.columns
  .filter((c) => c.field !== 'id')
  .map((c) => `"${c.column}" = @${c.field}`)
  .join(', ')} WHERE id = @id AND revision = @expectedRevision`;

/** The plans repository (reviewed artifacts approvals bind to); a revision change is a compare-and-set. @internal */
export function pgPlanRepository(q: PgQueries): PlanRepository {
  const { exec, byId, mustInsert } = q;
  return {
    insert: (record) => mustInsert(PLANS, record),
    get: (id) => byId(PLANS, 'id', id),
    compareAndSet: async (id, expectedRevision, record) =>
      (await exec(PLANS_CAS_SQL, { ...PLANS.toParams({ ...record, id }), expectedRevision })) === 1,
  };
}
