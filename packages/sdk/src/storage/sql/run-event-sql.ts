/**
 * The run events table for both SQL stores: a per-run `seq` and a global sequence.
 * @packageDocumentation
 */
import type { RunEventRecord } from '../../core/run-records';
import type { RunEventRepository } from '../../ports/storage-adapter';
import type { SqlDialect } from './dialect';
import { limitParam, perDialect, type Query, row, rows, type Statements } from './query';
import { type ColumnSpec, type Row, TableMapping } from './table-mapping';

const EVENT_FIELDS: ColumnSpec<RunEventRecord> = {
  globalSeq: 'value',
  runId: 'value',
  seq: 'value',
  type: 'value',
  at: 'value',
  data: 'json',
};

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
    const EVENTS = new TableMapping<RunEventRecord>(table, EVENT_FIELDS);
    const nextSeq = `(SELECT COALESCE(MAX(seq), 0) + 1 FROM ${table} WHERE run_id = @runId)`;
    const appendSql = `INSERT INTO ${table} (run_id, seq, type, at, data)
  VALUES (@runId, ${nextSeq}, @type, @at, @data)
  RETURNING *`;
    const appendAtSql = `INSERT INTO ${table} (global_seq, run_id, seq, type, at, data)
  VALUES (@globalSeq, @runId, ${nextSeq}, @type, @at, @data)
  RETURNING *`;
    const byRunSql = `SELECT * FROM ${table} WHERE run_id = @runId AND seq > @after ORDER BY seq LIMIT @limit`;
    const afterSql = `SELECT * FROM ${table} WHERE global_seq > @after ORDER BY global_seq LIMIT @limit`;
    const params = (event: NewRunEvent): Row => ({
      runId: event.runId,
      type: event.type,
      at: event.at,
      data: TableMapping.encode('json', event.data),
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
