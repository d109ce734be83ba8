import type { RunMessageRecord } from '../../core/run-records';
import type { RunMessageRepository } from '../../ports/storage-adapter';
import { TableMapping } from '../sqlite/table-mapping';
import type { PgQueries } from './sql-queries';

const RUN_MESSAGES = new TableMapping<RunMessageRecord>('"{schema}".run_messages', {
  runId: 'value',
  seq: 'value',
  message: 'lazyJson', // the loop appends and does not read back; a resume reads every one
  at: 'value',
});

// One driver per run (its lease) appends, so MAX(seq) + 1 does not race; two that did would hit the primary key.
const MESSAGE_APPEND_SQL = `INSERT INTO "{schema}".run_messages (run_id, seq, message, at)
  VALUES (@runId, (SELECT COALESCE(MAX(seq), 0) + 1 FROM "{schema}".run_messages WHERE run_id = @runId), @message, @at)
  RETURNING *`;

const MESSAGES_LIST_SQL = `SELECT * FROM "{schema}".run_messages WHERE run_id = @runId ORDER BY seq`;

/** The run conversation repository. @internal */
export function pgRunMessageRepository(q: PgQueries): RunMessageRepository {
  const { all, one } = q;
  return {
    append: async (runId, message, at) => {
      const row = await one(MESSAGE_APPEND_SQL, { runId, message: TableMapping.encode('json', message), at });
      return RUN_MESSAGES.fromRow(row!);
    },
    list: async (runId) => (await all(MESSAGES_LIST_SQL, { runId })).map((r) => RUN_MESSAGES.fromRow(r)),
  };
}
