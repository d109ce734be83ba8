/**
 * Runs the shared SQL statements on one better-sqlite3 connection, synchronously.
 * @packageDocumentation
 */
import type { Statement } from 'better-sqlite3';
import type { StorageSession } from '../../ports/storage-adapter';
import type { Query } from '../sql/query';
import type { Row } from '../sql/table-mapping';

/** A repository whose methods return their result directly. @internal */
export type SyncRepository<R> = {
  [K in keyof R]-?: NonNullable<R[K]> extends (...args: infer A) => Promise<infer T> ? (...args: A) => T : never;
};
/** Every repository of a session, synchronous (better-sqlite3 is). @internal */
export type SyncSession = { [K in keyof StorageSession]: SyncRepository<StorageSession[K]> };

/**
 * The executor of one connection: runs a query with its prepared statement (from `stmt`, the connection's
 * statement cache) and returns the query's result.
 * @internal
 */
export function sqliteExecutor(stmt: (sql: string) => Statement): (query: Query<unknown>) => unknown {
  return (query) => {
    const statement = stmt(query.sql);
    switch (query.returns) {
      case 'rows':
        return query.result(statement.all(query.params) as Row[]);
      case 'row':
        return query.result(statement.get(query.params) as Row | undefined);
      case 'count':
        return query.result(statement.run(query.params).changes);
    }
  };
}
