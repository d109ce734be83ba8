/**
 * The run events table for both SQL stores: a per-run `seq` and a global sequence.
 * @packageDocumentation
 */
import type { RunEventRecord } from '../../core/run-records';
import type { RunEventRepository } from '../../ports/storage-adapter';
import type { SqlDialect } from './dialect';
import { limitParam, perDialect, type Query, row, rows, type Statements } from './query';
import { type ColumnSpec, type Row, TableMapping } from './table-mapping';

/** Every field but `messageCount`, which is absent (not null) on most events (`message_count`; see `EventMapping`). */
const EVENT_FIELDS: ColumnSpec<Omit<RunEventRecord, 'messageCount'>> = {
  globalSeq: 'value',
  runId: 'value',
  seq: 'value',
  type: 'value',
  at: 'value',
  data: 'json',
};

/** The run events table's mapping: the record's fields, plus `messageCount` from `message_count` when set (absent otherwise). */
class EventMapping extends TableMapping<RunEventRecord> {
  constructor(table: string) {
    super(table, EVENT_FIELDS as ColumnSpec<RunEventRecord>);
  }

  override fromRow(row: Row): RunEventRecord {
    const record = super.fromRow(row);
    const count = row.message_count;
    if (count !== null && count !== undefined) record.messageCount = Number(count);
    return record;
  }
}

/** An event as appended: the store assigns `seq` and `globalSeq`. @internal */
export type NewRunEvent = Omit<RunEventRecord, 'seq' | 'globalSeq'>;

/**
 * The run events repository's statements in dialect `d`, and `appendAt`: the append of a store that takes the
 * global sequence itself (PostgreSQL, from a locked counter) rather than from the table (SQLite's autoincrement,
 * taken under its write lock). Either way the per-run `MAX(seq) + 1` is read inside the appending transaction.
 * @internal
 */
export const runEventStatements = perDialect(
  (
    d: SqlDialect,
  ): {
    statements: Statements<RunEventRepository>;
    appendAt(event: NewRunEvent, globalSeq: number): Query<RunEventRecord>;
  } => {
    const table = d.table('run_events');
    const EVENTS = new EventMapping(table);
    const nextSeq = `(SELECT COALESCE(MAX(seq), 0) + 1 FROM ${table} WHERE run_id = @runId)`;
    const appendSql = `INSERT INTO ${table} (run_id, seq, type, at, data, message_count)
  VALUES (@runId, ${nextSeq}, @type, @at, @data, @messageCount)
  RETURNING *`;
    const appendAtSql = `INSERT INTO ${table} (global_seq, run_id, seq, type, at, data, message_count)
  VALUES (@globalSeq, @runId, ${nextSeq}, @type, @at, @data, @messageCount)
  RETURNING *`;
    const byRunSql = `SELECT * FROM ${table} WHERE run_id = @runId AND seq > @after ORDER BY seq LIMIT @limit`;
    const afterSql = `SELECT * FROM ${table} WHERE global_seq > @after ORDER BY global_seq LIMIT @limit`;
    const params = (event: NewRunEvent): Row => ({
      runId: event.runId,
      type: event.type,
      at: event.at,
      data: TableMapping.encode('json', event.data),
      messageCount: event.messageCount ?? null,
    });
    const decode = (r: Row | undefined) => EVENTS.fromRow(r!);
    const decodeAll = (found: Row[]) => found.map((r) => EVENTS.fromRow(r));
    return {
      statements: {
        append: (event) => row(appendSql, params(event), decode),
        listByRun: (runId, options = {}) =>
          rows(
            byRunSql,
            { runId, after: options.afterSeq ?? 0, limit: limitParam(options.limit ?? 100, d.noLimit) },
            decodeAll,
          ),
        listAfter: (after = 0, max = 100) => rows(afterSql, { after, limit: limitParam(max, d.noLimit) }, decodeAll),
      },
      appendAt: (event, globalSeq) => row(appendAtSql, { ...params(event), globalSeq }, decode),
    };
  },
);
