import type { SqlDialect } from '../sql/dialect';

/**
 * PostgreSQL's SQL: tables in the `{schema}` marker's schema, lists as array parameters, real booleans, a lease's
 * candidate locked with `FOR UPDATE SKIP LOCKED`, and `pg_notify` on the `{channel}` marker's channel (delivered
 * at commit) where a change may concern waiting workers of other processes.
 * @internal
 */
export const POSTGRES_DIALECT: SqlDialect = {
  table: (name) => `"{schema}".${name}`,
  inList: (column, param) => `${column} = ANY(@${param})`,
  list: (values) => [...values],
  noLimit: null,
  isTrue: (column) => column,
  byCodePoint: (column) => `${column} COLLATE "C"`,
  jsonNumber: (column, key) => `(${column}->>'${key}')::double precision`,
  skipLocked: '\n    FOR UPDATE SKIP LOCKED',
  notify: (topic) => `pg_notify('{channel}', '${topic}')`,
  lockReads: false,
  rowBytes: (alias, columns) => pgRowBytes(alias, columns),
  returnedBytes: (alias, columns) => pgRowBytes(alias, columns),
};

/** {@link POSTGRES_DIALECT} inside `transaction(fn)`: reads that a budget check depends on lock their row. @internal */
export const POSTGRES_TRANSACTION_DIALECT: SqlDialect = { ...POSTGRES_DIALECT, lockReads: true };

/**
 * The stored size of each column value of row `alias` (`pg_column_size`: compressed size for a value TOAST compressed),
 * summed; a whole-row `pg_column_size(x.*)` would not do, its size depends on how the row value was built.
 */
function pgRowBytes(alias: string, columns: ReadonlyArray<readonly [string, 't' | 'n']>): string {
  return `(${columns.map(([c]) => `COALESCE(pg_column_size(${alias}.${c}), 0)`).join(' + ')})`;
}
