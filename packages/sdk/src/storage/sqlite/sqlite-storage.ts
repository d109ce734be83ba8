import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { StorageClosedError, StorageError, StorageSchemaTooNewError } from '../errors';
import { SerialQueue } from '../serial-queue';
import { STORAGE_SCHEMA_VERSION, type StorageAdapter, type StorageSession } from '../storage-adapter';
import { applySqliteMigrations, readUserVersion } from './migrations';
import { sqliteCode, toStorageError } from './sqlite-errors';
import { createSqliteSession, READ_METHODS, StatementCache } from './sqlite-session';

/**
 * Options of {@link SqliteStorage}.
 * @public
 */
export interface SqliteStorageOptions {
  /**
   * Path of the database file, created (with missing parent directories) on first use;
   * `:memory:` for a private in-memory database.
   */
  path: string;
  /**
   * How long a write waits for another connection's lock before failing with
   * `StorageLockedError` (`STORAGE_LOCKED`), in milliseconds. Default 5000.
   */
  busyTimeoutMs?: number;
}

/** Default busy timeout of {@link SqliteStorage}, in milliseconds. @public */
export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * One queue per database file per process: two adapters on one file in one process must not
 * interleave their transactions (better-sqlite3 waits for a lock synchronously, so an in-process
 * waiter would block the holder). Other processes are kept out by `BEGIN IMMEDIATE` and the busy timeout.
 */
const fileQueues = new Map<string, { queue: SerialQueue; refs: number }>();

function acquireQueue(file: string | null): { queue: SerialQueue; release: () => void } {
  if (file === null) return { queue: new SerialQueue(), release: () => undefined };
  let entry = fileQueues.get(file);
  if (!entry) {
    entry = { queue: new SerialQueue(), refs: 0 };
    fileQueues.set(file, entry);
  }
  entry.refs++;
  const held = entry;
  let released = false;
  return {
    queue: held.queue,
    release: () => {
      if (released) return;
      released = true;
      if (--held.refs === 0 && fileQueues.get(file) === held) fileQueues.delete(file);
    },
  };
}

/**
 * The embedded {@link StorageAdapter}: one SQLite file through better-sqlite3, in WAL mode with
 * `synchronous=NORMAL`, `foreign_keys=ON` and a busy timeout.
 *
 * @remarks
 * The file is opened (and created, with its parent directories) on first use, not in the
 * constructor. Call {@link SqliteStorage.migrate} once at start-up; repositories fail with
 * `StorageError` until the schema is current.
 *
 * Transactions are serialized in-process and run as `BEGIN IMMEDIATE … COMMIT`, so several
 * processes may share one file: a writer waits up to the busy timeout for another process's lock,
 * then fails with `StorageLockedError` having written nothing. A failed transaction is rolled back
 * completely. Errors: `STORAGE_LOCKED` (lock held past the busy timeout), `STORAGE_CORRUPT` (not a
 * database or damaged), `STORAGE_SCHEMA_TOO_NEW` (written by a newer SDK; the file is not touched),
 * `STORAGE_CLOSED`, `STORAGE_FAILED` (anything else).
 *
 * better-sqlite3 is synchronous: while another process holds the write lock, a waiting write blocks
 * this process's event loop for up to `busyTimeoutMs`. Adapters on the same file within one process
 * share one queue, so they never wait on each other that way. Do not call the adapter (or start
 * another transaction) from inside `transaction(fn)`: use the session `fn` receives.
 * @public
 */
export class SqliteStorage implements StorageAdapter {
  /** {@inheritDoc StorageAdapter.kind} */
  readonly kind = 'sqlite';
  /** Database path as given (`:memory:` for an in-memory database). */
  readonly path: string;
  /** Busy timeout in milliseconds. */
  readonly busyTimeoutMs: number;

  readonly #file: string | null;
  readonly #queue: SerialQueue;
  readonly #releaseQueue: () => void;
  #db: Database.Database | null = null;
  #stmts: StatementCache | null = null;
  #walReady = false;
  #schemaReady = false;
  #closing = false;

  /** {@inheritDoc StorageSession.ledger} */
  readonly ledger: StorageSession['ledger'];
  /** {@inheritDoc StorageSession.approvals} */
  readonly approvals: StorageSession['approvals'];
  /** {@inheritDoc StorageSession.grants} */
  readonly grants: StorageSession['grants'];
  /** {@inheritDoc StorageSession.plans} */
  readonly plans: StorageSession['plans'];
  /** {@inheritDoc StorageSession.policies} */
  readonly policies: StorageSession['policies'];
  /** {@inheritDoc StorageSession.audit} */
  readonly audit: StorageSession['audit'];
  /** {@inheritDoc StorageSession.settings} */
  readonly settings: StorageSession['settings'];
  /** {@inheritDoc StorageSession.runs} */
  readonly runs: StorageSession['runs'];
  /** {@inheritDoc StorageSession.events} */
  readonly events: StorageSession['events'];
  /** {@inheritDoc StorageSession.messages} */
  readonly messages: StorageSession['messages'];
  /** {@inheritDoc StorageSession.inbox} */
  readonly inbox: StorageSession['inbox'];
  /** {@inheritDoc StorageSession.decisions} */
  readonly decisions: StorageSession['decisions'];

  /**
   * @param options - file path and busy timeout; nothing is opened until first use
   * @throws `StorageError` when `path` is empty or `busyTimeoutMs` is negative
   */
  constructor(options: SqliteStorageOptions) {
    if (typeof options?.path !== 'string' || options.path === '') throw new StorageError('SqliteStorage: options.path is required');
    const busy = options.busyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS;
    if (!Number.isFinite(busy) || busy < 0) throw new StorageError(`SqliteStorage: busyTimeoutMs must be a non-negative number, got ${busy}`);
    this.path = options.path;
    this.busyTimeoutMs = Math.floor(busy);
    this.#file = options.path === ':memory:' ? null : resolve(options.path);
    const { queue, release } = acquireQueue(this.#file);
    this.#queue = queue;
    this.#releaseQueue = release;

    const repo = <K extends keyof StorageSession>(name: K): StorageSession[K] => {
      const template = createSqliteSession(null as unknown as StatementCache, this.path).session[name] as unknown as Record<string, unknown>;
      const wrapped: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
      for (const method of Object.keys(template)) {
        const call = (s: StorageSession) => (s[name] as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!;
        wrapped[method] = READ_METHODS.has(method)
          ? (...args) => this.#read((s) => call(s)(...args))
          : (...args) => this.transaction((s) => call(s)(...args));
      }
      return wrapped as unknown as StorageSession[K];
    };
    this.ledger = repo('ledger');
    this.approvals = repo('approvals');
    this.grants = repo('grants');
    this.plans = repo('plans');
    this.policies = repo('policies');
    this.audit = repo('audit');
    this.settings = repo('settings');
    this.runs = repo('runs');
    this.events = repo('events');
    this.messages = repo('messages');
    this.inbox = repo('inbox');
    this.decisions = repo('decisions');
  }

  /** {@inheritDoc StorageAdapter.migrate} */
  migrate(): Promise<void> {
    return this.#job(() => {
      const db = this.#useDb();
      try {
        applySqliteMigrations(db);
      } catch (error) {
        throw toStorageError(error, this.path);
      }
      this.#schemaReady = true;
    });
  }

  /** {@inheritDoc StorageAdapter.schemaVersion} */
  schemaVersion(): Promise<number> {
    return this.#job(() => {
      const db = this.#connect();
      try {
        return readUserVersion(db);
      } catch (error) {
        throw toStorageError(error, this.path);
      }
    });
  }

  /** {@inheritDoc StorageAdapter.transaction} */
  transaction<T>(fn: (session: StorageSession) => Promise<T>): Promise<T> {
    return this.#job(async () => {
      const db = this.#useSchema();
      try {
        db.exec('BEGIN IMMEDIATE');
      } catch (error) {
        throw toStorageError(error, this.path);
      }
      const handle = createSqliteSession(this.#stmts!, this.path);
      try {
        const result = await fn(handle.session);
        handle.end();
        db.exec('COMMIT');
        return result;
      } catch (error) {
        handle.end();
        if (db.inTransaction) {
          try {
            db.exec('ROLLBACK');
          } catch {
            // the connection rolls back on close anyway
          }
        }
        throw sqliteCode(error) !== undefined ? toStorageError(error, this.path) : error;
      }
    });
  }

  /** {@inheritDoc StorageAdapter.close} */
  close(): Promise<void> {
    if (this.#closing) return Promise.resolve();
    this.#closing = true;
    return this.#queue.run(async () => {
      this.#releaseQueue();
      const db = this.#db;
      this.#db = null;
      this.#stmts = null;
      if (db?.open) db.close();
    });
  }

  /** Runs one read outside a write transaction (a single statement is atomic on its own). */
  #read<T>(fn: (session: StorageSession) => Promise<T>): Promise<T> {
    return this.#job(async () => {
      this.#useSchema();
      const handle = createSqliteSession(this.#stmts!, this.path);
      try {
        return await fn(handle.session);
      } finally {
        handle.end();
      }
    });
  }

  #job<T>(work: () => T | Promise<T>): Promise<T> {
    if (this.#closing) return Promise.reject(new StorageClosedError());
    return this.#queue.run(async () => work());
  }

  /** Opens the connection (creating the file and its directory) with per-connection settings. */
  #connect(): Database.Database {
    if (this.#db) return this.#db;
    let db: Database.Database;
    try {
      if (this.#file !== null) mkdirSync(dirname(this.#file), { recursive: true });
      db = new Database(this.path, { timeout: this.busyTimeoutMs });
    } catch (error) {
      throw toStorageError(error, this.path);
    }
    try {
      db.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
      db.pragma('foreign_keys = ON');
      db.pragma('synchronous = NORMAL');
      // Reads the header: a file of garbage fails here with SQLITE_NOTADB.
      readUserVersion(db);
    } catch (error) {
      db.close();
      throw toStorageError(error, this.path);
    }
    this.#db = db;
    this.#stmts = new StatementCache(db);
    return db;
  }

  /** The connection, in WAL mode, after checking the store is not newer than this SDK. */
  #useDb(): Database.Database {
    const db = this.#connect();
    if (this.#walReady) return db;
    try {
      const version = readUserVersion(db);
      if (version > STORAGE_SCHEMA_VERSION) throw new StorageSchemaTooNewError(version, STORAGE_SCHEMA_VERSION);
      db.pragma('journal_mode = WAL');
    } catch (error) {
      throw toStorageError(error, this.path);
    }
    this.#walReady = true;
    return db;
  }

  /** The connection, refusing to run repositories on a schema that is not {@link STORAGE_SCHEMA_VERSION}. */
  #useSchema(): Database.Database {
    const db = this.#useDb();
    if (this.#schemaReady) return db;
    let version: number;
    try {
      version = readUserVersion(db);
    } catch (error) {
      throw toStorageError(error, this.path);
    }
    if (version > STORAGE_SCHEMA_VERSION) throw new StorageSchemaTooNewError(version, STORAGE_SCHEMA_VERSION);
    if (version < STORAGE_SCHEMA_VERSION) {
      throw new StorageError(`the SQLite store at ${this.path} is at schema version ${version}; call migrate() first (this SDK needs ${STORAGE_SCHEMA_VERSION})`);
    }
    this.#schemaReady = true;
    return db;
  }
}

/**
 * Creates a {@link SqliteStorage}. Nothing is opened until first use; call `migrate()` before use.
 * @param options - file path (`:memory:` for in-memory) and busy timeout in ms (default 5000)
 * @returns the adapter
 * @throws `StorageError` on invalid options
 * @public
 */
export function createSqliteStorage(options: SqliteStorageOptions): SqliteStorage {
  return new SqliteStorage(options);
}
