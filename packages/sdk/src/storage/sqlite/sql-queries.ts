import type { Statement } from 'better-sqlite3';
import type { LedgerState } from '../../core/records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { Row, TableMapping } from './table-mapping';

/** A repository whose methods return their result directly. @internal */
export type SyncRepository<R> = {
  [K in keyof R]: R[K] extends (...args: infer A) => Promise<infer T> ? (...args: A) => T : never;
};
/** Every repository of a session, synchronous (better-sqlite3 is). @internal */
export type SyncSession = { [K in keyof StorageSession]: SyncRepository<StorageSession[K]> };

/** The query helpers every SQLite repository is written with, over one connection's prepared statements. @internal */
export interface SqlQueries {
  /** Every row `sql` returns for `params`. */
  all(sql: string, params: unknown): Row[];
  /** The first row `sql` returns for `params`, if any. */
  one(sql: string, params: unknown): Row | undefined;
  /** Runs `sql`; the number of rows it changed. */
  exec(sql: string, params: unknown): number;
  /** The record whose primary key `pk` is `id`, decoded by `m`. */
  byId<T extends object>(m: TableMapping<T>, pk: string, id: string): T | undefined;
  /** Inserts `record` (a duplicate key throws the driver's error). */
  mustInsert<T extends object>(m: TableMapping<T>, record: T): void;
  /** A list of ledger states as a JSON array parameter (read with `json_each`). */
  states(list: readonly LedgerState[]): string;
  /** A `LIMIT` parameter: -1 (no limit) when absent, else a non-negative integer. */
  limit(n: number | undefined): number;
  /** The SQL text cached under `key`, built by `build` the first time. */
  cas(key: string, build: () => string): string;
}

/** Builds the query helpers over `stmt` (the connection's statement cache). @internal */
export function createSqlQueries(stmt: (sql: string) => Statement): SqlQueries {
  const all = (sql: string, params: unknown): Row[] => stmt(sql).all(params) as Row[];
  const one = (sql: string, params: unknown): Row | undefined => stmt(sql).get(params) as Row | undefined;
  const exec = (sql: string, params: unknown): number => stmt(sql).run(params).changes;
  const byId = <T extends object>(m: TableMapping<T>, pk: string, id: string): T | undefined => {
    const row = one(m.selectBy(pk), { id });
    return row ? m.fromRow(row) : undefined;
  };
  const mustInsert = <T extends object>(m: TableMapping<T>, record: T): void => {
    exec(m.insertSql, m.toParams(record));
  };
  const states = (list: readonly LedgerState[]) => JSON.stringify([...list]);
  const limit = (n: number | undefined) => (n === undefined ? -1 : Math.max(0, Math.floor(n)));
  /** SQL text of a compare-and-set per (table, patched fields, extra condition). */
  const casSql = new Map<string, string>();
  const cas = (key: string, build: () => string): string => {
    let sql = casSql.get(key);
    if (sql === undefined) casSql.set(key, (sql = build()));
    return sql;
  };
  return { all, one, exec, byId, mustInsert, states, limit, cas };
}
