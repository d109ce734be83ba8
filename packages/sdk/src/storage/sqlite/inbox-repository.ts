import type { InboxRecord } from '../../core/run-records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { SqlQueries, SyncRepository } from './sql-queries';
import { TableMapping } from './table-mapping';

const INBOX = new TableMapping<InboxRecord>('inbox', {
  id: 'value',
  runId: 'value',
  text: 'value',
  actor: 'value',
  status: 'value',
  createdAt: 'value',
  appliedAt: 'value',
});

const INBOX_QUEUED_SQL = `SELECT * FROM inbox WHERE run_id = @runId AND status = 'queued' ORDER BY created_at, id`;

const INBOX_APPLIED_SQL = `UPDATE inbox SET status = 'applied', applied_at = @at WHERE id IN (SELECT value FROM json_each(@ids)) AND status = 'queued'`;

/** The inbox repository. Synchronous, over one connection's prepared statements. @internal */
export function sqliteInboxRepository(q: SqlQueries): SyncRepository<StorageSession['inbox']> {
  const { all, exec, mustInsert } = q;
  return {
    enqueue: (record) => mustInsert(INBOX, record),
    listQueued: (runId) => all(INBOX_QUEUED_SQL, { runId }).map((r) => INBOX.fromRow(r)),
    markApplied: (ids, at) => exec(INBOX_APPLIED_SQL, { ids: JSON.stringify([...ids]), at }),
  };
}
