/**
 * The decisions table for both SQL stores: one decision per dedupe key, compare-and-set on the revision.
 * @packageDocumentation
 */
import type { DecisionRecord } from '../../core/run-records';
import type { DecisionRepository } from '../../ports/storage-adapter';
import type { SqlDialect } from './dialect';
import { type EqualityFilters, filteredList } from './filters';
import { count, exactlyOne, perDialect, row, type Statements } from './query';
import { type ColumnSpec, type Row, TableMapping } from './table-mapping';

const DECISION_FIELDS: ColumnSpec<DecisionRecord> = {
  id: 'value',
  kind: 'value',
  dedupeKey: 'value',
  subjectType: 'value',
  subjectId: 'value',
  rootCause: 'value',
  status: 'value',
  reason: 'value',
  evidence: 'json',
  options: 'json',
  raisedBy: 'value',
  resolvedBy: 'value',
  resolution: 'jsonOrNull',
  revision: 'value',
  createdAt: 'value',
  updatedAt: 'value',
  resolvedAt: 'value',
};

/** The list's filters (served by `decisions_subject_created`, `decisions_root_cause`, `decisions_status_created`). */
const DECISION_FILTERS: EqualityFilters = [
  ['status', 'status'],
  ['subjectId', 'subject_id'],
  ['kind', 'kind'],
  ['rootCause', 'root_cause'],
];

/** The decisions repository's statements in dialect `d`. @internal */
export const decisionStatements = perDialect((d: SqlDialect): Statements<DecisionRepository> => {
  const table = d.table('decisions');
  const DECISIONS = new TableMapping<DecisionRecord>(table, DECISION_FIELDS);
  const insertSql = `${DECISIONS.insertSql} ON CONFLICT (dedupe_key) DO NOTHING`;
  // The dedupe key never changes; the revision check makes every change a compare-and-set across processes.
  const updateSql = `UPDATE ${table} SET ${DECISIONS.setEvery(['id', 'dedupeKey'])} WHERE id = @id AND revision = @expectedRevision`;
  const list = filteredList(DECISIONS, {
    filters: DECISION_FILTERS,
    nullIsAny: true,
    order: `created_at DESC, ${d.byCodePoint('id')} DESC`,
    limited: false,
  });
  const decode = (r: Row | undefined) => (r ? DECISIONS.fromRow(r) : undefined);
  return {
    insert: (record) => count(insertSql, DECISIONS.toParams(record), exactlyOne),
    get: (id) => row(DECISIONS.selectBy('id'), { id }, decode),
    getByKey: (dedupeKey) => row(DECISIONS.selectBy('dedupe_key'), { id: dedupeKey }, decode),
    update: (record, expectedRevision) =>
      count(updateSql, { ...DECISIONS.toParams(record), expectedRevision }, exactlyOne),
    list: (filter = {}) => list(filter, {}),
  };
});
