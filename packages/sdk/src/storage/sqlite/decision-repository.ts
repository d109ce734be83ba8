import type { DecisionRecord } from '../../core/run-records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { SqlQueries, SyncRepository } from './sql-queries';
import { TableMapping } from './table-mapping';

const DECISIONS = new TableMapping<DecisionRecord>('decisions', {
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
});

const DECISIONS_INSERT_SQL = `${DECISIONS.insertSql} ON CONFLICT (dedupe_key) DO NOTHING`;

// The dedupe key never changes.
const DECISIONS_UPDATE_SQL = `UPDATE decisions SET ${DECISIONS.columns
  .filter((c) => c.field !== 'id' && c.field !== 'dedupeKey')
  .map((c) => `"${c.column}" = @${c.field}`)
  .join(', ')} WHERE id = @id AND revision = @expectedRevision`;

const DECISIONS_LIST_SQL = `SELECT * FROM decisions WHERE (@status IS NULL OR status = @status) AND (@subjectId IS NULL OR subject_id = @subjectId) AND (@kind IS NULL OR kind = @kind) AND (@rootCause IS NULL OR root_cause = @rootCause) ORDER BY created_at DESC, id DESC`;

/** The decisions repository. Synchronous, over one connection's prepared statements. @internal */
export function sqliteDecisionRepository(q: SqlQueries): SyncRepository<StorageSession['decisions']> {
  const { all, exec, byId } = q;
  return {
    insert: (record) => exec(DECISIONS_INSERT_SQL, DECISIONS.toParams(record)) === 1,
    get: (id) => byId(DECISIONS, 'id', id),
    getByKey: (dedupeKey) => byId(DECISIONS, 'dedupe_key', dedupeKey),
    update: (record, expectedRevision) =>
      exec(DECISIONS_UPDATE_SQL, { ...DECISIONS.toParams(record), expectedRevision }) === 1,
    list: (filter = {}) =>
      all(DECISIONS_LIST_SQL, {
        status: filter.status ?? null,
        subjectId: filter.subjectId ?? null,
        kind: filter.kind ?? null,
        rootCause: filter.rootCause ?? null,
      }).map((r) => DECISIONS.fromRow(r)),
  };
}
