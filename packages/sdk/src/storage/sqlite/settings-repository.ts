import type { JsonValue } from '../../core/records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { SqlQueries, SyncRepository } from './sql-queries';

const SETTINGS_GET_SQL = `SELECT value FROM settings WHERE key = @key`;

const SETTINGS_SET_SQL = `INSERT INTO settings (key, value) VALUES (@key, @value) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;

/** The settings repository. Synchronous, over one connection's prepared statements. @internal */
export function sqliteSettingsRepository(q: SqlQueries): SyncRepository<StorageSession['settings']> {
  const { one, exec } = q;
  return {
    get: (key) => {
      const row = one(SETTINGS_GET_SQL, { key });
      return row ? (JSON.parse(row.value as string) as JsonValue) : undefined;
    },
    set: (key, value) => {
      exec(SETTINGS_SET_SQL, { key, value: JSON.stringify(value ?? null) });
    },
  };
}
