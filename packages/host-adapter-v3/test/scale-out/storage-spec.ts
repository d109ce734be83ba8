// Which database the scale-out processes share: one SQLite file, or one PostgreSQL schema. Every
// process (controller and workers) opens its own adapter from the same spec.
import type { StorageAdapter } from '@media-agent/sdk/storage';
import { SqliteStorage } from '@media-agent/sdk/sqlite';

/** The shared database of a scale-out run: a SQLite file path, or a PostgreSQL URL and schema. */
export type ScaleStorageSpec = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; schema: string };

/** Opens this process's adapter on the shared database (not migrated yet: the host's `start()` migrates). */
export async function openScaleStorage(spec: ScaleStorageSpec): Promise<StorageAdapter> {
  switch (spec.kind) {
    case 'sqlite':
      return new SqliteStorage({ path: spec.path });
    case 'postgres':
      throw new Error('PostgresStorage is not available on this branch yet');
  }
}

/** A short label for reports: `SQLite file` or `PostgreSQL schema <name>`. */
export function describeScaleStorage(spec: ScaleStorageSpec): string {
  return spec.kind === 'sqlite' ? 'SQLite file (WAL)' : `PostgreSQL schema ${spec.schema}`;
}
