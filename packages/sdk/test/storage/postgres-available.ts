/**
 * What the PostgreSQL suites share: the server's URL and whether it answered the probe of `postgres-probe.ts`
 * (once per test run), fresh schemas per case, and `describe`/`it` that skip when the server is unreachable —
 * or, under `CI=true`, fail.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, inject, it } from 'vitest';
import { PostgresStorage, type PostgresStorageOptions } from '../../src/postgres';

const probe = inject('postgres');

/** The server's URL (`MEDIA_AGENT_PG_URL`, default `postgres://postgres@127.0.0.1:5432/test`). */
export const PG_URL = probe.url;
/** Whether the server answered. */
export const PG_AVAILABLE = probe.available;

/**
 * `describe` for a PostgreSQL suite: runs it when the server answered, skips it otherwise — except under
 * `CI=true`, where an unreachable server is a failure (one failing case says why).
 */
export function describePostgres(name: string, fn: () => void): void {
  if (PG_AVAILABLE) describe(name, fn);
  else if (process.env.CI === 'true')
    describe(name, () => {
      it('reaches the PostgreSQL server (required under CI=true)', () => {
        throw new Error(`no PostgreSQL server at ${PG_URL}: ${probe.reason}`);
      });
    });
  else describe.skip(name, fn);
}

/** The test framework functions for `describeStorageConformance`, with {@link describePostgres}. */
export const postgresTestApi = { describe: describePostgres, it };

/** A schema name no other case (or process) uses. */
export function freshSchemaName(prefix = 'ma_test'): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** One connection for administration (dropping schemas, terminating backends), made on first use. */
let admin: pg.Pool | undefined;
export function adminPool(): pg.Pool {
  if (!admin) {
    admin = new pg.Pool({ connectionString: PG_URL, max: 2 });
    admin.on('error', () => undefined);
  }
  return admin;
}

/** Drops `schema` and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  await adminPool().query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

/** Ends the administration connection (call in `afterAll`). */
export async function closeAdmin(): Promise<void> {
  const pool = admin;
  admin = undefined;
  await pool?.end();
}

/** A {@link PostgresStorage} on the test server in `schema` (small pool, short timeouts). */
export function pgStorage(schema: string, options: Partial<PostgresStorageOptions> = {}): PostgresStorage {
  return new PostgresStorage({
    connectionString: PG_URL,
    schema,
    poolSize: 2,
    connectionTimeoutMs: 3_000,
    ...options,
  });
}
