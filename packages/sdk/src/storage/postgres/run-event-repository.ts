import type { RunEventRecord } from '../../core/run-records';
import type { RunEventRepository } from '../../ports/storage-adapter';
import { TableMapping } from '../sqlite/table-mapping';
import type { PgQueries } from './sql-queries';

const RUN_EVENTS = new TableMapping<RunEventRecord>('"{schema}".run_events', {
  globalSeq: 'value',
  runId: 'value',
  seq: 'value',
  type: 'value',
  at: 'value',
  data: 'json',
});

/**
 * Takes the next global sequence from the one-row counter. The `UPDATE` locks the row until the appending
 * transaction ends, so appenders in every process take numbers one after the other, and a transaction holding
 * number N has committed (or rolled back) before any other gets N + 1: global sequence order is commit order, and a
 * reader paging `global_seq > after` can never see N + 1 while N is still to come. (A sequence would not do: its
 * numbers are handed out at once, and a transaction holding a lower one may commit after a higher one is read.)
 * The `NOTIFY` is delivered at commit.
 */
const NEXT_GLOBAL_SEQ_SQL = `UPDATE "{schema}".event_sequence SET value = value + 1 WHERE id = 1 RETURNING value, pg_notify('{channel}', 'events')`;

// A new statement, so under READ COMMITTED its snapshot is taken after the counter's lock was granted: it sees every
// event committed before, and no other appender can commit one until this transaction ends.
const EVENT_APPEND_SQL = `INSERT INTO "{schema}".run_events (global_seq, run_id, seq, type, at, data)
  VALUES (@globalSeq, @runId, (SELECT COALESCE(MAX(seq), 0) + 1 FROM "{schema}".run_events WHERE run_id = @runId), @type, @at, @data)
  RETURNING *`;

const EVENTS_BY_RUN_SQL = `SELECT * FROM "{schema}".run_events WHERE run_id = @runId AND seq > @after ORDER BY seq LIMIT @limit`;

const EVENTS_AFTER_SQL = `SELECT * FROM "{schema}".run_events WHERE global_seq > @after ORDER BY global_seq LIMIT @limit`;

/** The run events repository: per-run `seq` and a global sequence in commit order. @internal */
export function pgRunEventRepository(q: PgQueries): RunEventRepository {
  const { all, one, limit } = q;
  return {
    append: async (event) => {
      const next = await one(NEXT_GLOBAL_SEQ_SQL, {});
      const row = await one(EVENT_APPEND_SQL, {
        globalSeq: next!.value,
        runId: event.runId,
        type: event.type,
        at: event.at,
        data: TableMapping.encode('json', event.data),
      });
      return RUN_EVENTS.fromRow(row!);
    },
    listByRun: async (runId, options = {}) =>
      (await all(EVENTS_BY_RUN_SQL, { runId, after: options.afterSeq ?? 0, limit: limit(options.limit ?? 100) })).map(
        (r) => RUN_EVENTS.fromRow(r),
      ),
    listAfter: async (after = 0, max = 100) =>
      (await all(EVENTS_AFTER_SQL, { after, limit: limit(max) })).map((r) => RUN_EVENTS.fromRow(r)),
  };
}
