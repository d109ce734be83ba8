/**
 * The policy revisions table for both SQL stores.
 * @packageDocumentation
 */
import type { PolicyRevisionRecord } from '../../core/records';
import type { PolicyRevisionRepository } from '../../ports/storage-adapter';
import type { SqlDialect } from './dialect';
import { count, nothing, perDialect, row, rows, type Statements } from './query';
import { type ColumnSpec, TableMapping } from './table-mapping';

const POLICY_FIELDS: ColumnSpec<PolicyRevisionRecord> = {
  id: 'value',
  kind: 'value',
  status: 'value',
  createdAt: 'value',
  updatedAt: 'value',
};

/** The policy revisions repository's statements in dialect `d`. @internal */
export const policyRevisionStatements = perDialect((d: SqlDialect): Statements<PolicyRevisionRepository> => {
  const table = d.table('policies');
  const POLICIES = new TableMapping<PolicyRevisionRecord>(table, POLICY_FIELDS);
  const putSql = `${POLICIES.insertSql} ON CONFLICT (id) DO UPDATE SET ${POLICIES.columns
    .filter((c) => c.field !== 'id')
    .map((c) => `"${c.column}" = excluded."${c.column}"`)
    .join(', ')}`;
  const byKindSql = `SELECT * FROM ${table} WHERE kind = @kind ORDER BY created_at, ${d.byCodePoint('id')}`;
  return {
    put: (record) => count(putSql, POLICIES.toParams(record), nothing),
    get: (id) => row(POLICIES.selectBy('id'), { id }, (r) => (r ? POLICIES.fromRow(r) : undefined)),
    listByKind: (kind) => rows(byKindSql, { kind }, (found) => found.map((r) => POLICIES.fromRow(r))),
  };
});
