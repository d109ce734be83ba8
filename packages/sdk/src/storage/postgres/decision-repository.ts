import type { DecisionRecord } from '../../core/run-records';
import type { DecisionRepository } from '../../ports/storage-adapter';
import { TableMapping } from '../sqlite/table-mapping';
import type { PgQueries } from './sql-queries';

const DECISIONS = new TableMapping<DecisionRecord>('"{schema}".decisions', {
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

// The dedupe key never changes; the revision check makes every change a compare-and-set across processes.
const DECISIONS_UPDATE_SQL = `UPDATE "{schema}".decisions SET ${DECISIONS.columns
  .filter((c) => c.field !== 'id' && c.field !== 'dedupeKey')
  .map((c) => `"${c.column}" = @${c.field}`)
  .join(', ')} WHERE id = @id AND revision = @expectedRevision`;

const DECISIONS_LIST_SQL = `SELECT * FROM "{schema}".decisions WHERE (@status::text IS NULL OR status = @status) AND (@subjectId::text IS NULL OR subject_id = @subjectId) AND (@kind::text IS NULL OR kind = @kind) AND (@rootCause::text IS NULL OR root_cause = @rootCause) ORDER BY created_at DESC, id DESC`;

/** The decisions repository (decisions for people, one per dedupe key, compare-and-set on the revision). @internal */
export function pgDecisionRepository(q: PgQueries): DecisionRepository {
  const { all, exec, byId } = q;
  return {
    insert: async (record) => (await exec(DECISIONS_INSERT_SQL, DECISIONS.toParams(record))) === 1,
    get: (id) => byId(DECISIONS, 'id', id),
    getByKey: (dedupeKey) => byId(DECISIONS, 'dedupe_key', dedupeKey),
    update: async (record, expectedRevision) =>
      (await exec(DECISIONS_UPDATE_SQL, { ...DECISIONS.toParams(record), expectedRevision })) === 1,
    list: async (filter = {}) =>
      (
        await all(DECISIONS_LIST_SQL, {
          status: filter.status ?? null,
          subjectId: filter.subjectId ?? null,
          kind: filter.kind ?? null,
          rootCause: filter.rootCause ?? null,
        })
      ).map((r) => DECISIONS.fromRow(r)),
  };
}
