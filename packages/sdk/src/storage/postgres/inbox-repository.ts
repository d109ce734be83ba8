import type { InboxRecord } from '../../core/run-records';
import type { InboxRepository } from '../../ports/storage-adapter';
import { TableMapping } from '../sqlite/table-mapping';
import type { PgQueries } from './sql-queries';

const INBOX = new TableMapping<InboxRecord>('"{schema}".inbox', {
  id: 'value',
  runId: 'value',
  text: 'value',
  actor: 'value',
  status: 'value',
  createdAt: 'value',
  appliedAt: 'value',
});

const INBOX_QUEUED_SQL = `SELECT * FROM "{schema}".inbox WHERE run_id = @runId AND status = 'queued' ORDER BY created_at, id`;

const INBOX_APPLIED_SQL = `UPDATE "{schema}".inbox SET status = 'applied', applied_at = @at WHERE id = ANY(@ids) AND status = 'queued'`;

/** The inbox repository (steering messages queued for runs). @internal */
export function pgInboxRepository(q: PgQueries): InboxRepository {
  const { all, exec, mustInsert } = q;
  return {
    enqueue: (record) => mustInsert(INBOX, record),
    listQueued: async (runId) => (await all(INBOX_QUEUED_SQL, { runId })).map((r) => INBOX.fromRow(r)),
    markApplied: (ids, at) => exec(INBOX_APPLIED_SQL, { ids: [...ids], at }),
  };
}
