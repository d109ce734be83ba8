/**
 * What the SQL of the SQLite and PostgreSQL stores differs in. Every statement is written once, in the named
 * parameter form `@name` (PostgreSQL's executor turns it into `$1`, `$2`, …), and asks its dialect for the rest.
 * @packageDocumentation
 */
import type { StorageTopic } from '../../ports/storage-adapter';

/** The few places where SQLite and PostgreSQL need different SQL or parameter values. @internal */
export interface SqlDialect {
  /** The table `name` as statements name it (PostgreSQL: qualified by the `{schema}` marker). */
  table(name: string): string;
  /** The condition "`column` is one of the list parameter `@param`" (bound with {@link SqlDialect.list}). */
  inList(column: string, param: string): string;
  /** The value a list parameter binds as (SQLite: JSON text read with `json_each`; PostgreSQL: an array). */
  list(values: readonly string[]): unknown;
  /** The `LIMIT` parameter meaning "no limit" (SQLite: -1; PostgreSQL: null). */
  readonly noLimit: number | null;
  /** The condition "boolean `column` is true" (SQLite stores 0/1). */
  isTrue(column: string): string;
  /**
   * `column` (text) as an `ORDER BY` term in code-point order, whatever the database's collation: the tie-breaker
   * of every list, so ties list alike on every store (SQLite's `BINARY` is that order already; PostgreSQL's default
   * collation is often a language's, which orders case and punctuation otherwise).
   */
  byCodePoint(column: string): string;
  /** The number at `key` of JSON `column`, for sums. */
  jsonNumber(column: string, key: string): string;
  /**
   * What follows the candidate subquery of a lease (PostgreSQL: `FOR UPDATE SKIP LOCKED`, so concurrent workers
   * each take a different run; SQLite: nothing, its write transaction already excludes every other writer).
   */
  readonly skipLocked: string;
  /** A `RETURNING` expression that wakes other processes about `topic` at commit, or null when none listen. */
  notify(topic: StorageTopic): string | null;
  /**
   * Whether a read that a budget check depends on locks its row until the transaction ends (PostgreSQL inside a
   * transaction; SQLite's transactions hold the write lock from their start, so a plain read is enough).
   */
  readonly lockReads: boolean;
  /**
   * The content bytes of a row of `alias`, as an SQL expression (retention's measure). SQLite: the UTF-8 length of
   * each non-null text column plus 8 per non-null number column (of `columns`); PostgreSQL: the sum of
   * `pg_column_size` of each column value (its stored size: compressed bytes for a value TOAST compressed).
   */
  rowBytes(alias: string, columns: ReadonlyArray<readonly [name: string, type: 't' | 'n']>): string;
  /**
   * {@link SqlDialect.rowBytes} in the `RETURNING` clause of a statement on the table aliased `alias` (SQLite's
   * `RETURNING` names columns bare).
   */
  returnedBytes(alias: string, columns: ReadonlyArray<readonly [name: string, type: 't' | 'n']>): string;
}
