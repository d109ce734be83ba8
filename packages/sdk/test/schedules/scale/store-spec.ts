// Which store the processes of a schedules scale scenario share: one SQLite file, or one PostgreSQL schema. Every
// process (controller and hosts) opens its own adapter from the same spec.
import pg from 'pg';
import { PostgresStorage } from '../../../src/postgres';
import { SqliteStorage } from '../../../src/sqlite';
import type { StorageAdapter } from '../../../src/storage';

/** The shared store: a SQLite file path, or a PostgreSQL URL and schema. */
export type ScaleStoreSpec = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; schema: string };

/** Opens this process's adapter on the shared store (not migrated: `host.start()` or the caller migrates). */
export async function openScaleStore(spec: ScaleStoreSpec): Promise<StorageAdapter> {
  switch (spec.kind) {
    case 'sqlite':
      // Four processes write one file: a writer may wait behind the others' commits for a while.
      return new SqliteStorage({ path: spec.path, busyTimeoutMs: 30_000 });
    case 'postgres':
      return new PostgresStorage({ connectionString: spec.url, schema: spec.schema, poolSize: 4 });
  }
}

/** The PostgreSQL server of the tests and the bench: `MEDIA_AGENT_PG_URL`, default `postgres://postgres@127.0.0.1:5432/test`. */
export const SCALE_PG_URL = process.env.MEDIA_AGENT_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** Why the PostgreSQL server cannot be used (one line), or undefined when it answers `SELECT 1`. */
export async function postgresUnreachable(url: string = SCALE_PG_URL): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    const e = error as { code?: string; message?: string };
    return `${e.code ? `${e.code}: ` : ''}${e.message || String(error)}`.split('\n')[0];
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Drops a schema and everything in it. */
export async function dropPostgresSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema.replaceAll('"', '""')}" CASCADE`);
  } finally {
    await client.end().catch(() => undefined);
  }
}
