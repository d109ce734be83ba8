/**
 * `@media-agent/sdk/sqlite`: the embedded SQLite storage (better-sqlite3, one file, WAL).
 *
 * @remarks
 * Only this entry point loads `better-sqlite3` (an optional peer dependency of the SDK).
 *
 * @packageDocumentation
 */
export {
  SqliteStorage,
  createSqliteStorage,
  DEFAULT_SQLITE_BUSY_TIMEOUT_MS,
  DEFAULT_SQLITE_CACHE_SIZE_KIB,
  DEFAULT_SQLITE_PAGE_SIZE_BYTES,
  type SqliteStorageOptions,
} from './storage/sqlite/sqlite-storage';
export type { StorageAdapter, StorageSession, StorageTopic } from './ports/storage-adapter';
export {
  SqliteHistoryStore,
  DEFAULT_HISTORY_DEADLINE_MS,
  DEFAULT_HISTORY_BUSY_TIMEOUT_MS,
  type SqliteHistoryStoreOptions,
} from './history/sqlite-history-store';
export type { HistoryIndexName } from './history/sqlite-history-schema';
