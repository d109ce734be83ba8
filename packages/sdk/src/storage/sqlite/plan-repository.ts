import type { PlanRecord } from '../../core/records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { SqlQueries, SyncRepository } from './sql-queries';
import { TableMapping } from './table-mapping';

const PLANS = new TableMapping<PlanRecord>('plans', {
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

const PLANS_CAS_SQL = `UPDATE plans SET ${PLANS.columns
  .filter((c) => c.field !== 'id')
  .map((c) => `"${c.column}" = @${c.field}`)
  .join(', ')} WHERE id = @id AND revision = @expectedRevision`;

/** The plans repository (reviewed artifacts approvals bind to). Synchronous, over one connection's prepared statements. @internal */
export function sqlitePlanRepository(q: SqlQueries): SyncRepository<StorageSession['plans']> {
  const { exec, byId, mustInsert } = q;
  return {
    insert: (record) => mustInsert(PLANS, record),
    get: (id) => byId(PLANS, 'id', id),
    compareAndSet: (id, expectedRevision, record) =>
      exec(PLANS_CAS_SQL, { ...PLANS.toParams({ ...record, id }), expectedRevision }) === 1,
  };
}
