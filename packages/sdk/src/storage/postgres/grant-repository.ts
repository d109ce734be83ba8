import { StorageError } from '../errors';
import type { GrantRecord } from '../../core/records';
import type { GrantRepository } from '../../ports/storage-adapter';
import { TableMapping } from '../sqlite/table-mapping';
import type { PgQueries } from './sql-queries';

const GRANTS = new TableMapping<GrantRecord>('"{schema}".grants', {
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

const GRANTS_UPDATE_SQL = `UPDATE "{schema}".grants SET ${GRANTS.columns
  .filter((c) => c.field !== 'id')
  .map((c) => `"${c.column}" = @${c.field}`)
  .join(', ')} WHERE id = @id`;

const GRANTS_LIST_SQL = `SELECT * FROM "{schema}".grants WHERE (@status::text IS NULL OR status = @status) ORDER BY created_at, id`;

/** The grants repository. @internal */
export function pgGrantRepository(q: PgQueries): GrantRepository {
  const { all, exec, byId, mustInsert } = q;
  return {
    insert: (record) => mustInsert(GRANTS, record),
    get: (id) => byId(GRANTS, 'id', id),
    update: async (record) => {
      if ((await exec(GRANTS_UPDATE_SQL, GRANTS.toParams(record))) !== 1)
        throw new StorageError(`no grant with id ${record.id}`);
    },
    list: async (filter = {}) =>
      (await all(GRANTS_LIST_SQL, { status: filter.status ?? null })).map((r) => GRANTS.fromRow(r)),
  };
}
