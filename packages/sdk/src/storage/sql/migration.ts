/** One schema step of a SQL store (SQLite and PostgreSQL have the same versions and names). @internal */
export interface SqlMigration {
  /** Version the store is at after this migration (1, 2, …; consecutive). */
  readonly version: number;
  /** Short name recorded in `schema_migrations` (the same on every store). */
  readonly name: string;
  /** DDL statements, run in order in one transaction (PostgreSQL: `{schema}` is the adapter's schema). */
  readonly statements: readonly string[];
}
