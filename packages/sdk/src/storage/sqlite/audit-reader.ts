/**
 * A read-only reader of a SQLite store's audit rows, for the `media-agent audit` command line: it opens the file
 * read-only (never creating, migrating or writing it) and pages through the rows in `seq` order.
 * @packageDocumentation
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import type { AuditRecord } from '../../core/records';
import { STORAGE_SCHEMA_VERSION } from '../../ports/storage-adapter';
import { StorageSchemaTooNewError, StorageSchemaTooOldError } from '../errors';
import { auditPageSql, auditRowOf } from '../sql/audit-rows';
import type { Row } from '../sql/table-mapping';
import { readUserVersion } from './migrations';
import { toStorageError } from './sqlite-errors';

/** The schema version that added the audit chain: readers need at least this one. @internal */
export const AUDIT_CHAIN_SCHEMA_VERSION = 10;

/**
 * Opens `path` without writing anything. A file no host has open (no `-wal`, no `-shm` beside it) is opened as an
 * immutable SQLite URI (`file:…?immutable=1`): no lock, no `-wal`/`-shm` created, so a user who may only read the
 * file (in a directory they cannot write) can verify it, and the file and its directory are left exactly as they
 * were. A file a host has open is read through its WAL as any reader does. URI filenames need the process to start
 * with `SQLITE_USE_URI=1` (the `media-agent` command line sets it); without it the file is opened read-only by name.
 */
function openReadOnly(path: string): Database.Database {
  const clean = existsSync(path) && !existsSync(`${path}-wal`) && !existsSync(`${path}-shm`);
  if (clean) {
    try {
      return new Database(`${pathToFileURL(resolve(path)).href}?immutable=1`, { readonly: true, fileMustExist: true });
    } catch {
      // URI filenames are off in this process: open by name below
    }
  }
  return new Database(path, { readonly: true, fileMustExist: true });
}

/** A read-only reader of one store's audit rows. @internal */
export interface AuditStoreReader {
  /** The rows with `seq > after`, oldest first, at most `limit`, with `prevHash` and `hash`. */
  read(after: number, limit: number): Promise<AuditRecord[]>;
  /** Closes the connection. */
  close(): Promise<void>;
}

/**
 * Opens `path` read-only (it must exist) and checks its schema version.
 * @throws `STORAGE_FAILED`/`STORAGE_CORRUPT` when it cannot be opened, `STORAGE_SCHEMA_TOO_NEW`,
 *   `STORAGE_SCHEMA_TOO_OLD` (before the audit chain)
 * @internal
 */
export function openSqliteAuditReader(path: string): AuditStoreReader {
  let db: Database.Database;
  try {
    db = openReadOnly(path);
  } catch (error) {
    throw toStorageError(error, path);
  }
  try {
    const version = readUserVersion(db);
    if (version > STORAGE_SCHEMA_VERSION) throw new StorageSchemaTooNewError(version, STORAGE_SCHEMA_VERSION);
    if (version < AUDIT_CHAIN_SCHEMA_VERSION) throw new StorageSchemaTooOldError(version, AUDIT_CHAIN_SCHEMA_VERSION);
  } catch (error) {
    db.close();
    throw toStorageError(error, path); // (a MediaAgentError passes through as it is)
  }
  const select = db.prepare(auditPageSql('audit', () => '?', true));
  return {
    read: async (after, limit) => {
      try {
        return (select.all(after, limit) as Row[]).map(auditRowOf);
      } catch (error) {
        throw toStorageError(error, path);
      }
    },
    close: async () => {
      if (db.open) db.close();
    },
  };
}
