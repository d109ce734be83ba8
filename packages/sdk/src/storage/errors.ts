import { MediaAgentError } from '../core/errors';

/**
 * The store is locked by another process for longer than the busy timeout.
 * @public
 */
export class StorageLockedError extends MediaAgentError {
  /** @param message - what was locked; @param options - `{ cause }` */
  constructor(message: string, options?: ErrorOptions) {
    super('STORAGE_LOCKED', message, {}, options);
  }
}

/**
 * The store's file is not a database or is damaged.
 * @public
 */
export class StorageCorruptError extends MediaAgentError {
  /** @param location - file path (never credentials); @param options - `{ cause }` */
  constructor(location: string, options?: ErrorOptions) {
    super('STORAGE_CORRUPT', `the store at ${location} is not a valid database or is damaged`, { location }, options);
  }
}

/**
 * The store was written by a newer SDK (its schema version is above {@link STORAGE_SCHEMA_VERSION});
 * this SDK refuses to touch it rather than downgrade it.
 * @public
 */
export class StorageSchemaTooNewError extends MediaAgentError {
  /** @param found - schema version in the store; @param supported - newest version this SDK knows */
  constructor(found: number, supported: number) {
    super(
      'STORAGE_SCHEMA_TOO_NEW',
      `the store has schema version ${found}, newer than ${supported} supported by this SDK; upgrade @media-agent/sdk`,
      { found, supported },
    );
  }
}

/**
 * The store is at a schema version older than a read-only reader (the `media-agent audit` command line) needs; it
 * never migrates: start a host of this SDK on the store once (it migrates), then read again.
 * @public
 */
export class StorageSchemaTooOldError extends MediaAgentError {
  /** @param found - schema version in the store; @param needed - the version the reader needs */
  constructor(found: number, needed: number) {
    super(
      'STORAGE_SCHEMA_TOO_OLD',
      found === 0
        ? 'the store holds no media-agent schema (version 0): check the file path, or the URL and its ?schema='
        : `the store has schema version ${found}, older than ${needed} this reader needs (it never migrates); start a host of this SDK on it once, then try again`,
      { found, needed },
    );
  }
}

/**
 * The adapter was closed.
 * @public
 */
export class StorageClosedError extends MediaAgentError {
  /** Creates the error (code `STORAGE_CLOSED`). */
  constructor() {
    super('STORAGE_CLOSED', 'the storage adapter is closed');
  }
}

/**
 * Any other storage failure (disk full, I/O error); the transaction was rolled back.
 * @public
 */
export class StorageError extends MediaAgentError {
  /** @param message - what failed; @param options - `{ cause }` */
  constructor(message: string, options?: ErrorOptions) {
    super('STORAGE_FAILED', message, {}, options);
  }
}

/**
 * The database server could not be reached, refused the connection, or dropped it (shut down, restarted,
 * network failure). A transaction in flight did not commit — or, when the connection dropped during its
 * `COMMIT`, its outcome is unknown (the ledger's `unknown` state exists for that). Later calls reconnect.
 * @public
 */
export class StorageUnavailableError extends MediaAgentError {
  /** @param message - what could not be reached (never credentials); @param options - `{ cause }` */
  constructor(message: string, options?: ErrorOptions) {
    super('STORAGE_UNAVAILABLE', message, {}, options);
  }
}

/**
 * The database server refused the credentials (wrong password, unknown role, no access to the database).
 * @public
 */
export class StorageAuthError extends MediaAgentError {
  /** @param message - what was refused (never the password); @param options - `{ cause }` */
  constructor(message: string, options?: ErrorOptions) {
    super('STORAGE_AUTH_FAILED', message, {}, options);
  }
}

/**
 * A transaction failed with a serialization failure or a deadlock on each of its attempts (the adapter
 * retries those a bounded number of times); nothing of it was kept.
 * @public
 */
export class StorageConflictError extends MediaAgentError {
  /** @param message - what conflicted; @param attempts - how many times the transaction ran; @param options - `{ cause }` */
  constructor(message: string, attempts: number, options?: ErrorOptions) {
    super('STORAGE_CONFLICT', message, { attempts }, options);
  }
}

/**
 * A statement ran past the statement timeout and was cancelled by the server, or a transaction stayed idle past
 * the idle-in-transaction timeout and the server ended it; the transaction was rolled back.
 * @public
 */
export class StorageTimeoutError extends MediaAgentError {
  /** @param message - what timed out; @param timeoutMs - the timeout in ms; @param options - `{ cause }` */
  constructor(message: string, timeoutMs: number, options?: ErrorOptions) {
    super('STORAGE_TIMEOUT', message, { timeoutMs }, options);
  }
}

/**
 * Every connection of the pool stayed busy for the whole connection timeout; the call ran nothing.
 * @public
 */
export class StoragePoolExhaustedError extends MediaAgentError {
  /** @param waitedMs - how long the call waited for a connection, in ms; @param poolSize - the pool's maximum size */
  constructor(waitedMs: number, poolSize: number) {
    super(
      'STORAGE_POOL_EXHAUSTED',
      `no connection of the pool (${poolSize} connections) became free within ${waitedMs} ms`,
      { waitedMs, poolSize },
    );
  }
}

/**
 * The store refused a write because it is read-only: a SQLite file on a read-only mount or without write
 * permission, a PostgreSQL server or transaction in read-only mode. The write was not kept. Code `STORAGE_READ_ONLY`.
 * @public
 */
export class StorageReadOnlyError extends MediaAgentError {
  /** @param message - what was refused, and where; @param options - `{ cause }` */
  constructor(message: string, options?: ErrorOptions) {
    super('STORAGE_READ_ONLY', message, {}, options);
  }
}

/**
 * The disk, or the database's size limit, is full: the transaction was rolled back whole (nothing half-written).
 * Code `STORAGE_FULL`.
 * @public
 */
export class StorageFullError extends MediaAgentError {
  /** @param message - what failed, and where; @param options - `{ cause }` */
  constructor(message: string, options?: ErrorOptions) {
    super('STORAGE_FULL', message, {}, options);
  }
}
