import pg from 'pg';
import { MediaAgentError } from '../../core/errors';
import { secretsOfUrl } from '../../core/secret-redactor';
import type { AuditRecord } from '../../core/records';
import {
  STORAGE_SCHEMA_VERSION,
  type StorageAdapter,
  type StorageSession,
  type StorageTopic,
} from '../../ports/storage-adapter';
import {
  StorageClosedError,
  StorageConflictError,
  StorageError,
  StoragePoolExhaustedError,
  StorageSchemaTooNewError,
  StorageUnavailableError,
} from '../errors';
import { SerialQueue } from '../serial-queue';
import { pgAppendAuditBatch } from './audit-append';
import { applyPgMigrations, readSchemaVersion } from './migrations';
import { NotificationListener } from './notification-listener';
import { isConnectionError, RETRYABLE_SQLSTATES, sqlState, toStorageError } from './postgres-errors';
import { READ_METHODS } from '../repository-methods';
import { adapterRepositories } from '../sql/adapter-repositories';
import { sessionStatements } from '../sql/session-statements';
import { POSTGRES_DIALECT } from './postgres-dialect';
import { createPgSession, PG_MULTI_STATEMENT_WRITES } from './postgres-session';
import { pgExecutor, SqlCompiler } from './postgres-executor';
import {
  beginSql,
  channelOf,
  locationOf,
  type PostgresStorageOptions,
  resolvePostgresOptions,
} from './postgres-options';

/** Rows `appendAuditBatched` lets wait before they are written at once (else they wait for the event loop to turn). */
const AUDIT_BATCH_ROWS = 256;

type PooledClient = pg.PoolClient;
/** What a job's work runs its statements on: the pooled client's `query`, watched by the job. */
type JobClient = Pick<pg.PoolClient, 'query'>;
/**
 * The PostgreSQL {@link StorageAdapter} (node-postgres): several host processes on several machines share one
 * database — runs are leased with `FOR UPDATE SKIP LOCKED`, ledger claims are decided by unique keys, approvals
 * and plans by compare-and-set, grant budgets by a locked counter row, and run events get a global sequence in
 * commit order; `watch()` wakes readers in every process through `LISTEN`/`NOTIFY`.
 *
 * @remarks
 * Nothing connects in the constructor. Call {@link PostgresStorage.migrate} once at start-up (`host.start()`
 * does): it creates the schema and its tables, or upgrades them, in one transaction under an advisory lock (a
 * second process migrating at the same time waits, then finds nothing to do); a schema written by a newer SDK is
 * refused untouched (`STORAGE_SCHEMA_TOO_NEW`). Repositories fail with `StorageError` until the schema is current.
 *
 * Transactions run at READ COMMITTED and are serialized per adapter (one at a time per process, like SQLite);
 * processes run theirs concurrently. Every cross-process rule is one statement that PostgreSQL re-checks on the
 * newest row version, or a row lock taken by the statement that reads (the grant usage counter read by a budget
 * check inside a transaction). A transaction aborted by a serialization failure or a deadlock is rolled back and
 * run again, up to `maxTransactionAttempts` times — so on this adapter `fn` may run more than once and must
 * have no effects outside the session it is given.
 *
 * Errors: `STORAGE_UNAVAILABLE` (server unreachable, refused, shut down or restarted: a transaction in flight
 * did not commit, or its outcome is unknown if the connection dropped during `COMMIT`; later calls reconnect,
 * and a read or transaction whose first statement finds its pooled connection already dead runs again on
 * another), `STORAGE_AUTH_FAILED`, `STORAGE_TIMEOUT` (statement or idle-in-transaction timeout),
 * `STORAGE_POOL_EXHAUSTED` (no free connection within the connection timeout), `STORAGE_CONFLICT` (retries used
 * up), `STORAGE_SCHEMA_TOO_NEW`, `STORAGE_CLOSED`, `STORAGE_FAILED` (anything else, the SQLSTATE in the message). A statement that fails inside
 * `transaction(fn)` aborts the transaction in PostgreSQL: `fn` should let the error propagate; if it catches it
 * and returns, the transaction is still rolled back and rejects with that error.
 *
 * @example
 * ```ts
 * import { createAgentHost } from '@media-agent/sdk';
 * import { PostgresStorage } from '@media-agent/sdk/postgres';
 *
 * const storage = new PostgresStorage({
 *   connectionString: process.env.DATABASE_URL ?? 'postgres://agent@127.0.0.1:5432/app',
 *   schema: 'media_agent',
 *   poolSize: 4,
 * });
 * const host = createAgentHost({ storage });
 * await host.start(); // migrates the schema (one process at a time) before anything else
 * ```
 * @public
 */
export class PostgresStorage implements StorageAdapter {
  /** {@inheritDoc StorageAdapter.kind} */
  readonly kind = 'postgres';
  /** The schema that holds the tables. */
  readonly schema: string;
  /** The server as `host:port/database` (never credentials), for messages. */
  readonly location: string;
  /** Statement timeout in ms (0: none). */
  readonly statementTimeoutMs: number;
  /** Idle-in-transaction timeout in ms (0: none). */
  readonly idleInTransactionTimeoutMs: number;
  /** Connection timeout in ms. */
  readonly connectionTimeoutMs: number;
  /** Most runs of `fn` per `transaction(fn)`. */
  readonly maxTransactionAttempts: number;

  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #compiler: SqlCompiler;
  readonly #queue = new SerialQueue();
  readonly #listener: NotificationListener;
  readonly #onBackgroundError: (error: unknown) => void;
  readonly #beginSql: string;
  #schemaReady = false;
  #closed = false;
  /** Rows of `appendAuditBatched` not yet written, in call order. */
  #pendingAudit: Array<{ record: AuditRecord; resolve: () => void; reject: (error: unknown) => void }> = [];
  #auditScheduled = false;
  /** Pooled clients this adapter has used before (a client not in it was connected just now). */
  readonly #seen = new WeakSet<PooledClient>();

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
   * @param options - `connectionString` or `pool`, schema, pool size, timeouts (see {@link PostgresStorageOptions})
   * @throws `OPTIONS_INVALID` (the option's name in the message and in `details.option`) before any network
   *   access when `options` is missing or not an object, has a name that is not an option, neither
   *   `connectionString` nor `pool` is given, `connectionString` is not a `postgres://`/`postgresql://`/`socket:`
   *   URL or a socket directory (`/…`), `pool` has no `connect`/`query`, the schema is not a lowercase
   *   identifier, or a size or timeout is not a non-negative integer
   */
  constructor(options: PostgresStorageOptions) {
    const resolved = resolvePostgresOptions(options);
    this.schema = resolved.schema;
    this.statementTimeoutMs = resolved.statementTimeoutMs;
    this.idleInTransactionTimeoutMs = resolved.idleInTransactionTimeoutMs;
    this.connectionTimeoutMs = resolved.connectionTimeoutMs;
    this.maxTransactionAttempts = resolved.maxTransactionAttempts;
    this.#onBackgroundError = options.onBackgroundError ?? (() => undefined);
    if (options.pool) {
      this.#pool = options.pool;
      this.#ownsPool = false;
    } else {
      this.#pool = new pg.Pool(resolved.poolConfig!);
      this.#pool.on('error', (error) => this.#onBackgroundError(error));
      this.#ownsPool = true;
    }
    const config = (this.#pool as unknown as { options: pg.PoolConfig }).options;
    this.location = locationOf(config);
    this.#compiler = new SqlCompiler(this.schema, channelOf(this.schema));
    this.#beginSql = beginSql(this.statementTimeoutMs, this.idleInTransactionTimeoutMs);
    this.#listener = new NotificationListener(
      { ...config, connectionTimeoutMillis: this.connectionTimeoutMs },
      this.#compiler.channel,
      (error) => this.#onBackgroundError(error),
    );

    // The repositories on the adapter: each call runs on its own (a transaction of its own when it takes more than
    // one statement), in call order with every other call and transaction of this adapter.
    const on = adapterRepositories(sessionStatements(POSTGRES_DIALECT), (name, method) => {
      const read = READ_METHODS.has(method);
      const multi = PG_MULTI_STATEMENT_WRITES.has(`${name}.${method}`);
      return (...args) =>
        this.#call(read, multi, (session) =>
          (session[name] as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!(...args),
        );
    });
    Object.assign(this, on);
  }

  /**
   * Creates the schema and its tables, or upgrades them to {@link STORAGE_SCHEMA_VERSION}; safe to call repeatedly
   * and from several processes at once.
   * @remarks
   * All pending migrations run in one transaction under an advisory lock on the schema name: concurrent
   * migrators take turns, and a failure (the server going away included) leaves the schema as it was. The
   * statement timeout does not apply (waiting for another process's migration, or a long backfill, is no failure).
   * @throws `STORAGE_SCHEMA_TOO_NEW` (nothing touched), `STORAGE_UNAVAILABLE`, `STORAGE_AUTH_FAILED`,
   *   `STORAGE_TIMEOUT`, `STORAGE_CLOSED`, `STORAGE_FAILED`
   */
  migrate(): Promise<void> {
    return this.#job(async (client) => {
      // No statement timeout: waiting for another process's migration, or a long backfill, is not a failure.
      await client.query('BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL statement_timeout = 0');
      try {
        await applyPgMigrations(client, this.#compiler);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
      this.#schemaReady = false;
    });
  }

  /** {@inheritDoc StorageAdapter.schemaVersion} */
  schemaVersion(): Promise<number> {
    return this.#job((client) => readSchemaVersion(client, this.#compiler));
  }

  /**
   * Runs `fn` in one transaction (READ COMMITTED), after every call and transaction of this adapter made before it.
   * @remarks
   * `fn` must only use the session it is given. It runs again (up to `maxTransactionAttempts` times in all)
   * after a serialization failure or deadlock, so it must have no effects outside `session`.
   * @throws whatever `fn` throws (after rolling back), `STORAGE_CONFLICT` when every attempt hit a serialization
   *   failure or deadlock, `STORAGE_UNAVAILABLE`, `STORAGE_TIMEOUT`, `STORAGE_POOL_EXHAUSTED`, `STORAGE_CLOSED`
   */
  transaction<T>(fn: (session: StorageSession) => Promise<T>): Promise<T> {
    return this.#job(async (client) => {
      await this.#useSchema(client);
      await this.#flushAudit(client);
      return this.#runTransaction(client, fn);
    });
  }

  /** {@inheritDoc StorageAdapter.appendAuditBatched} */
  appendAuditBatched(record: AuditRecord): Promise<void> {
    if (this.#closed) return Promise.reject(new StorageClosedError());
    return new Promise<void>((resolve, reject) => {
      this.#pendingAudit.push({ record, resolve, reject });
      if (this.#pendingAudit.length >= AUDIT_BATCH_ROWS) this.#scheduleAuditFlush(true);
      else this.#scheduleAuditFlush(false);
    });
  }

  /**
   * Calls `listener` soon after any process commits run events (`events`) or makes a run runnable (`runs`) in this
   * schema: a hint to read storage now, which stays the source of truth.
   * @remarks
   * One dedicated connection (not one of the pool) `LISTEN`s while at least one listener is registered; it
   * reconnects by itself after a server restart and then calls every listener with both topics.
   * @param listener - called with `events` or `runs`
   * @returns the function that stops the calls
   */
  watch(listener: (topic: StorageTopic) => void): () => void {
    if (this.#closed) return () => undefined;
    return this.#listener.add(listener);
  }

  /**
   * The credentials of the connection (the password, also from a connection string; `?password=` and the like),
   * so the host's redaction removes them wherever a driver message echoes them (docs/secrets.md).
   */
  secretValues(): readonly string[] {
    const config = (this.#pool as unknown as { options?: pg.PoolConfig }).options ?? {};
    return [
      ...(typeof config.password === 'string' ? [config.password] : []),
      ...secretsOfUrl(config.connectionString),
    ];
  }

  /**
   * Writes pending batched audit rows, stops listening and ends the pool if the adapter created it (a host's pool
   * stays open). Further calls fail with `StorageClosedError`.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listener.close();
    await this.#queue
      .run(async () => {
        if (this.#pendingAudit.length === 0) return;
        await this.#withClient(true, (client) => this.#flushAudit(client));
      })
      .catch((error: unknown) => {
        // Rows the server could not take before the adapter closed are rejected now.
        const mapped = error instanceof MediaAgentError ? error : this.#map(error);
        for (const row of this.#pendingAudit.splice(0)) row.reject(mapped);
      });
    if (this.#ownsPool) await this.#pool.end().catch(() => undefined);
  }

  /**
   * Runs `work` with a pooled client, after every job queued before it (call order), and maps its errors.
   * @param retrySafe - whether `work` may run again on another connection when its first statement fails because
   *   the connection was already dead (see `#withClient`): true for reads and for work that
   *   starts with `BEGIN`, false for single writes outside a transaction
   */
  #job<T>(work: (client: JobClient) => Promise<T>, retrySafe = true): Promise<T> {
    if (this.#closed) return Promise.reject(new StorageClosedError());
    // A call made before close() still runs: close() queues behind it.
    return this.#queue.run(() => this.#withClient(retrySafe, work));
  }

  /**
   * Runs `work` on a pooled client. The client is destroyed instead of returned to the pool when its connection
   * failed. A connection that died while it sat idle in the pool (a server restart the pool has not noticed yet)
   * fails the first statement sent on it; when `retrySafe`, nothing of `work` ran, so it runs again on another
   * connection (at most pool size + 1 times: every idle connection may be dead). A failure after a statement
   * succeeded — a transaction in flight — is not retried: it fails with `STORAGE_UNAVAILABLE`.
   */
  async #withClient<T>(retrySafe: boolean, work: (client: JobClient) => Promise<T>): Promise<T> {
    const max = (this.#pool as unknown as { options: { max?: number } }).options.max ?? 10;
    for (let attempt = 1; ; attempt++) {
      const client = await this.#acquire();
      const reused = this.#seen.has(client);
      this.#seen.add(client);
      let answered = false;
      let broken: Error | undefined;
      const onError = (error: Error) => {
        broken ??= error;
      };
      client.on('error', onError);
      const watched: JobClient = {
        query: ((...args: unknown[]) => {
          const result = (client.query as (...a: unknown[]) => Promise<unknown>)(...args);
          result.then(() => {
            answered = true;
          }, ignore);
          return result;
        }) as JobClient['query'],
      };
      try {
        return await work(watched);
      } catch (error) {
        // (A repository call inside `work` rejects with the mapped error: StorageUnavailableError.)
        if (isConnectionError(error) || error instanceof StorageUnavailableError) broken ??= error as Error;
        if (broken !== undefined && retrySafe && reused && !answered && attempt <= max) continue;
        // Driver errors become typed storage errors; what `fn` threw passes through as it is. When the server ended
        // the session with a reason (a restart, the idle-in-transaction timeout), that reason is the error.
        const driver =
          error instanceof pg.DatabaseError || isConnectionError(error) || error instanceof StorageUnavailableError;
        if (!driver) throw error;
        throw this.#map(broken instanceof pg.DatabaseError ? broken : error);
      } finally {
        client.off('error', onError);
        client.release(broken);
      }
    }
  }

  /** One repository call on the adapter: one statement on its own, or a transaction when it takes several. */
  #call<T>(read: boolean, multi: boolean, call: (session: StorageSession) => Promise<T>): Promise<T> {
    return this.#job(async (client) => {
      await this.#useSchema(client);
      await this.#flushAudit(client);
      if (multi) return this.#runTransaction(client, call);
      const handle = createPgSession(client, this.#compiler, false, (e) => this.#map(e));
      try {
        return await call(handle.session);
      } finally {
        handle.end();
      }
    }, read || multi);
  }

  /** `BEGIN … COMMIT` around `fn`, run again after a serialization failure or deadlock. */
  async #runTransaction<T>(client: JobClient, fn: (session: StorageSession) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      await client.query(this.#beginSql);
      const handle = createPgSession(client, this.#compiler, true, (e) => this.#map(e));
      let value: T | undefined;
      let thrown: { error: unknown } | undefined;
      try {
        value = await fn(handle.session);
      } catch (error) {
        thrown = { error };
      } finally {
        handle.end();
      }
      const failure = handle.failure;
      if (thrown || failure) {
        await client.query('ROLLBACK');
        if (failure && this.#retryable(failure.raw)) {
          if (attempt < this.maxTransactionAttempts) {
            await backoff(attempt);
            continue;
          }
          throw this.#conflict(failure.raw, attempt);
        }
        throw thrown ? thrown.error : failure!.error;
      }
      try {
        const result = await client.query('COMMIT');
        if (result.command === 'ROLLBACK') throw new StorageError('PostgreSQL rolled the transaction back at COMMIT');
      } catch (error) {
        if (this.#retryable(error)) {
          await client.query('ROLLBACK').catch(() => undefined);
          if (attempt < this.maxTransactionAttempts) {
            await backoff(attempt);
            continue;
          }
          throw this.#conflict(error, attempt);
        }
        throw error;
      }
      return value as T;
    }
  }

  #retryable(error: unknown): boolean {
    const state = sqlState(error);
    return state !== undefined && RETRYABLE_SQLSTATES.has(state);
  }

  #conflict(error: unknown, attempts: number): StorageConflictError {
    const state = sqlState(error);
    return new StorageConflictError(
      `PostgreSQL store at ${this.location}: the transaction failed with ${state === '40P01' ? 'a deadlock' : 'a serialization failure'} (${state}) on each of ${attempts} attempts`,
      attempts,
      { cause: error },
    );
  }

  #map(error: unknown): MediaAgentError {
    return toStorageError(error, this.location, {
      statementMs: this.statementTimeoutMs,
      idleInTransactionMs: this.idleInTransactionTimeoutMs,
    });
  }

  /**
   * A pooled client within the connection timeout. `pool.connect()` is raced against the timeout (a host's pool
   * may wait forever): when every connection stays busy the call fails with `STORAGE_POOL_EXHAUSTED`, when a
   * new connection cannot be made with `STORAGE_UNAVAILABLE`; a client that arrives too late goes back to the pool.
   */
  async #acquire(): Promise<PooledClient> {
    const pool = this.#pool;
    // An idle connection is handed out at once: no timer needed.
    if (pool.idleCount > 0) return pool.connect().catch((error: unknown) => Promise.reject(this.#map(error)));
    const max = (pool as unknown as { options: { max?: number } }).options.max ?? 10;
    const busy = () => pool.totalCount >= max && pool.idleCount === 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    const connecting = pool.connect();
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(
          busy()
            ? new StoragePoolExhaustedError(this.connectionTimeoutMs, max)
            : new StorageUnavailableError(
                `no connection to the PostgreSQL server at ${this.location} within ${this.connectionTimeoutMs} ms`,
              ),
        );
      }, this.connectionTimeoutMs);
    });
    try {
      return await Promise.race([connecting, timeout]);
    } catch (error) {
      if (timedOut) connecting.then((client) => client.release(), ignore);
      if (error instanceof MediaAgentError) throw error;
      if (error instanceof Error && /timeout exceeded when trying to connect/.test(error.message) && busy())
        throw new StoragePoolExhaustedError(this.connectionTimeoutMs, max);
      throw this.#map(error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Refuses repositories on a schema that is not at {@link STORAGE_SCHEMA_VERSION} (checked once). */
  async #useSchema(client: JobClient): Promise<void> {
    if (this.#schemaReady) return;
    const version = await readSchemaVersion(client, this.#compiler);
    if (version > STORAGE_SCHEMA_VERSION) throw new StorageSchemaTooNewError(version, STORAGE_SCHEMA_VERSION);
    if (version < STORAGE_SCHEMA_VERSION)
      throw new StorageError(
        `the PostgreSQL schema "${this.schema}" at ${this.location} is at version ${version}; call migrate() first (this SDK needs ${STORAGE_SCHEMA_VERSION})`,
      );
    this.#schemaReady = true;
  }

  /** Queues a job that writes the pending batched audit rows: at once when `now`, else when the event loop turns. */
  #scheduleAuditFlush(now: boolean): void {
    if (this.#auditScheduled && !now) return;
    this.#auditScheduled = true;
    const flush = () => {
      this.#auditScheduled = false;
      if (this.#pendingAudit.length === 0 || this.#closed) return;
      this.#job(async (client) => {
        await this.#useSchema(client);
        await this.#flushAudit(client);
      }).catch(() => undefined); // the rows' own promises carry the error
    };
    if (now) flush();
    else setImmediate(flush);
  }

  /**
   * Writes every pending batched audit row in one transaction (the chain's lock, its head, one insert), in call order. When
   * the statement fails, the rows are written one by one so only the rows the store refuses (e.g. a duplicate id)
   * are rejected; on a lost connection the rows not written go back to the front of the pending rows.
   */
  async #flushAudit(client: JobClient): Promise<void> {
    if (this.#pendingAudit.length === 0) return;
    const rows = this.#pendingAudit.splice(0);
    // One transaction per insert: the chain's lock, its head and the rows (docs/audit.md).
    const run = pgExecutor(client, this.#compiler);
    const insert = async (batch: typeof rows) => {
      await client.query(this.#beginSql);
      try {
        await pgAppendAuditBatch(
          run,
          batch.map((r) => r.record),
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(ignore);
        throw error;
      }
    };
    try {
      await insert(rows);
    } catch (error) {
      if (isConnectionError(error)) {
        // Not written: the rows wait for the next call (or are rejected by close()).
        this.#pendingAudit.unshift(...rows);
        throw error;
      }
      if (rows.length === 1) {
        rows[0]!.reject(this.#map(error));
        return;
      }
      for (const [i, row] of rows.entries()) {
        try {
          await insert([row]);
          row.resolve();
        } catch (single) {
          if (isConnectionError(single)) {
            this.#pendingAudit.unshift(...rows.slice(i));
            throw single;
          }
          row.reject(this.#map(single));
        }
      }
      return;
    }
    for (const row of rows) row.resolve();
  }
}

function ignore(): void {}

/** Waits a few ms before the next attempt of a transaction (more after each failure, with jitter). */
function backoff(attempt: number): Promise<void> {
  const ms = Math.min(200, 5 * 2 ** (attempt - 1)) * (0.5 + Math.random());
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Creates a {@link PostgresStorage}. Nothing connects until first use; call `migrate()` before use
 * (`host.start()` does).
 * @param options - `connectionString` or `pool`, schema (default `media_agent`), pool size, timeouts
 * @returns the adapter
 * @throws `OPTIONS_INVALID` on invalid options
 *
 * @example
 * ```ts
 * const storage = createPostgresStorage({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
 * await storage.migrate();
 * ```
 * @public
 */
export function createPostgresStorage(options: PostgresStorageOptions): PostgresStorage {
  return new PostgresStorage(options);
}
