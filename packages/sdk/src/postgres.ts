/**
 * `@media-agent/sdk/postgres`: PostgreSQL storage for hosts that run as several processes on several machines
 * with one database (node-postgres `pg.Pool`).
 *
 * @remarks
 * Only this entry point loads `pg` (an optional peer dependency of the SDK; TypeScript users also install
 * `@types/pg`). See {@link PostgresStorage} for what is shared between processes and how.
 *
 * @packageDocumentation
 */
export { PostgresStorage, createPostgresStorage } from './storage/postgres/postgres-storage';
export {
  DEFAULT_POSTGRES_SCHEMA,
  DEFAULT_POSTGRES_POOL_SIZE,
  DEFAULT_POSTGRES_STATEMENT_TIMEOUT_MS,
  DEFAULT_POSTGRES_CONNECTION_TIMEOUT_MS,
  DEFAULT_POSTGRES_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  DEFAULT_POSTGRES_TRANSACTION_ATTEMPTS,
  type PostgresStorageOptions,
} from './storage/postgres/postgres-options';
export {
  StorageAuthError,
  StorageConflictError,
  StoragePoolExhaustedError,
  StorageTimeoutError,
  StorageUnavailableError,
} from './storage/errors';
export { PostgresHistoryStore, type PostgresHistoryStoreOptions } from './history/postgres-history-store';
export type { StorageAdapter, StorageSession, StorageTopic } from './ports/storage-adapter';
