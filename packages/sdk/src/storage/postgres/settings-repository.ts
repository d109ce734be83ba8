import type { JsonValue } from '../../core/records';
import type { SettingsRepository } from '../../ports/storage-adapter';
import type { PgQueries } from './sql-queries';

const SETTINGS_GET_SQL = `SELECT value FROM "{schema}".settings WHERE key = @key`;

const SETTINGS_SET_SQL = `INSERT INTO "{schema}".settings (key, value) VALUES (@key, @value) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;

/** The settings repository (JSON values by key). @internal */
export function pgSettingsRepository(q: PgQueries): SettingsRepository {
  const { one, exec } = q;
  return {
    get: async (key) => {
      const row = await one(SETTINGS_GET_SQL, { key });
      return row ? (JSON.parse(row.value as string) as JsonValue) : undefined;
    },
    set: async (key, value) => {
      await exec(SETTINGS_SET_SQL, { key, value: JSON.stringify(value ?? null) });
    },
  };
}
