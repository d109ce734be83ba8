// Which database the scale-out processes share: one SQLite file, or one PostgreSQL schema. Every
// process (controller and workers) opens its own adapter from the same spec.
import pg from 'pg';
import type { StorageAdapter } from '@media-agent/sdk/storage';
import { SqliteStorage } from '@media-agent/sdk/sqlite';
import { PostgresStorage } from '@media-agent/sdk/postgres';

/** The shared database of a scale-out run: a SQLite file path, or a PostgreSQL URL and schema. */
export type ScaleStorageSpec = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; schema: string };

/** Opens this process's adapter on the shared database (not migrated yet: the host's `start()` migrates). */
export async function openScaleStorage(spec: ScaleStorageSpec): Promise<StorageAdapter> {
  switch (spec.kind) {
    case 'sqlite':
      return new SqliteStorage({ path: spec.path });
    case 'postgres':
      return new PostgresStorage({ connectionString: spec.url, schema: spec.schema, poolSize: 4 });
  }
}

/** The PostgreSQL server of the tests and benchmarks: `MEDIA_AGENT_PG_URL`, default `postgres://postgres@127.0.0.1:5432/test`. */
export const PG_SERVER_URL = process.env.MEDIA_AGENT_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** Why the PostgreSQL server cannot be used (one line), or undefined when it answers `SELECT 1`. */
export async function postgresUnreachable(url: string = PG_SERVER_URL): Promise<string | undefined> {
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

/** Drops a schema and everything in it (the scenario's database when it ran on PostgreSQL). */
export async function dropPostgresSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema.replaceAll('"', '""')}" CASCADE`);
  } finally {
    await client.end().catch(() => undefined);
  }
}
