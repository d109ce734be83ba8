/**
 * The run conversation table for both SQL stores.
 * @packageDocumentation
 */
import type { RunMessageRecord } from '../../core/run-records';
import type { RunMessageRepository } from '../../ports/storage-adapter';
import type { SqlDialect } from './dialect';
import { perDialect, row, rows, type Statements } from './query';
import { type ColumnSpec, TableMapping } from './table-mapping';

const MESSAGE_FIELDS: ColumnSpec<RunMessageRecord> = {
  runId: 'value',
  seq: 'value',
  message: 'lazyJson', // the loop appends and does not read back; a resume reads every one
  at: 'value',
};

/**
 * The run conversation repository's statements in dialect `d`. One driver per run (its lease) appends, so
 * `MAX(seq) + 1` does not race; two that did would hit the primary key.
 * @internal
 */
export const runMessageStatements = perDialect((d: SqlDialect): Statements<RunMessageRepository> => {
  const table = d.table('run_messages');
  const MESSAGES = new TableMapping<RunMessageRecord>(table, MESSAGE_FIELDS);
  const appendSql = `INSERT INTO ${table} (run_id, seq, message, at)
  VALUES (@runId, (SELECT COALESCE(MAX(seq), 0) + 1 FROM ${table} WHERE run_id = @runId), @message, @at)
  RETURNING *`;
  const listSql = `SELECT * FROM ${table} WHERE run_id = @runId ORDER BY seq`;
  return {
    append: (runId, message, at) =>
      row(appendSql, { runId, message: TableMapping.encode('json', message), at }, (r) => MESSAGES.fromRow(r!)),
    list: (runId) => rows(listSql, { runId }, (found) => found.map((r) => MESSAGES.fromRow(r))),
  };
});
