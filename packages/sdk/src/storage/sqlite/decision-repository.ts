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

/** The list's filters and their columns. */
const DECISION_FILTERS = [
  ['status', 'status'],
  ['subjectId', 'subject_id'],
  ['kind', 'kind'],
  ['rootCause', 'root_cause'],
] as const;

/**
 * The list: only the filters given become conditions, so `decisions_subject_created`, `decisions_root_cause` or
 * `decisions_status_created` serves it (a `(@x IS NULL OR col = @x)` condition is served by no index: every list
 * scanned the table).
 */
function decisionsListSql(where: readonly string[]): string {
  const clause = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  return `SELECT * FROM decisions${clause} ORDER BY created_at DESC, id DESC`;
}

/** The decisions repository. Synchronous, over one connection's prepared statements. @internal */
export function sqliteDecisionRepository(q: SqlQueries): SyncRepository<StorageSession['decisions']> {
  const { all, exec, byId } = q;
  return {
    insert: (record) => exec(DECISIONS_INSERT_SQL, DECISIONS.toParams(record)) === 1,
    get: (id) => byId(DECISIONS, 'id', id),
    getByKey: (dedupeKey) => byId(DECISIONS, 'dedupe_key', dedupeKey),
    update: (record, expectedRevision) =>
      exec(DECISIONS_UPDATE_SQL, { ...DECISIONS.toParams(record), expectedRevision }) === 1,
    list: (filter = {}) => {
      const params: Record<string, unknown> = {};
      const where: string[] = [];
      for (const [field, column] of DECISION_FILTERS) {
        const value = filter[field];
        if (value == null) continue;
        where.push(`${column} = @${field}`);
        params[field] = value;
      }
      return all(decisionsListSql(where), params).map((r) => DECISIONS.fromRow(r));
    },
  };
}
