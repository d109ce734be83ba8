import type { SqlDialect } from '../sql/dialect';

/**
 * SQLite's SQL: plain table names, lists as JSON text read with `json_each`, booleans as 0/1, no row locks (a
 * transaction holds the file's write lock from `BEGIN IMMEDIATE`) and nobody to notify.
 * @internal
 */
export const SQLITE_DIALECT: SqlDialect = {
  table: (name) => name,
  inList: (column, param) => `${column} IN (SELECT value FROM json_each(@${param}))`,
  list: (values) => JSON.stringify([...values]),
  noLimit: -1,
  isTrue: (column) => `${column} = 1`,
  byCodePoint: (column) => column,
  jsonNumber: (column, key) => `json_extract(${column}, '$.${key}')`,
  skipLocked: '',
  notify: () => null,
  lockReads: false,
  rowBytes: (alias, columns) => sqliteRowBytes(`${alias}.`, columns),
  returnedBytes: (_alias, columns) => sqliteRowBytes('', columns),
};

/** The UTF-8 length of each non-null text column plus 8 per non-null number column, columns prefixed by `prefix`. */
function sqliteRowBytes(prefix: string, columns: ReadonlyArray<readonly [string, 't' | 'n']>): string {
  return `(${columns
    .map(([c, type]) =>
      type === 't'
        ? `COALESCE(LENGTH(CAST(${prefix}${c} AS BLOB)), 0)`
        : `(CASE WHEN ${prefix}${c} IS NULL THEN 0 ELSE 8 END)`,
    )
    .join(' + ')})`;
}
