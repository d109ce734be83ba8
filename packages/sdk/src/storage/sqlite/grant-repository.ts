import { StorageError } from '../errors';
import type { GrantRecord } from '../../core/records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { SqlQueries, SyncRepository } from './sql-queries';
import { TableMapping } from './table-mapping';

const GRANTS = new TableMapping<GrantRecord>('grants', {
  id: 'value',
  action: 'value',
  status: 'value',
  expiresAt: 'value',
  policyRevisionId: 'value',
  scope: 'json',
  budget: 'json',
  reason: 'value',
  createdBy: 'value',
  createdAt: 'value',
  updatedAt: 'value',
});

const GRANTS_UPDATE_SQL = `UPDATE grants SET ${GRANTS.columns
  .filter((c) => c.field !== 'id')
  .map((c) => `"${c.column}" = @${c.field}`)
  .join(', ')} WHERE id = @id`;

// A list by status is served by grants_status (`(@status IS NULL OR status = @status)` is served by no index).
const GRANTS_LIST_SQL = `SELECT * FROM grants ORDER BY created_at, id`;
const GRANTS_BY_STATUS_SQL = `SELECT * FROM grants WHERE status = @status ORDER BY created_at, id`;

/** The grants repository. Synchronous, over one connection's prepared statements. @internal */
export function sqliteGrantRepository(q: SqlQueries): SyncRepository<StorageSession['grants']> {
  const { all, exec, byId, mustInsert } = q;
  return {
    insert: (record) => mustInsert(GRANTS, record),
    get: (id) => byId(GRANTS, 'id', id),
    update: (record) => {
      if (exec(GRANTS_UPDATE_SQL, GRANTS.toParams(record)) !== 1)
        throw new StorageError(`no grant with id ${record.id}`);
    },
    list: (filter = {}) =>
      (filter.status != null ? all(GRANTS_BY_STATUS_SQL, { status: filter.status }) : all(GRANTS_LIST_SQL, {})).map(
        (r) => GRANTS.fromRow(r),
      ),
  };
}
