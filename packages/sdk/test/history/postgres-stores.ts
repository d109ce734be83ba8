import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { PostgresHistoryStore, type PostgresHistoryStoreOptions } from '../../src/history/postgres-history-store';
import { freshSchemaName, PG_URL } from '../storage/postgres-available';

/**
 * PostgresHistoryStores for the tests of one describe block: `store(options)` opens one on a fresh schema named
 * `<prefix>_…` (pool size 2), `schema()` names one more such schema, `admin()` is a one-connection pool for the
 * tests' own queries. After all the tests every store is closed and every schema dropped. Call inside the describe
 * block (it registers its beforeAll and afterAll hooks).
 */
export function postgresHistoryStores(prefix: string) {
  const schemas: string[] = [];
  const stores: PostgresHistoryStore[] = [];
  let admin: pg.Pool;
  beforeAll(() => {
    admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });
  const schema = (): string => {
    const name = freshSchemaName(prefix);
    schemas.push(name);
    return name;
  };
  return {
    admin: () => admin,
    schema,
    store: (options: Partial<PostgresHistoryStoreOptions> = {}): PostgresHistoryStore => {
      const s = new PostgresHistoryStore({ connectionString: PG_URL, schema: schema(), poolSize: 2, ...options });
      stores.push(s);
      return s;
    },
  };
}
