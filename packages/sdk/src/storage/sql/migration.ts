/**
 * One schema step of a SQL store (SQLite and PostgreSQL have the same versions and names).
 * @typeParam Step - the store's own code step (what it runs on its connection), when a migration has one
 * @internal
 */
export interface SqlMigration<Step = never> {
  /** Version the store is at after this migration (1, 2, …; consecutive). */
  readonly version: number;
  /** Short name recorded in `schema_migrations` (the same on every store). */
  readonly name: string;
  /** DDL statements, run in order in one transaction (PostgreSQL: `{schema}` is the adapter's schema). */
  readonly statements: readonly string[];
  /**
   * Code run after `statements`, in the same transaction (a backfill SQL alone cannot do, e.g. sealing the audit
   * chain of the rows written before it): a failure rolls the whole migration back.
   */
  readonly step?: Step;
}
