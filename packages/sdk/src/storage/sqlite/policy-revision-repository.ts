import type { PolicyRevisionRecord } from '../../core/records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { SqlQueries, SyncRepository } from './sql-queries';
import { TableMapping } from './table-mapping';

const POLICIES = new TableMapping<PolicyRevisionRecord>('policies', {
  id: 'value',
  kind: 'value',
  status: 'value',
  createdAt: 'value',
  updatedAt: 'value',
});

const POLICIES_PUT_SQL = `${POLICIES.insertSql} ON CONFLICT (id) DO UPDATE SET ${POLICIES.columns
  .filter((c) => c.field !== 'id')
  .map((c) => `"${c.column}" = excluded."${c.column}"`)
  .join(', ')}`;

const POLICIES_BY_KIND_SQL = `SELECT * FROM policies WHERE kind = @kind ORDER BY created_at, id`;

/** The policy revisions repository. Synchronous, over one connection's prepared statements. @internal */
export function sqlitePolicyRevisionRepository(q: SqlQueries): SyncRepository<StorageSession['policies']> {
  const { all, exec, byId } = q;
  return {
    put: (record) => {
      exec(POLICIES_PUT_SQL, POLICIES.toParams(record));
    },
    get: (id) => byId(POLICIES, 'id', id),
    listByKind: (kind) => all(POLICIES_BY_KIND_SQL, { kind }).map((r) => POLICIES.fromRow(r)),
  };
}
