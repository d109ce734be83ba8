import type { RunEventRecord } from '../../core/run-records';
import { type Query, row } from '../sql/query';
import { type NewRunEvent, runEventStatements } from '../sql/run-event-sql';
import { POSTGRES_DIALECT } from './postgres-dialect';

/**
 * Takes the next global sequence from the one-row counter. The `UPDATE` locks the row until the appending
 * transaction ends, so appenders in every process take numbers one after the other, and a transaction holding
 * number N has committed (or rolled back) before any other gets N + 1: global sequence order is commit order, and a
 * reader paging `global_seq > after` can never see N + 1 while N is still to come. (A sequence would not do: its
 * numbers are handed out at once, and a transaction holding a lower one may commit after a higher one is read.)
 * The `NOTIFY` is delivered at commit.
 */
const NEXT_GLOBAL_SEQ = row(
  `UPDATE "{schema}".event_sequence SET value = value + 1 WHERE id = 1 RETURNING value, pg_notify('{channel}', 'events')`,
  {},
  (r) => Number(r!.value),
);

/**
 * `events.append` on PostgreSQL: the global sequence from the counter, then the insert — a new statement, so under
 * READ COMMITTED its snapshot is taken after the counter's lock was granted: it sees every event committed before,
 * and no other appender can commit one until this transaction ends. Two statements: on the adapter it needs a
 * transaction of its own.
 * @internal
 */
export async function pgAppendEvent(
  run: (query: Query<unknown>) => Promise<unknown>,
  event: NewRunEvent,
): Promise<RunEventRecord> {
  const globalSeq = (await run(NEXT_GLOBAL_SEQ)) as number;
  return (await run(runEventStatements(POSTGRES_DIALECT).appendAt(event, globalSeq))) as RunEventRecord;
}
