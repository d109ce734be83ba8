import type { RunEventRecord } from '../../core/run-records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { SqlQueries, SyncRepository } from './sql-queries';
import { TableMapping } from './table-mapping';

const RUN_EVENTS = new TableMapping<RunEventRecord>('run_events', {
  globalSeq: 'value',
  runId: 'value',
  seq: 'value',
  type: 'value',
  at: 'value',
  data: 'json',
});

// Runs inside the write transaction: the per-run MAX and the global sequence are taken under the write lock, so
// commits happen in global_seq order and a reader paging by global_seq misses nothing.
// (PostgreSQL: serialize appends, e.g. pg_advisory_xact_lock, for the same guarantee.)
const EVENT_APPEND_SQL = `INSERT INTO run_events (run_id, seq, type, at, data)
  VALUES (@runId, (SELECT COALESCE(MAX(seq), 0) + 1 FROM run_events WHERE run_id = @runId), @type, @at, @data)
  RETURNING *`;

const EVENTS_BY_RUN_SQL = `SELECT * FROM run_events WHERE run_id = @runId AND seq > @after ORDER BY seq LIMIT @limit`;

const EVENTS_AFTER_SQL = `SELECT * FROM run_events WHERE global_seq > @after ORDER BY global_seq LIMIT @limit`;

/** The run events repository. Synchronous, over one connection's prepared statements. @internal */
export function sqliteRunEventRepository(q: SqlQueries): SyncRepository<StorageSession['events']> {
  const { all, one, limit } = q;
  return {
    append: (event) => {
      const row = one(EVENT_APPEND_SQL, {
        runId: event.runId,
        type: event.type,
        at: event.at,
        data: TableMapping.encode('json', event.data),
      });
      return RUN_EVENTS.fromRow(row!);
    },
    listByRun: (runId, options = {}) =>
      all(EVENTS_BY_RUN_SQL, { runId, after: options.afterSeq ?? 0, limit: limit(options.limit ?? 100) }).map((r) =>
        RUN_EVENTS.fromRow(r),
      ),
    listAfter: (after = 0, max = 100) =>
      all(EVENTS_AFTER_SQL, { after, limit: limit(max) }).map((r) => RUN_EVENTS.fromRow(r)),
  };
}
