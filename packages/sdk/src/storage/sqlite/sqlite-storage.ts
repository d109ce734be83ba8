import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { StorageClosedError, StorageError, StorageSchemaTooNewError } from '../errors';
import { MediaAgentError } from '../../core/errors';
import type { AuditRecord } from '../../core/records';
import {
  STORAGE_SCHEMA_VERSION,
  type StorageAdapter,
  type StorageCompaction,
  type StorageFileUsage,
  type StorageSession,
} from '../../ports/storage-adapter';
import { applySqliteMigrations, readUserVersion } from './migrations';
import { sqliteCode, toStorageError } from './sqlite-errors';
import { retryWhileBusy } from './sqlite-open';
import { READ_METHODS } from '../repository-methods';
import { adapterRepositories } from '../sql/adapter-repositories';
import { sessionStatements } from '../sql/session-statements';
import { SQLITE_DIALECT } from './sqlite-dialect';
import { createSqliteSession, SqliteRepositories } from './sqlite-session';

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
   * `StorageLockedError` (`STORAGE_LOCKED`), in milliseconds.
   * @defaultValue 5000 ({@link DEFAULT_SQLITE_BUSY_TIMEOUT_MS})
   */
  busyTimeoutMs?: number;
  /**
   * Most memory the connection's page cache may use, in KiB (SQLite's `cache_size`; taken as needed,
   * not up front). Pages that do not fit are read again from the file, so a cache smaller than the
   * ledger's indexes makes claims slower as the ledger grows.
   * @defaultValue 32768 (32 MiB, {@link DEFAULT_SQLITE_CACHE_SIZE_KIB})
   */
  cacheSizeKiB?: number;
  /**
   * Page size of a NEW database file, in bytes (SQLite's `page_size`: a power of two from 512 to 65536). Every
   * commit writes each page it changed to the WAL whole, so small pages write less for the runtime's pattern —
   * many small commits of short rows (a run's step, a ledger claim) — which spares the SSD or SD card of a NAS:
   * an add-a-film run writes about 157 KiB at 512, 214 KiB at 1024 and about three times that at SQLite's default
   * 4096, for the same CPU time. At 512 a ledger key (about 118 characters) no longer fits in an index cell, so a
   * lookup by key on a very large ledger reads an overflow page per comparison (at 50 000 entries a claim takes about
   * 0.77 ms instead of 0.43 ms; docs/architecture.md#bytes-per-run). A file that already exists keeps the page size it was
   * created with.
   * @defaultValue 512 ({@link DEFAULT_SQLITE_PAGE_SIZE_BYTES})
   */
  pageSizeBytes?: number;
}

const SQLITE_OPTIONS: ReadonlySet<string> = new Set([
  'path',
  'busyTimeoutMs',
  'cacheSizeKiB',
  'pageSizeBytes',
] satisfies ReadonlyArray<keyof SqliteStorageOptions>);

function invalidSqliteOption(option: string, message: string): MediaAgentError {
  return new MediaAgentError('OPTIONS_INVALID', `SqliteStorage option ${option}: ${message}`, { option });
}

function shownOption(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 59)}…` : value);
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

/** The constructor's checks: shapes only, nothing opened. */
function checkSqliteOptions(given: unknown): asserts given is SqliteStorageOptions {
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    throw invalidSqliteOption(
      'options',
      `must be an object such as { path: './data/agent.sqlite' } or { path: ':memory:' }; got ${shownOption(given)}`,
    );
  const options = given as Record<string, unknown>;
  for (const name of Object.keys(options))
    if (!SQLITE_OPTIONS.has(name))
      throw invalidSqliteOption(name, `is not an option; known: ${[...SQLITE_OPTIONS].join(', ')}`);
  if (typeof options.path !== 'string' || options.path === '')
    throw invalidSqliteOption(
      'path',
      `must be a file path such as './data/agent.sqlite', or ':memory:'; got ${options.path === '' ? 'an empty string' : shownOption(options.path)}`,
    );
  for (const name of ['busyTimeoutMs', 'cacheSizeKiB'] as const) {
    const value = options[name];
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0))
      throw invalidSqliteOption(name, `must be a non-negative number; got ${shownOption(value)}`);
  }
  if (options.pageSizeBytes !== undefined && !isPageSize(options.pageSizeBytes))
    throw invalidSqliteOption(
      'pageSizeBytes',
      `must be a power of two from 512 to 65536, such as 1024 or 4096; got ${shownOption(options.pageSizeBytes)}`,
    );
}

/** True for a page size SQLite accepts: a power of two from 512 to 65536. */
function isPageSize(value: unknown): value is number {
  return (
    typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= 512 &&
    value <= 65_536 &&
    (value & (value - 1)) === 0
  );
}

/**
 * Default page size of a new {@link SqliteStorage} file, in bytes (SQLite's own default is 4096): each commit
 * writes every page it changed, so smaller pages write fewer bytes per step of a run — at 512 an add-a-film run
 * writes about 157 KiB, checkpoints included, against 214 KiB at 1024 and about three times that at 4096, for the
 * same CPU time (docs/architecture.md#bytes-per-run).
 * @public
 */
export const DEFAULT_SQLITE_PAGE_SIZE_BYTES = 512;

/** Default busy timeout of {@link SqliteStorage}, in milliseconds. @public */
export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * Default page cache limit of {@link SqliteStorage}, in KiB (SQLite's own default is 2 MiB): enough for
 * the indexes of a ledger of about 100,000 entries, whose random keys make every claim touch a random page.
 * @public
 */
export const DEFAULT_SQLITE_CACHE_SIZE_KIB = 32_768;

/**
 * WAL size after which a commit checkpoints the WAL into the database file, in bytes: 16 MiB (4000 pages at
 * 4 KiB, 16384 at 1 KiB; SQLite's default is 1000 pages). With `synchronous=NORMAL` a checkpoint is where the
 * fsyncs happen (the WAL, then the database file): fewer, larger checkpoints mean fewer fsyncs, and pages
 * rewritten by many commits (a run's row, the last page of each index) are copied once per checkpoint.
 */
const WAL_AUTOCHECKPOINT_BYTES = 16 * 1024 * 1024;

/** Size the WAL file is truncated to after a checkpoint that resets it (SQLite's `journal_size_limit`): 32 MiB. */
const WAL_SIZE_LIMIT_BYTES = 2 * WAL_AUTOCHECKPOINT_BYTES;

/** Rows `appendAuditBatched` lets wait before it writes them at once (else they wait for the event loop to turn). */
const AUDIT_BATCH_ROWS = 256;
/** Most transactions committed together by one `COMMIT` (a group is cut there, so its latency stays bounded). */
const MAX_GROUP = 64;

type Settle = { resolve: (value: unknown) => void; reject: (error: unknown) => void };
/** Work outside a transaction (reads, migrations, audit flushes, close): synchronous, runs between transactions. */
type OpJob = Settle & { kind: 'op'; work: () => unknown };
/** Runs a group of transactions of one adapter, starting with `first` (see `SqliteStorage`). */
type GroupRunner = (first: TxJob) => Promise<void> | undefined;
/** One `transaction(fn)` (or one repository write on the adapter): runs inside a group of its adapter (`owner`). */
type TxJob = Settle & {
  kind: 'tx';
  owner: GroupRunner;
  fn: (session: StorageSession | undefined) => unknown;
  session: boolean;
};
type Job = OpJob | TxJob;

/** What a transaction step left the group in: go on with the next transaction, or stop (the group is over). */
type Step = 'next' | 'stop';

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as { then?: unknown } | null)?.then === 'function';
const ignore = (): void => undefined;

/**
 * Runs the jobs of every adapter on one database file in call order (better-sqlite3 waits for a lock
 * synchronously, so two adapters of one process must never both hold a transaction open: the waiter would
 * block the holder). Consecutive transactions of one adapter at the head of the queue run in one SQLite
 * transaction, each in its own savepoint, and share its `COMMIT` (group commit); work outside a
 * transaction runs at once when nothing is queued.
 */
class FileScheduler {
  readonly #queue: Job[] = [];
  #draining = false;

  /** Runs `work` between transactions: at once (synchronously) when nothing is running or queued. */
  op<T>(work: () => T): Promise<T> {
    if (!this.#draining) {
      try {
        return Promise.resolve(work());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ kind: 'op', work, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /** Queues a transaction of `owner`; when nothing is running, it starts at once. */
  tx<T>(owner: GroupRunner, fn: (session: StorageSession | undefined) => T | Promise<T>, session: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ kind: 'tx', owner, fn, session, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#draining) void this.#drain();
    });
  }

  /** The next queued job when it is a transaction of `owner` (it joins `owner`'s open group), else undefined. */
  nextTx(owner: GroupRunner): TxJob | undefined {
    const head = this.#queue[0];
    if (head?.kind !== 'tx' || head.owner !== owner) return undefined;
    this.#queue.shift();
    return head;
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      for (let job = this.#queue.shift(); job; job = this.#queue.shift()) {
        if (job.kind === 'op') {
          try {
            job.resolve(job.work());
          } catch (error) {
            job.reject(error);
          }
          continue;
        }
        const running = job.owner(job);
        if (running) await running;
      }
    } finally {
      this.#draining = false;
    }
  }
}

/**
 * One scheduler per database file per process (see {@link FileScheduler}). Other processes are kept out by
 * `BEGIN IMMEDIATE` and the busy timeout.
 */
const fileSchedulers = new Map<string, { scheduler: FileScheduler; refs: number }>();

function acquireScheduler(file: string | null): { scheduler: FileScheduler; release: () => void } {
  if (file === null) return { scheduler: new FileScheduler(), release: ignore };
  let entry = fileSchedulers.get(file);
  if (!entry) {
    entry = { scheduler: new FileScheduler(), refs: 0 };
    fileSchedulers.set(file, entry);
  }
  entry.refs++;
  const held = entry;
  let released = false;
  return {
    scheduler: held.scheduler,
    release: () => {
      if (released) return;
      released = true;
      if (--held.refs === 0 && fileSchedulers.get(file) === held) fileSchedulers.delete(file);
    },
  };
}

/** An open group: the transactions whose `fn` succeeded, waiting for the shared `COMMIT`. */
interface Group {
  done: Array<{ job: TxJob; value: unknown }>;
  count: number;
}

/**
 * The embedded {@link StorageAdapter}: one SQLite file through better-sqlite3, in WAL mode with
 * `synchronous=NORMAL`, `foreign_keys=ON`, a busy timeout, and a checkpoint every 4000 WAL pages
 * (about 16 MB; SQLite's default is 1000: fewer checkpoints, so fewer fsyncs).
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
 * Group commit: transactions queued behind each other run back to back in one SQLite transaction, each
 * inside its own savepoint (a failing `fn` rolls back to it, and only its own writes are undone), and share
 * one `COMMIT` (at most 64 per group). Each `transaction()` resolves only after that `COMMIT`; if the
 * `COMMIT` fails, every transaction of the group rejects and none of their writes is kept. A transaction
 * that runs alone is exactly `BEGIN IMMEDIATE … COMMIT`. A repository read on the adapter runs at once
 * (synchronously) when no transaction is running or queued, else after them, in call order.
 *
 * Audit rows appended with {@link SqliteStorage.appendAuditBatched} are written in call order before the
 * next transaction's own work (in its `BEGIN … COMMIT`), else in a transaction of their own when the event
 * loop next turns or 256 rows are pending, before `audit.list` on the adapter, and on `close()`.
 *
 * better-sqlite3 is synchronous: while another process holds the write lock, a waiting write blocks
 * this process's event loop for up to `busyTimeoutMs`. Adapters on the same file within one process
 * share one queue, so they never wait on each other that way. Do not call the adapter (or start
 * another transaction) from inside `transaction(fn)`: use the session `fn` receives.
 *
 * @example
 * ```ts
 * import { createAgentHost } from '@media-agent/sdk';
 * import { SqliteStorage } from '@media-agent/sdk/sqlite';
 *
 * const storage = new SqliteStorage({ path: './data/agent.sqlite', busyTimeoutMs: 10_000 });
 * const host = createAgentHost({ storage });
 * await host.start(); // migrates the file (WAL mode) before anything else
 * ```
 * @public
 */
export class SqliteStorage implements StorageAdapter {
  /** {@inheritDoc StorageAdapter.kind} */
  readonly kind = 'sqlite';
  /** Database path as given (`:memory:` for an in-memory database). */
  readonly path: string;
  /** Busy timeout in milliseconds. */
  readonly busyTimeoutMs: number;
  /** Page cache limit in KiB. */
  readonly cacheSizeKiB: number;
  /** Page size of a new database file, in bytes (an existing file keeps its own). */
  readonly pageSizeBytes: number;

  readonly #file: string | null;
  readonly #scheduler: FileScheduler;
  readonly #releaseScheduler: () => void;
  #db: Database.Database | null = null;
  #core: SqliteRepositories | null = null;
  #walReady = false;
  #schemaReady = false;
  #closing = false;
  /** Rows of `appendAuditBatched` not yet committed, in call order. */
  #pendingAudit: Array<{ record: AuditRecord; resolve: () => void; reject: (error: unknown) => void }> = [];
  /** How many of `#pendingAudit` (from the front) are written in the open transaction. */
  #auditWritten = 0;
  #auditTimer: NodeJS.Immediate | undefined;
  /** This adapter's groups (identifies its transactions in the file's queue). */
  readonly #groups: GroupRunner = (first) => this.#runGroup(first);

  /** {@inheritDoc StorageSession.ledger} */ readonly ledger!: StorageSession['ledger'];
  /** {@inheritDoc StorageSession.approvals} */ readonly approvals!: StorageSession['approvals'];
  /** {@inheritDoc StorageSession.grants} */ readonly grants!: StorageSession['grants'];
  /** {@inheritDoc StorageSession.plans} */ readonly plans!: StorageSession['plans'];
  /** {@inheritDoc StorageSession.policies} */ readonly policies!: StorageSession['policies'];
  /** {@inheritDoc StorageSession.audit} */ readonly audit!: StorageSession['audit'];
  /** {@inheritDoc StorageSession.settings} */ readonly settings!: StorageSession['settings'];
  /** {@inheritDoc StorageSession.runs} */ readonly runs!: StorageSession['runs'];
  /** {@inheritDoc StorageSession.events} */ readonly events!: StorageSession['events'];
  /** {@inheritDoc StorageSession.messages} */ readonly messages!: StorageSession['messages'];
  /** {@inheritDoc StorageSession.inbox} */ readonly inbox!: StorageSession['inbox'];
  /** {@inheritDoc StorageSession.decisions} */ readonly decisions!: StorageSession['decisions'];
  /** {@inheritDoc StorageSession.grantUsage} */ readonly grantUsage!: StorageSession['grantUsage'];
  /** {@inheritDoc StorageSession.budgetUsage} */ readonly budgetUsage!: StorageSession['budgetUsage'];
  /** {@inheritDoc StorageSession.maintenance} */ readonly maintenance!: StorageSession['maintenance'];
  /** {@inheritDoc StorageSession.schedules} */ readonly schedules!: StorageSession['schedules'];
  /** {@inheritDoc StorageSession.intents} */ readonly intents!: StorageSession['intents'];
  /** {@inheritDoc StorageSession.outbox} */ readonly outbox!: StorageSession['outbox'];

  /**
   * @param options - file path and busy timeout; nothing is opened until first use
   * @throws `OPTIONS_INVALID` ({@link MediaAgentError}) (the option's name in the message and in `details.option`),
   *   before any file is touched, when `options` is missing or not an object, has a name that is not an option,
   *   `path` is not a non-empty string, `busyTimeoutMs` or `cacheSizeKiB` is not a non-negative number, or
   *   `pageSizeBytes` is not a power of two from 512 to 65536
   */
  constructor(options: SqliteStorageOptions) {
    checkSqliteOptions(options);
    const busy = options.busyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS;
    this.path = options.path;
    this.busyTimeoutMs = Math.floor(busy);
    const cache = options.cacheSizeKiB ?? DEFAULT_SQLITE_CACHE_SIZE_KIB;
    this.cacheSizeKiB = Math.floor(cache);
    this.pageSizeBytes = options.pageSizeBytes ?? DEFAULT_SQLITE_PAGE_SIZE_BYTES;
    this.#file = options.path === ':memory:' ? null : resolve(options.path);
    const { scheduler, release } = acquireScheduler(this.#file);
    this.#scheduler = scheduler;
    this.#releaseScheduler = release;

    // The repositories on the adapter (those of a connection are made when it opens).
    const on = adapterRepositories(sessionStatements(SQLITE_DIALECT), (name, method) => {
      const call = (core: SqliteRepositories, args: unknown[]) =>
        (core.repos[name] as unknown as Record<string, (...a: unknown[]) => unknown>)[method]!(...args);
      if (name === 'audit' && method === 'list')
        return (...args) =>
          this.#read((core) => {
            this.#flushAudit();
            return call(core, args);
          });
      if (READ_METHODS.has(method)) return (...args) => this.#read((core) => call(core, args));
      return (...args) => this.#write((core) => call(core, args));
    });
    Object.assign(this, on);
  }

  /** {@inheritDoc StorageAdapter.migrate} */
  migrate(): Promise<void> {
    if (this.#closing) return Promise.reject(new StorageClosedError());
    return this.#scheduler.op(() => {
      const db = this.#useDb();
      try {
        applySqliteMigrations(db);
        this.#useIncrementalVacuum(db);
      } catch (error) {
        throw toStorageError(error, this.path);
      }
      this.#schemaReady = true;
    });
  }

  /**
   * Switches a file made without `auto_vacuum` (before this SDK set it) to `INCREMENTAL`, once: the setting only
   * takes effect through a `VACUUM`, which rewrites the file (it needs free disk space about the file's size, and
   * waits up to the busy timeout for other connections). A process that finds it switched already does nothing.
   */
  #useIncrementalVacuum(db: Database.Database): void {
    if (this.#file === null || Number(db.pragma('auto_vacuum', { simple: true })) !== 0) return;
    db.pragma('auto_vacuum = INCREMENTAL');
    db.exec('VACUUM');
  }

  /**
   * Gives the pages retention freed back to the file system: `PRAGMA incremental_vacuum` (moves free pages to the
   * end of the file and cuts them off), then `PRAGMA wal_checkpoint(TRUNCATE)` (copies the WAL into the database
   * and truncates it to zero bytes; when another connection still reads an old snapshot, the WAL stays as it is).
   * Runs between transactions.
   * @returns the bytes the database and WAL files shrank by
   * @throws `StorageReadOnlyError` (`STORAGE_READ_ONLY`), `StorageLockedError` (`STORAGE_LOCKED`)
   */
  compact(): Promise<StorageCompaction> {
    if (this.#closing) return Promise.reject(new StorageClosedError());
    return this.#scheduler.op(() => {
      const db = this.#useSchema();
      try {
        this.#flushAudit();
        const before = this.#sizes(db);
        db.pragma('incremental_vacuum');
        db.pragma('wal_checkpoint(TRUNCATE)');
        const after = this.#sizes(db);
        return { freedBytes: Math.max(0, before - after) };
      } catch (error) {
        throw toStorageError(error, this.path);
      }
    });
  }

  /**
   * The disk use of the store: database file, WAL file and free pages, in bytes (an in-memory store reports its
   * pages as the database and no WAL).
   */
  fileUsage(): Promise<StorageFileUsage> {
    if (this.#closing) return Promise.reject(new StorageClosedError());
    return this.#scheduler.op(() => {
      const db = this.#useDb();
      try {
        const pageSize = Number(db.pragma('page_size', { simple: true }));
        const freelist = Number(db.pragma('freelist_count', { simple: true }));
        const pages = Number(db.pragma('page_count', { simple: true }));
        return {
          databaseBytes: this.#file === null ? pages * pageSize : fileSize(this.#file),
          walBytes: this.#file === null ? 0 : fileSize(`${this.#file}-wal`),
          freelistBytes: freelist * pageSize,
          pageSize,
        };
      } catch (error) {
        throw toStorageError(error, this.path);
      }
    });
  }

  #sizes(db: Database.Database): number {
    if (this.#file === null)
      return Number(db.pragma('page_count', { simple: true })) * Number(db.pragma('page_size', { simple: true }));
    return fileSize(this.#file) + fileSize(`${this.#file}-wal`);
  }

  /** {@inheritDoc StorageAdapter.schemaVersion} */
  schemaVersion(): Promise<number> {
    if (this.#closing) return Promise.reject(new StorageClosedError());
    return this.#scheduler.op(() => {
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
    if (this.#closing) return Promise.reject(new StorageClosedError());
    return this.#scheduler.tx(this.#groups, fn as (session: StorageSession | undefined) => Promise<T>, true);
  }

  /** {@inheritDoc StorageAdapter.appendAuditBatched} */
  appendAuditBatched(record: AuditRecord): Promise<void> {
    if (this.#closing) return Promise.reject(new StorageClosedError());
    return new Promise<void>((resolve, reject) => {
      this.#pendingAudit.push({ record, resolve, reject });
      if (this.#pendingAudit.length - this.#auditWritten >= AUDIT_BATCH_ROWS) {
        this.#scheduler.op(() => this.#flushAudit()).catch(ignore);
      } else if (this.#auditTimer === undefined) {
        this.#auditTimer = setImmediate(() => {
          this.#auditTimer = undefined;
          if (!this.#closing) this.#scheduler.op(() => this.#flushAudit()).catch(ignore);
        });
      }
    });
  }

  /** {@inheritDoc StorageAdapter.close} */
  close(): Promise<void> {
    if (this.#closing) return Promise.resolve();
    this.#closing = true;
    if (this.#auditTimer !== undefined) {
      clearImmediate(this.#auditTimer);
      this.#auditTimer = undefined;
    }
    return this.#scheduler.op(() => {
      if (this.#db?.open && this.#schemaReady) this.#flushAudit();
      for (const row of this.#pendingAudit.splice(0)) row.reject(new StorageClosedError());
      this.#releaseScheduler();
      const db = this.#db;
      this.#db = null;
      this.#core = null;
      if (db?.open) db.close();
    });
  }

  /**
   * Runs one group of transactions (see the class remarks): `BEGIN IMMEDIATE`, then `first` and every
   * transaction of this adapter queued right behind it, then `COMMIT`.
   * @returns a promise while a transaction's `fn` is still running, undefined when the group is over
   */
  #runGroup(first: TxJob): Promise<void> | undefined {
    try {
      this.#useSchema();
      this.#core!.stmt('BEGIN IMMEDIATE').run();
    } catch (error) {
      first.reject(toStorageError(error, this.path));
      return undefined;
    }
    const group: Group = { done: [], count: 0 };
    for (let job: TxJob | undefined = first; job; job = this.#nextInGroup(group)) {
      const step = this.#step(group, job);
      if (step === 'stop') return undefined;
      if (step !== 'next') return this.#continueGroup(group, step);
    }
    this.#commit(group);
    return undefined;
  }

  async #continueGroup(group: Group, running: Promise<Step>): Promise<void> {
    let step = await running;
    for (;;) {
      if (step === 'stop') return;
      const job = this.#nextInGroup(group);
      if (!job) break;
      const next = this.#step(group, job);
      step = next === 'next' || next === 'stop' ? next : await next;
    }
    this.#commit(group);
  }

  #nextInGroup(group: Group): TxJob | undefined {
    return group.count >= MAX_GROUP ? undefined : this.#scheduler.nextTx(this.#groups);
  }

  /** Runs one transaction of the group: the first directly in the transaction, the others in a savepoint. */
  #step(group: Group, job: TxJob): Step | Promise<Step> {
    const core = this.#core!;
    const first = group.count === 0;
    try {
      this.#writeAudit();
      if (!first) core.stmt('SAVEPOINT tx').run();
    } catch (error) {
      return this.#failed(group, job, error, first);
    }
    const handle = job.session ? createSqliteSession(core) : undefined;
    let out: unknown;
    try {
      out = job.fn(handle?.session);
    } catch (error) {
      handle?.end();
      return this.#failed(group, job, error, first);
    }
    if (!isThenable(out)) {
      handle?.end();
      return this.#succeeded(group, job, out, first);
    }
    return Promise.resolve(out).then(
      (value) => {
        handle?.end();
        return this.#succeeded(group, job, value, first);
      },
      (error: unknown) => {
        handle?.end();
        return this.#failed(group, job, error, first);
      },
    );
  }

  #succeeded(group: Group, job: TxJob, value: unknown, first: boolean): Step {
    if (!first) {
      try {
        this.#core!.stmt('RELEASE tx').run();
      } catch (error) {
        return this.#failed(group, job, error, first);
      }
    }
    group.done.push({ job, value });
    group.count++;
    return 'next';
  }

  #failed(group: Group, job: TxJob, error: unknown, first: boolean): Step {
    const db = this.#db!;
    const mapped = sqliteCode(error) !== undefined ? toStorageError(error, this.path) : error;
    if (!first && db.inTransaction) {
      // Only this transaction's writes are undone; the group goes on.
      try {
        this.#core!.stmt('ROLLBACK TO tx').run();
        this.#core!.stmt('RELEASE tx').run();
        job.reject(mapped);
        group.count++;
        return 'next';
      } catch {
        // fall through: give the whole group up
      }
    }
    // The first transaction failed (nothing else is in the SQLite transaction but pending audit rows, which stay
    // pending), or SQLite rolled the whole transaction back itself (disk full, I/O error): nothing is kept.
    this.#rollback();
    job.reject(mapped);
    const lost = new StorageError(
      `SQLite store at ${this.path}: the transaction was rolled back with another one in its group: ${messageOf(error)}`,
      { cause: error },
    );
    for (const { job: done } of group.done)
      done.reject(sqliteCode(error) !== undefined ? toStorageError(error, this.path) : lost);
    group.done = [];
    return 'stop';
  }

  #commit(group: Group): void {
    try {
      this.#core!.stmt('COMMIT').run();
    } catch (error) {
      this.#rollback();
      const mapped = toStorageError(error, this.path);
      for (const { job } of group.done) job.reject(mapped);
      return;
    }
    this.#auditCommitted();
    for (const { job, value } of group.done) job.resolve(value);
  }

  /** Rolls back the open transaction (if SQLite has not already); batched audit rows written in it stay pending. */
  #rollback(): void {
    const db = this.#db;
    if (db?.inTransaction) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // the connection rolls back on close anyway
      }
    }
    this.#auditWritten = 0;
    if (this.#pendingAudit.length > 0 && this.#auditTimer === undefined && !this.#closing) {
      this.#auditTimer = setImmediate(() => {
        this.#auditTimer = undefined;
        if (!this.#closing) this.#scheduler.op(() => this.#flushAudit()).catch(ignore);
      });
    }
  }

  /**
   * Writes the batched audit rows not yet written into the open transaction, in call order. A row the store
   * refuses (e.g. a duplicate id) is rejected alone; losing the transaction itself throws.
   */
  #writeAudit(): void {
    const pending = this.#pendingAudit;
    while (this.#auditWritten < pending.length) {
      const row = pending[this.#auditWritten]!;
      try {
        this.#core!.insertAudit(row.record);
        this.#auditWritten++;
      } catch (error) {
        if (!this.#db!.inTransaction) throw error;
        pending.splice(this.#auditWritten, 1);
        row.reject(toStorageError(error, this.path));
      }
    }
  }

  /** The open transaction committed: its batched audit rows are durable. */
  #auditCommitted(): void {
    if (this.#auditWritten === 0) return;
    const rows = this.#pendingAudit.splice(0, this.#auditWritten);
    this.#auditWritten = 0;
    for (const row of rows) row.resolve();
  }

  /**
   * Writes every pending batched audit row in one transaction of its own (between groups). When that
   * transaction fails, its rows are rejected with the storage error and dropped.
   */
  #flushAudit(): void {
    if (this.#pendingAudit.length === 0) return;
    try {
      this.#useSchema();
      this.#core!.stmt('BEGIN IMMEDIATE').run();
      this.#writeAudit();
      this.#core!.stmt('COMMIT').run();
    } catch (error) {
      if (this.#db?.inTransaction) {
        try {
          this.#db.exec('ROLLBACK');
        } catch {
          // rolled back on close anyway
        }
      }
      this.#auditWritten = 0;
      const mapped = toStorageError(error, this.path);
      for (const row of this.#pendingAudit.splice(0)) row.reject(mapped);
      return;
    }
    this.#auditCommitted();
  }

  /** One repository read on the adapter, outside any transaction (a single statement is atomic on its own). */
  #read<T>(work: (core: SqliteRepositories) => T): Promise<T> {
    if (this.#closing) return Promise.reject(new StorageClosedError());
    return this.#scheduler.op(() => {
      this.#useSchema();
      try {
        return work(this.#core!);
      } catch (error) {
        throw toStorageError(error, this.path);
      }
    });
  }

  /** One repository write on the adapter, as a transaction of its own (it may share a group's `COMMIT`). */
  #write<T>(work: (core: SqliteRepositories) => T): Promise<T> {
    if (this.#closing) return Promise.reject(new StorageClosedError());
    return this.#scheduler.tx(
      this.#groups,
      () => {
        try {
          return work(this.#core!);
        } catch (error) {
          throw toStorageError(error, this.path);
        }
      },
      false,
    );
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
      db.pragma(`cache_size = ${-this.cacheSizeKiB}`);
      // Reads the header: a file of garbage fails here with SQLITE_NOTADB.
      readUserVersion(db);
    } catch (error) {
      db.close();
      throw toStorageError(error, this.path);
    }
    this.#db = db;
    this.#core = new SqliteRepositories(db, this.path);
    return db;
  }

  /** The connection, in WAL mode, after checking the store is not newer than this SDK. */
  #useDb(): Database.Database {
    const db = this.#connect();
    if (this.#walReady) return db;
    try {
      const version = readUserVersion(db);
      if (version > STORAGE_SCHEMA_VERSION) throw new StorageSchemaTooNewError(version, STORAGE_SCHEMA_VERSION);
      // A new, empty file takes the configured page size and incremental auto-vacuum (so `compact()` can give pages
      // retention freed back to the file system); both are only possible before its first page is written.
      if (Number(db.pragma('page_count', { simple: true })) === 0) {
        db.pragma(`page_size = ${this.pageSizeBytes}`);
        db.pragma('auto_vacuum = INCREMENTAL');
      }
      // Another process opening the same new file may hold the lock the switch needs: retried until the busy
      // timeout (SQLite does not wait for it by itself).
      retryWhileBusy(() => db.pragma('journal_mode = WAL'), this.busyTimeoutMs);
      const pageSize = Number(db.pragma('page_size', { simple: true }));
      db.pragma(`wal_autocheckpoint = ${Math.round(WAL_AUTOCHECKPOINT_BYTES / pageSize)}`);
      // A WAL that grew while a reader held an old snapshot (no checkpoint could reset it) is cut back to this
      // size at the next checkpoint that resets it, instead of keeping its peak size on disk for good.
      db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    } catch (error) {
      throw toStorageError(error, this.path);
    }
    this.#walReady = true;
    return db;
  }

  /** The connection, refusing to run repositories on a schema that is not {@link STORAGE_SCHEMA_VERSION}. */
  #useSchema(): Database.Database {
    if (this.#schemaReady) return this.#db!;
    const db = this.#useDb();
    let version: number;
    try {
      version = readUserVersion(db);
    } catch (error) {
      throw toStorageError(error, this.path);
    }
    if (version > STORAGE_SCHEMA_VERSION) throw new StorageSchemaTooNewError(version, STORAGE_SCHEMA_VERSION);
    if (version < STORAGE_SCHEMA_VERSION) {
      throw new StorageError(
        `the SQLite store at ${this.path} is at schema version ${version}; call migrate() first (this SDK needs ${STORAGE_SCHEMA_VERSION})`,
      );
    }
    this.#schemaReady = true;
    return db;
  }
}

/** The size of file `path` in bytes, 0 when it does not exist. */
function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Creates a {@link SqliteStorage}. Nothing is opened until first use; call `migrate()` before use
 * (`host.start()` does).
 * @param options - file path (`:memory:` for in-memory) and busy timeout in ms (default 5000)
 * @returns the adapter
 * @throws `StorageError` on invalid options
 *
 * @example
 * ```ts
 * const storage = createSqliteStorage({ path: ':memory:' });
 * await storage.migrate();
 * ```
 * @public
 */
export function createSqliteStorage(options: SqliteStorageOptions): SqliteStorage {
  return new SqliteStorage(options);
}
