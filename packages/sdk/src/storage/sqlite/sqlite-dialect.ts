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
};
