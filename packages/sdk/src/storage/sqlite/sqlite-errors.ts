import { MediaAgentError } from '../../core/errors';
import {
  StorageCorruptError,
  StorageError,
  StorageFullError,
  StorageLockedError,
  StorageReadOnlyError,
} from '../errors';

/** The `code` of a better-sqlite3 `SqliteError` (e.g. `SQLITE_BUSY_SNAPSHOT`), or undefined. @internal */
export function sqliteCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

/**
 * Maps a driver error to the SDK's typed storage errors: `SQLITE_BUSY*`/`SQLITE_LOCKED*` →
 * `StorageLockedError`, `SQLITE_NOTADB`/`SQLITE_CORRUPT*` → `StorageCorruptError`, `SQLITE_READONLY*` →
 * `StorageReadOnlyError`, `SQLITE_FULL` → `StorageFullError`, anything else →
 * `StorageError`. SDK errors pass through unchanged.
 * @param error - what was thrown
 * @param location - database path, for the corrupt-file message
 * @internal
 */
export function toStorageError(error: unknown, location: string): MediaAgentError {
  if (error instanceof MediaAgentError) return error;
  const code = sqliteCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code?.startsWith('SQLITE_BUSY') || code?.startsWith('SQLITE_LOCKED')) {
    return new StorageLockedError(
      `the SQLite store at ${location} is locked by another connection (${code}: ${message})`,
      { cause: error },
    );
  }
  if (code === 'SQLITE_NOTADB' || code?.startsWith('SQLITE_CORRUPT'))
    return new StorageCorruptError(location, { cause: error });
  if (code?.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN_ISDIR' || code === 'SQLITE_PERM')
    return new StorageReadOnlyError(`the SQLite store at ${location} is read-only (${code}: ${message})`, {
      cause: error,
    });
  if (code === 'SQLITE_FULL')
    return new StorageFullError(`the SQLite store at ${location} is full (${code}: ${message})`, { cause: error });
  return new StorageError(`SQLite store at ${location}: ${code ? `${code}: ` : ''}${message}`, { cause: error });
}
