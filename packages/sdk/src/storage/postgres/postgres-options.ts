import type pg from 'pg';
import { MediaAgentError } from '../../core/errors';

/**
 * Options of {@link PostgresStorage}: where the database is (a URL, or a `pg.Pool` the host owns), which schema
 * holds the tables, and the limits of waiting.
 * @public
 */
export interface PostgresStorageOptions {
  /**
   * A PostgreSQL connection URL, e.g. `postgres://agent:secret@db.internal:5432/app` (libpq's URL form, with
   * `?sslmode=…` etc.). The adapter creates (and on `close()` ends) a `pg.Pool` of `poolSize` connections.
   * Give this or `pool`.
   */
  connectionString?: string;
  /**
   * A `pg.Pool` the host created and owns (it is not ended by `close()`); `poolSize` and `connectionString` are
   * then ignored. The host should listen to the pool's `error` event: an idle connection dropped by a server
   * restart emits one.
   */
  pool?: pg.Pool;
  /**
   * The schema that holds the tables, created by `migrate()` when missing: a lowercase SQL identifier
   * (`[a-z_][a-z0-9_]*`, at most 63 characters). Hosts (or tenants, or test cases) that share one database keep
   * apart by using different schemas.
   * @defaultValue `media_agent` ({@link DEFAULT_POSTGRES_SCHEMA})
   */
  schema?: string;
  /**
   * Most connections the adapter's own pool opens. One process uses one at a time for its transactions (they are
   * serialized per adapter), plus short reads of `schemaVersion()`; LISTEN/NOTIFY uses one more of its own.
   * @defaultValue 4
   */
  poolSize?: number;
  /**
   * A statement running longer is cancelled by the server (`STORAGE_TIMEOUT`), in ms; set on every connection of
   * the adapter's own pool and, with `SET LOCAL`, in every transaction (so also on a host's pool). 0 disables it.
   * @defaultValue 30 000
   */
  statementTimeoutMs?: number;
  /**
   * A transaction left open without a statement for longer (its `fn` awaiting something else, its process paused)
   * is ended by the server, which releases its locks — so one stuck process cannot hold up the others (the run
   * event counter, a run's row); its next statement fails with `STORAGE_TIMEOUT`. In ms; 0 disables it.
   * @defaultValue 60 000
   */
  idleInTransactionTimeoutMs?: number;
  /**
   * How long a call waits for a connection — to open one, or for one of a busy pool to become free — before it
   * fails with `STORAGE_UNAVAILABLE` (server unreachable) or `STORAGE_POOL_EXHAUSTED` (every connection busy),
   * in ms.
   * @defaultValue 5 000
   */
  connectionTimeoutMs?: number;
  /**
   * How many times `transaction(fn)` runs `fn` when PostgreSQL aborts it with a serialization failure (40001) or
   * a deadlock (40P01), waiting a few ms more before each new attempt; then `STORAGE_CONFLICT`.
   * @defaultValue 5
   */
  maxTransactionAttempts?: number;
  /**
   * Told about errors no call is waiting for: an idle connection of the adapter's own pool dropped, the
   * LISTEN connection lost (it reconnects by itself). Default: ignored.
   */
  onBackgroundError?: (error: unknown) => void;
}

/** Default schema of {@link PostgresStorage}. @public */
export const DEFAULT_POSTGRES_SCHEMA = 'media_agent';
/** Default `poolSize` of {@link PostgresStorage}. @public */
export const DEFAULT_POSTGRES_POOL_SIZE = 4;
/** Default statement timeout of {@link PostgresStorage}, in ms. @public */
export const DEFAULT_POSTGRES_STATEMENT_TIMEOUT_MS = 30_000;
/** Default idle-in-transaction timeout of {@link PostgresStorage}, in ms. @public */
export const DEFAULT_POSTGRES_IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;
/** Default connection timeout of {@link PostgresStorage}, in ms. @public */
export const DEFAULT_POSTGRES_CONNECTION_TIMEOUT_MS = 5_000;
/** Default `maxTransactionAttempts` of {@link PostgresStorage}. @public */
export const DEFAULT_POSTGRES_TRANSACTION_ATTEMPTS = 5;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function invalid(option: string, message: string): MediaAgentError {
  return new MediaAgentError('OPTIONS_INVALID', `PostgresStorage option ${option}: ${message}`, { option });
}

/** A value as a message shows it (a string quoted, never more than 40 characters: it may be a URL with a password). */
function shown(value: unknown): string {
  if (typeof value === 'string') return value.length > 40 ? 'a string' : JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

function nonNegativeInteger(value: unknown, fallback: number, option: string, min = 0): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
    throw invalid(option, `must be an integer ≥ ${min} (a number, in ms for timeouts); got ${shown(value)}`);
  return value;
}

const KNOWN_OPTIONS: ReadonlySet<string> = new Set([
  'connectionString',
  'pool',
  'schema',
  'poolSize',
  'statementTimeoutMs',
  'idleInTransactionTimeoutMs',
  'connectionTimeoutMs',
  'maxTransactionAttempts',
  'onBackgroundError',
] satisfies ReadonlyArray<keyof PostgresStorageOptions>);

/** The URL schemes node-postgres reads as a connection string (besides a Unix socket directory, `/…`). */
const URL_SCHEMES = ['postgres:', 'postgresql:', 'socket:'];

/**
 * Why `connectionString` is not one node-postgres can use, or undefined. Checked by parsing only (no DNS, no
 * socket): node-postgres reads anything else as a path relative to `postgres://base`, so `'not a url'` would
 * make it look up a host named `base`.
 */
function connectionStringProblem(value: unknown): string | undefined {
  const accepted =
    "a PostgreSQL URL such as 'postgres://user:password@host:5432/database' (postgresql:// and socket:// too) or a Unix socket directory such as '/var/run/postgresql'";
  if (typeof value !== 'string') return `must be ${accepted}; got ${shown(value)}`;
  if (value.trim() === '') return `must be ${accepted}; got an empty string`;
  if (value.startsWith('/')) return undefined;
  const scheme = /^([a-z][a-z0-9+.-]*:)/i.exec(value)?.[1]?.toLowerCase();
  if (!scheme || !URL_SCHEMES.includes(scheme))
    return `must be ${accepted}; got ${scheme ? `a ${scheme.slice(0, -1)}: URL` : 'text that is not a URL'}`;
  try {
    // node-postgres allows `postgres://user@/db?host=/socket` (no host); URL does not, so give it one to parse
    new URL(value.replace('@/', '@localhost/'));
  } catch {
    return `must be ${accepted}; got a ${scheme.slice(0, -1)}: URL that does not parse`;
  }
  return undefined;
}

/** `host:port/database` of a connection URL or pool, never its credentials. @internal */
export function locationOf(config: pg.PoolConfig): string {
  if (config.connectionString) {
    try {
      const url = new URL(config.connectionString);
      return `${url.hostname || 'localhost'}:${url.port || '5432'}${url.pathname || '/'}`;
    } catch {
      return 'the configured server';
    }
  }
  return `${config.host ?? 'localhost'}:${config.port ?? 5432}/${config.database ?? ''}`;
}

/** The LISTEN/NOTIFY channel of a schema (an identifier of at most 63 bytes). @internal */
export function channelOf(schema: string): string {
  return `media_agent.${schema}`.slice(0, 63);
}

/** The options of {@link PostgresStorage} checked, with their defaults. @internal */
export interface ResolvedPostgresOptions {
  /** The schema (validated, unquoted). */
  readonly schema: string;
  /** Statement timeout in ms (0: none). */
  readonly statementTimeoutMs: number;
  /** Idle-in-transaction timeout in ms (0: none). */
  readonly idleInTransactionTimeoutMs: number;
  /** Wait for a connection in ms (≥ 1). */
  readonly connectionTimeoutMs: number;
  /** Most runs of a transaction's `fn` (≥ 1). */
  readonly maxTransactionAttempts: number;
  /** The configuration of the adapter's own pool (undefined when the host passes `pool`). */
  readonly poolConfig: pg.PoolConfig | undefined;
}

/**
 * Checks `options` and fills in the defaults.
 * @throws `OPTIONS_INVALID` (naming the option in `details.option`) when `options` is not an object or has an
 *   unknown name, neither `connectionString` nor `pool` is given, `connectionString` is not a PostgreSQL URL or
 *   socket directory, `pool` is not a pool, the schema is not a lowercase identifier, or a size or timeout is not
 *   an integer in range. Nothing is resolved or connected.
 * @internal
 */
export function resolvePostgresOptions(given: PostgresStorageOptions): ResolvedPostgresOptions {
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    throw invalid(
      'options',
      `must be an object such as { connectionString: 'postgres://user@host:5432/db' } or { pool }; got ${shown(given)}`,
    );
  const options = given as Record<keyof PostgresStorageOptions, unknown>;
  for (const name of Object.keys(options))
    if (!KNOWN_OPTIONS.has(name)) throw invalid(name, `is not an option; known: ${[...KNOWN_OPTIONS].join(', ')}`);
  if (options.pool !== undefined) {
    const pool = options.pool as Record<string, unknown> | null;
    if (
      typeof pool !== 'object' ||
      pool === null ||
      typeof pool.connect !== 'function' ||
      typeof pool.query !== 'function'
    )
      throw invalid('pool', `must be a pg.Pool (with connect and query); got ${shown(options.pool)}`);
  } else {
    const problem = connectionStringProblem(options.connectionString);
    if (options.connectionString === undefined)
      throw invalid(
        'connectionString',
        "give a PostgreSQL connection URL (connectionString: 'postgres://user:password@host:5432/database') or a pg.Pool (pool)",
      );
    if (problem) throw invalid('connectionString', problem);
  }
  if (options.onBackgroundError !== undefined && typeof options.onBackgroundError !== 'function')
    throw invalid('onBackgroundError', `must be a function (error) => void; got ${shown(options.onBackgroundError)}`);
  const schemaValue = options.schema ?? DEFAULT_POSTGRES_SCHEMA;
  if (typeof schemaValue !== 'string' || !SCHEMA_NAME.test(schemaValue))
    throw invalid(
      'schema',
      `must be a lowercase identifier ([a-z_][a-z0-9_]*, ≤ 63 characters), got ${shown(schemaValue)}`,
    );
  const schema = schemaValue;
  const statementTimeoutMs = nonNegativeInteger(
    options.statementTimeoutMs,
    DEFAULT_POSTGRES_STATEMENT_TIMEOUT_MS,
    'statementTimeoutMs',
  );
  const idleInTransactionTimeoutMs = nonNegativeInteger(
    options.idleInTransactionTimeoutMs,
    DEFAULT_POSTGRES_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    'idleInTransactionTimeoutMs',
  );
  const connectionTimeoutMs = nonNegativeInteger(
    options.connectionTimeoutMs,
    DEFAULT_POSTGRES_CONNECTION_TIMEOUT_MS,
    'connectionTimeoutMs',
    1,
  );
  const maxTransactionAttempts = nonNegativeInteger(
    options.maxTransactionAttempts,
    DEFAULT_POSTGRES_TRANSACTION_ATTEMPTS,
    'maxTransactionAttempts',
    1,
  );
  let poolConfig: pg.PoolConfig | undefined;
  if (!options.pool) {
    poolConfig = {
      connectionString: options.connectionString as string,
      max: nonNegativeInteger(options.poolSize, DEFAULT_POSTGRES_POOL_SIZE, 'poolSize', 1),
      connectionTimeoutMillis: connectionTimeoutMs,
      ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
      application_name: 'media-agent',
    };
  }
  return {
    schema,
    statementTimeoutMs,
    idleInTransactionTimeoutMs,
    connectionTimeoutMs,
    maxTransactionAttempts,
    poolConfig,
  };
}

/**
 * The `BEGIN` of every transaction, with the adapter's timeouts as `SET LOCAL` (one round trip: a simple query of
 * several statements), so they hold on a pool the host owns too.
 * @internal
 */
export function beginSql(statementTimeoutMs: number, idleInTransactionTimeoutMs: number): string {
  return [
    'BEGIN ISOLATION LEVEL READ COMMITTED',
    ...(statementTimeoutMs > 0 ? [`SET LOCAL statement_timeout = ${statementTimeoutMs}`] : []),
    ...(idleInTransactionTimeoutMs > 0
      ? [`SET LOCAL idle_in_transaction_session_timeout = ${idleInTransactionTimeoutMs}`]
      : []),
  ].join('; ');
}
