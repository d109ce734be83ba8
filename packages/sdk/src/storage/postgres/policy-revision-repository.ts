import type { PolicyRevisionRecord } from '../../core/records';
import type { PolicyRevisionRepository } from '../../ports/storage-adapter';
import { TableMapping } from '../sqlite/table-mapping';
import type { PgQueries } from './sql-queries';

const POLICIES = new TableMapping<PolicyRevisionRecord>('"{schema}".policies', {
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

const POLICIES_BY_KIND_SQL = `SELECT * FROM "{schema}".policies WHERE kind = @kind ORDER BY created_at, id`;

/** The policy revisions repository. @internal */
export function pgPolicyRevisionRepository(q: PgQueries): PolicyRevisionRepository {
  const { all, exec, byId } = q;
  return {
    put: async (record) => {
      await exec(POLICIES_PUT_SQL, POLICIES.toParams(record));
    },
    get: (id) => byId(POLICIES, 'id', id),
    listByKind: async (kind) => (await all(POLICIES_BY_KIND_SQL, { kind })).map((r) => POLICIES.fromRow(r)),
  };
}
