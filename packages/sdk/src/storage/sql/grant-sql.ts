/**
 * The grants table for both SQL stores.
 * @packageDocumentation
 */
import type { GrantRecord } from '../../core/records';
import type { GrantRepository } from '../../ports/storage-adapter';
import { StorageError } from '../errors';
import type { SqlDialect } from './dialect';
import { type EqualityFilters, filteredList } from './filters';
import { count, nothing, perDialect, row, type Statements } from './query';
import { type ColumnSpec, TableMapping } from './table-mapping';

const GRANT_FIELDS: ColumnSpec<GrantRecord> = {
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
};

/** The list's filter (served by `grants_status`). */
const GRANT_FILTERS: EqualityFilters = [['status', 'status']];

/** The grants repository's statements in dialect `d`. @internal */
export const grantStatements = perDialect((d: SqlDialect): Statements<GrantRepository> => {
  const table = d.table('grants');
  const GRANTS = new TableMapping<GrantRecord>(table, GRANT_FIELDS);
  const updateSql = `UPDATE ${table} SET ${GRANTS.setEvery(['id'])} WHERE id = @id`;
  const list = filteredList(GRANTS, {
    filters: GRANT_FILTERS,
    nullIsAny: true,
    order: `created_at, ${d.byCodePoint('id')}`,
    limited: false,
  });
  return {
    insert: (record) => count(GRANTS.insertSql, GRANTS.toParams(record), nothing),
    get: (id) => row(GRANTS.selectBy('id'), { id }, (r) => (r ? GRANTS.fromRow(r) : undefined)),
    update: (record) =>
      count(updateSql, GRANTS.toParams(record), (n) => {
        if (n !== 1) throw new StorageError(`no grant with id ${record.id}`);
      }),
    list: (filter = {}) => list(filter, {}),
  };
});
