import type { RunMessageRecord } from '../../core/run-records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { SqlQueries, SyncRepository } from './sql-queries';
import { TableMapping } from './table-mapping';

const RUN_MESSAGES = new TableMapping<RunMessageRecord>('run_messages', {
  runId: 'value',
  seq: 'value',
  message: 'lazyJson', // the loop appends and does not read back; a resume reads every one
  at: 'value',
});

const MESSAGE_APPEND_SQL = `INSERT INTO run_messages (run_id, seq, message, at)
  VALUES (@runId, (SELECT COALESCE(MAX(seq), 0) + 1 FROM run_messages WHERE run_id = @runId), @message, @at)
  RETURNING *`;

const MESSAGES_LIST_SQL = `SELECT * FROM run_messages WHERE run_id = @runId ORDER BY seq`;

/** The run conversation repository. Synchronous, over one connection's prepared statements. @internal */
export function sqliteRunMessageRepository(q: SqlQueries): SyncRepository<StorageSession['messages']> {
  const { all, one } = q;
  return {
    append: (runId, message, at) => {
      const row = one(MESSAGE_APPEND_SQL, { runId, message: TableMapping.encode('json', message), at });
      return RUN_MESSAGES.fromRow(row!);
    },
    list: (runId) => all(MESSAGES_LIST_SQL, { runId }).map((r) => RUN_MESSAGES.fromRow(r)),
  };
}
