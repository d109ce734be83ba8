/**
 * The settings table for both SQL stores: JSON values by key.
 * @packageDocumentation
 */
import type { JsonValue } from '../../core/records';
import type { SettingsRepository } from '../../ports/storage-adapter';
import type { SqlDialect } from './dialect';
import { count, nothing, perDialect, row, type Statements } from './query';

/** The settings repository's statements in dialect `d`. @internal */
export const settingsStatements = perDialect((d: SqlDialect): Statements<SettingsRepository> => {
  const table = d.table('settings');
  const getSql = `SELECT value FROM ${table} WHERE key = @key`;
  const setSql = `INSERT INTO ${table} (key, value) VALUES (@key, @value) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
  return {
    get: (key) => row(getSql, { key }, (r) => (r ? (JSON.parse(r.value as string) as JsonValue) : undefined)),
    set: (key, value) => count(setSql, { key, value: JSON.stringify(value ?? null) }, nothing),
  };
});
