/**
 * The intents table for both SQL stores (the {@link IntentRepository}): `acquire` is a program of two statements
 * (the conditional upsert, then a read of the holder when the upsert changed nothing), the rest one statement each.
 * @packageDocumentation
 */
import type { IntentRecord } from '../../core/intent-records';
import type { IntentRepository } from '../../ports/intent-repository';
import type { SqlDialect } from './dialect';
import { count, exactlyOne, perDialect, type Program, type Programs, type Query, row } from './query';
import { type ColumnSpec, type Row, TableMapping } from './table-mapping';

const INTENT_FIELDS: ColumnSpec<IntentRecord> = {
  key: 'value',
  mediaEntityId: 'value',
  effectClass: 'value',
  holderRunId: 'value',
  holderActor: 'value',
  capabilityId: 'value',
  planId: 'value',
  createdAt: 'value',
  expiresAt: 'value',
};

/** A program of one statement: its result. */
function* one<T>(query: Query<T>): Program<T> {
  return (yield query) as T;
}

/**
 * The intents repository's programs in dialect `d`.
 *
 * @remarks
 * `acquire` is `INSERT … ON CONFLICT (key) DO UPDATE … WHERE <the stored row expired, or is the caller's>
 * RETURNING *`: of any number of transactions inserting the same key, one inserts it; on PostgreSQL a concurrent
 * one waits for it, then (READ COMMITTED) updates nothing and returns no row, and the read that follows sees the
 * committed holder. SQLite's write transactions run one at a time. A released intent is deleted, so its key is
 * free again.
 * @internal
 */
export const intentPrograms = perDialect((d: SqlDialect): Programs<IntentRepository> => {
  const table = d.table('intents');
  const INTENTS = new TableMapping<IntentRecord>(table, INTENT_FIELDS);
  const same = `(${table}.holder_run_id = excluded.holder_run_id OR (${table}.holder_run_id IS NULL AND excluded.holder_run_id IS NULL AND ${table}.holder_actor = excluded.holder_actor))`;
  const acquireSql = `${INTENTS.insertSql}
  ON CONFLICT (key) DO UPDATE SET
    media_entity_id = excluded.media_entity_id,
    effect_class = excluded.effect_class,
    holder_run_id = excluded.holder_run_id,
    holder_actor = excluded.holder_actor,
    capability_id = excluded.capability_id,
    plan_id = CASE WHEN ${same} THEN COALESCE(${table}.plan_id, excluded.plan_id) ELSE excluded.plan_id END,
    created_at = CASE WHEN ${same} THEN ${table}.created_at ELSE excluded.created_at END,
    expires_at = excluded.expires_at
  WHERE ${table}.expires_at <= @now OR ${same}
  RETURNING *`;
  const getSql = `SELECT * FROM ${table} WHERE key = @key`;
  const releaseSql = `DELETE FROM ${table} WHERE key = @key AND holder_run_id = @holderRunId`;
  const releaseByRunSql = `DELETE FROM ${table} WHERE holder_run_id = @runId`;
  const decode = (r: Row | undefined) => (r ? INTENTS.fromRow(r) : undefined);
  return {
    acquire: function* (record, now) {
      const taken = (yield row(acquireSql, { ...INTENTS.toParams(record), now }, decode)) as IntentRecord | undefined;
      if (taken) return taken;
      const holder = (yield row(getSql, { key: record.key }, decode)) as IntentRecord | undefined;
      // Only a row deleted between the two statements (a release in another transaction) leaves none: try again.
      if (holder) return holder;
      const retried = (yield row(acquireSql, { ...INTENTS.toParams(record), now }, decode)) as IntentRecord | undefined;
      return retried ?? record;
    },
    release: (key, holderRunId) => one(count(releaseSql, { key, holderRunId }, exactlyOne)),
    get: (key) => one(row(getSql, { key }, decode)),
    releaseByRun: (runId) => one(count(releaseByRunSql, { runId }, (n) => n)),
  };
});
