import type { DecisionRecord } from '../../core/run-records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { SqlQueries, SyncRepository } from './sql-queries';
import { TableMapping } from './table-mapping';

const DECISIONS = new TableMapping<DecisionRecord>('decisions', {
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

const DECISIONS_LIST_SQL = `SELECT * FROM decisions WHERE (@status IS NULL OR status = @status) AND (@subjectId IS NULL OR subject_id = @subjectId) ORDER BY created_at DESC, id DESC`;

/** The decisions repository. Synchronous, over one connection's prepared statements. @internal */
export function sqliteDecisionRepository(q: SqlQueries): SyncRepository<StorageSession['decisions']> {
  const { all, exec } = q;
  return {
    insert: (record) => exec(DECISIONS_INSERT_SQL, DECISIONS.toParams(record)) === 1,
    list: (filter = {}) =>
      all(DECISIONS_LIST_SQL, { status: filter.status ?? null, subjectId: filter.subjectId ?? null }).map((r) =>
        DECISIONS.fromRow(r),
      ),
  };
}
