// Prepared statements cached per connection (preparing costs more than running a small statement).
import type { Database, Statement } from 'better-sqlite3';

const statements = new WeakMap<Database, Map<string, Statement>>();

/** The prepared statement for `text` on `db`, prepared once per connection. */
export function sql(db: Database, text: string): Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map()));
  let stmt = cache.get(text);
  if (!stmt) {
    stmt = db.prepare(text);
    if (cache.size > 200) cache.clear();
    cache.set(text, stmt);
  }
  return stmt;
}

/** Forgets the statements of `db` (its schema changed: statements prepared before may be stale). */
export function forgetStatements(db: Database): void {
  statements.delete(db);
}
