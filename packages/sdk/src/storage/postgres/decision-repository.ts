import type { DecisionRecord } from '../../core/run-records';
import type { DecisionRepository } from '../../ports/storage-adapter';
import { TableMapping } from '../sqlite/table-mapping';
import type { PgQueries } from './sql-queries';

const DECISIONS = new TableMapping<DecisionRecord>('"{schema}".decisions', {
  id: 'value',
  kind: 'value',
  dedupeKey: 'value',
  subjectId: 'value',
  status: 'value',
  reason: 'value',
  data: 'json',
  createdAt: 'value',
  resolvedAt: 'value',
});

const DECISIONS_INSERT_SQL = `${DECISIONS.insertSql} ON CONFLICT (dedupe_key) DO NOTHING`;

const DECISIONS_LIST_SQL = `SELECT * FROM "{schema}".decisions WHERE (@status::text IS NULL OR status = @status) AND (@subjectId::text IS NULL OR subject_id = @subjectId) ORDER BY created_at DESC, id DESC`;

/** The decisions repository (pending decisions for people, one per dedupe key). @internal */
export function pgDecisionRepository(q: PgQueries): DecisionRepository {
  const { all, exec } = q;
  return {
    insert: async (record) => (await exec(DECISIONS_INSERT_SQL, DECISIONS.toParams(record))) === 1,
    list: async (filter = {}) =>
      (await all(DECISIONS_LIST_SQL, { status: filter.status ?? null, subjectId: filter.subjectId ?? null })).map((r) =>
        DECISIONS.fromRow(r),
      ),
  };
}
