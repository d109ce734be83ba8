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
