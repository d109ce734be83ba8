/**
 * The steering inbox table for both SQL stores.
 * @packageDocumentation
 */
import type { InboxRecord } from '../../core/run-records';
import type { InboxRepository } from '../../ports/storage-adapter';
import type { SqlDialect } from './dialect';
import { count, nothing, perDialect, rows, type Statements } from './query';
import { type ColumnSpec, TableMapping } from './table-mapping';

const INBOX_FIELDS: ColumnSpec<InboxRecord> = {
  id: 'value',
  runId: 'value',
  text: 'value',
  actor: 'value',
  status: 'value',
  createdAt: 'value',
  appliedAt: 'value',
};

/** The inbox repository's statements in dialect `d`. @internal */
export const inboxStatements = perDialect((d: SqlDialect): Statements<InboxRepository> => {
  const table = d.table('inbox');
  const INBOX = new TableMapping<InboxRecord>(table, INBOX_FIELDS);
  const queuedSql = `SELECT * FROM ${table} WHERE run_id = @runId AND status = 'queued' ORDER BY created_at, ${d.byCodePoint('id')}`;
  const appliedSql = `UPDATE ${table} SET status = 'applied', applied_at = @at WHERE ${d.inList('id', 'ids')} AND status = 'queued'`;
  return {
    enqueue: (record) => count(INBOX.insertSql, INBOX.toParams(record), nothing),
    listQueued: (runId) => rows(queuedSql, { runId }, (found) => found.map((r) => INBOX.fromRow(r))),
    markApplied: (ids, at) => count(appliedSql, { ids: d.list(ids), at }, (n) => n),
  };
});
