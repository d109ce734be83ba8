// The PostgreSQL history store: one schema shared by every user (a `user_key` on every row and
// every query), `tsvector` columns with GIN indexes ranked by `ts_rank_cd`, pg_trgm for substrings
// when the server has it, and `statement_timeout` as the search deadline.
import pg from 'pg';
import { redactText } from '../capabilities/input-summary';
import { type Clock, SystemClock } from '../ports/clock';
import { bigramText } from './cjk';
import { HistoryInputError, HistoryStoreError } from './errors';
import type {
  HistoryAppend,
  HistoryAppendResult,
  HistoryIndexStatus,
  HistoryMaintenance,
  HistoryMaintenanceOptions,
  HistoryStore,
  SessionSearchResult,
  SessionSearchScope,
} from './history-store';
import {
  checkAppend,
  checkMaintenance,
  checkScope,
  checkSessionId,
  checkStoreLimits,
  checkUids,
  checkUser,
} from './append-checks';
import { postgresSearchBackend } from './postgres-search-backend';
import { runSearch } from './search-engine';
import { SearchFailure } from './search-backend';
import { parseSearchInput } from './search-request';
import { historyUserKey } from './user-key';

/** Schema version of the PostgreSQL history tables. */
const PG_HISTORY_VERSION = 1;
/** Longest text a `tsvector` is built from, in characters (the stored text stays whole). */
const TSVECTOR_CHARS = 200_000;

/** SQLSTATEs of a CREATE that lost a race with a concurrent creator of the same object. */
const CREATED_CONCURRENTLY: ReadonlySet<string> = new Set([
  '23505', // unique_violation on a catalog index (pg_namespace, pg_type, pg_class, pg_extension)
  '42P06', // duplicate_schema
  '42P07', // duplicate_table
  '42710', // duplicate_object
]);

/** True when a CREATE failed because another session created the same object at the same time. */
function createdConcurrently(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CREATED_CONCURRENTLY.has(code);
}

/**
 * Runs a `CREATE … IF NOT EXISTS` statement (autocommit) that other sessions may run at the same instant:
 * PostgreSQL's IF NOT EXISTS checks before the concurrent creator commits, so the loser fails on the
 * catalog's unique index instead of skipping. It is run once more then: the winner committed, the object
 * exists and the statement skips it.
 */
async function createIfAbsent(client: pg.PoolClient, statement: string): Promise<void> {
  try {
    await client.query(statement);
  } catch (error) {
    if (!createdConcurrently(error)) throw error;
    await client.query(statement);
  }
}

/** Key of the database-wide advisory lock around `CREATE EXTENSION pg_trgm` (extensions are not per schema). */
const TRIGRAM_EXTENSION_LOCK = 'media_agent:extension:pg_trgm';

/**
 * Creates `pg_trgm` if the database lacks it. Extensions belong to the database, not to a schema, so
 * history stores of different schemas (or hosts) would race on it: the creation runs in its own transaction
 * under a database-wide advisory lock, and a creation lost to a session outside that lock counts as done.
 * @throws the server's error when the extension is not installed on the server or the role may not create it
 */
async function createTrigramExtension(client: pg.PoolClient): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [TRIGRAM_EXTENSION_LOCK]);
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    if (!createdConcurrently(error)) throw error;
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  }
}

/** Whether the schema's trigram index exists (then every object of the current version does). */
async function hasTrigramIndex(client: pg.PoolClient, schema: string): Promise<boolean> {
  const found = await client.query('SELECT 1 FROM pg_indexes WHERE schemaname = $1 AND indexname = $2', [
    schema,
    'history_messages_trgm',
  ]);
  return (found.rowCount ?? 0) > 0;
}

/**
 * PostgreSQL `text` cannot hold U+0000 (the server refuses the whole statement), so a NUL in archived text
 * is stored as U+FFFD: a tool result with a stray NUL byte is archived instead of failing the batch.
 */
const withoutNul = (text: string): string => (text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text);

/** Options of {@link PostgresHistoryStore}. @public */
export interface PostgresHistoryStoreOptions {
  /** Connection string (a pool of `poolSize` is made), or give `pool`. */
  connectionString?: string;
  /** A pool of the host's own (not ended by `close()`). */
  pool?: pg.Pool;
  /** Schema of the history tables (lowercase letters, digits, `_`). @defaultValue `media_agent_history` */
  schema?: string;
  /** Connections of the pool made from `connectionString`. @defaultValue 4 */
  poolSize?: number;
  /**
   * Longest wait for a connection of the pool made from `connectionString`, in ms; then the call fails
   * `HISTORY_STORE_UNAVAILABLE` (a capture becomes a `HISTORY_CAPTURE_FAILED` warning, the run goes on).
   * @defaultValue 5000
   */
  connectionTimeoutMs?: number;
  /**
   * Longest wait for the server's answer to one statement of the pool made from `connectionString`, in ms
   * (client side: a server that stopped answering, not only a slow query); then the call fails
   * `HISTORY_STORE_UNAVAILABLE`. A search's own deadline is `deadlineMs`.
   * @defaultValue 30000
   */
  queryTimeoutMs?: number;
  /** Time source of appends and retention. @defaultValue `SystemClock` */
  clock?: Clock;
  /**
   * Longest run time of a search, in ms (`SET LOCAL statement_timeout`); a search that hits it returns
   * `{success:false, error:"query_timeout", complete:false}`, never "no match".
   * @defaultValue 3000
   */
  deadlineMs?: number;
  /** Days after a session's last activity when maintenance deletes it (tombstoned); 0 turns retention off. @defaultValue 0 */
  retentionDays?: number;
  /** Redaction applied to every stored text. @defaultValue the SDK's secret redaction */
  redact?: (text: string) => string;
}

/**
 * The history archive and `session_search` on PostgreSQL: the same store contract as `SqliteHistoryStore`,
 * in one schema shared by all users and host processes.
 *
 * @remarks
 * Word search uses a `tsvector` (the `simple` configuration) with a GIN index, ranked by `ts_rank_cd`
 * (cover density): **not BM25**, so the order of results can differ from SQLite's, and results say
 * `ranking: "ts_rank_cd"`. Chinese and Japanese substrings use a second `tsvector` of the same bigram
 * token stream as SQLite's CJK index. Substrings of three or more characters use `pg_trgm` when the server
 * has it (the `trigram` route; `index_status.messages_fts_trigram` says whether it does); LIKE scans (tool
 * text, short terms) run under the same `statement_timeout` as every search statement. Every table has a
 * `user_key` column and every query names it.
 *
 * @example
 * ```ts
 * import { PostgresHistoryStore } from '@media-agent/sdk/postgres';
 *
 * const history = new PostgresHistoryStore({ connectionString: process.env.DATABASE_URL });
 * await history.migrate();
 * const host = createAgentHost({ model, history: { store: history } });
 * ```
 * @public
 */
export class PostgresHistoryStore implements HistoryStore {
  readonly #pool: pg.Pool;
  readonly #ownPool: boolean;
  readonly #schema: string;
  readonly #clock: Clock;
  readonly #deadlineMs: number;
  readonly #retentionDays: number;
  readonly #redact: (text: string) => string;
  #ready: Promise<HistoryIndexStatus> | undefined;
  #closed = false;

  /**
   * @param options - connection, schema, deadline, retention
   * @throws `HISTORY_INPUT_INVALID` (`details.field`) without `connectionString` or `pool`, for an invalid schema
   * name, a `deadlineMs` that is not positive, a negative `retentionDays`, a `poolSize` that is not a positive
   * integer (so are `connectionTimeoutMs` and `queryTimeoutMs`), or a `redact` that is not a function
   */
  constructor(options: PostgresHistoryStoreOptions) {
    checkStoreLimits({
      deadlineMs: options?.deadlineMs,
      retentionDays: options?.retentionDays,
      redact: options?.redact,
      counts: {
        poolSize: options?.poolSize,
        connectionTimeoutMs: options?.connectionTimeoutMs,
        queryTimeoutMs: options?.queryTimeoutMs,
      },
    });
    const schema = options.schema ?? 'media_agent_history';
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
      throw new HistoryInputError('schema', 'lowercase letters, digits and _');
    if (!options.pool && !options.connectionString)
      throw new HistoryInputError('connectionString', 'give connectionString or pool');
    if (!options.pool && typeof options.connectionString !== 'string')
      throw new HistoryInputError('connectionString', 'must be a string');
    this.#pool =
      options.pool ??
      new pg.Pool({
        connectionString: options.connectionString,
        max: options.poolSize ?? 4,
        // Bounded: a server that accepts and never answers must not hold a run's step (capture) for ever.
        connectionTimeoutMillis: options.connectionTimeoutMs ?? 5000,
        query_timeout: options.queryTimeoutMs ?? 30_000,
      });
    this.#ownPool = !options.pool;
    this.#schema = schema;
    this.#clock = options.clock ?? new SystemClock();
    this.#deadlineMs = options.deadlineMs ?? 3000;
    this.#retentionDays = options.retentionDays ?? 0;
    this.#redact = options.redact ?? redactText;
  }

  /**
   * Creates the schema and tables (idempotent, under an advisory lock), and the trigram index when the
   * server has `pg_trgm`. Every other call runs it first.
   * @throws `HISTORY_STORE_UNAVAILABLE` when the schema has a newer version than this SDK knows or the server fails
   */
  migrate(): Promise<HistoryIndexStatus> {
    if (this.#closed) return Promise.reject(new HistoryStoreError('closed'));
    this.#ready ??= this.#migrate().catch((error: unknown) => {
      this.#ready = undefined;
      throw error instanceof HistoryStoreError
        ? error
        : new HistoryStoreError(error instanceof Error ? error.message : String(error), { cause: error });
    });
    return this.#ready;
  }

  async #migrate(): Promise<HistoryIndexStatus> {
    const s = this.#schema;
    const client = await this.#pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [`${s}:history`]);
      try {
        // The schema may be shared with the run storage, whose migrations take another lock: a concurrent
        // creator makes this statement fail on the catalog's unique index; once it committed, it exists.
        await createIfAbsent(client, `CREATE SCHEMA IF NOT EXISTS ${s}`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${s}.history_meta (key text PRIMARY KEY, value text NOT NULL)`);
        const version = await client.query(`SELECT value FROM ${s}.history_meta WHERE key = 'version'`);
        const found = Number(version.rows[0]?.value ?? 0);
        if (found > PG_HISTORY_VERSION)
          throw new HistoryStoreError(`schema version ${found} is newer than this SDK's ${PG_HISTORY_VERSION}`);
        // Read under the lock: a process that waited for another's creation finds it complete and creates nothing.
        if (found === PG_HISTORY_VERSION && (await hasTrigramIndex(client, s)))
          return { messages_fts: true, messages_fts_trigram: true, messages_fts_cjk: true };
        await client.query(`
          CREATE TABLE IF NOT EXISTS ${s}.history_sessions (
            user_key text NOT NULL, id text NOT NULL, source text NOT NULL, title text, model text,
            started_at bigint NOT NULL, last_active bigint NOT NULL, parent_session_id text, end_reason text,
            message_count integer NOT NULL DEFAULT 0, PRIMARY KEY (user_key, id));
          CREATE INDEX IF NOT EXISTS history_sessions_last_active ON ${s}.history_sessions (user_key, last_active DESC);
          CREATE INDEX IF NOT EXISTS history_sessions_title ON ${s}.history_sessions (user_key, lower(title), started_at DESC);
          CREATE TABLE IF NOT EXISTS ${s}.history_deleted_sessions (user_key text NOT NULL, id text NOT NULL, PRIMARY KEY (user_key, id));
          CREATE TABLE IF NOT EXISTS ${s}.history_messages (
            id bigserial PRIMARY KEY, user_key text NOT NULL, session_id text NOT NULL, message_uid text NOT NULL,
            role text NOT NULL CHECK (role IN ('user', 'assistant', 'tool')), content text NOT NULL,
            tool_call_id text, tool_name text, tool_calls text, tool_status text, timestamp bigint NOT NULL,
            provenance text NOT NULL DEFAULT 'observed', active smallint NOT NULL DEFAULT 1, compacted smallint NOT NULL DEFAULT 0,
            searchable boolean NOT NULL, words tsvector NOT NULL, cjk tsvector,
            UNIQUE (user_key, session_id, message_uid),
            FOREIGN KEY (user_key, session_id) REFERENCES ${s}.history_sessions (user_key, id) ON DELETE CASCADE);
          CREATE INDEX IF NOT EXISTS history_messages_session ON ${s}.history_messages (user_key, session_id, id);
          CREATE INDEX IF NOT EXISTS history_messages_words ON ${s}.history_messages USING gin (words);
          CREATE INDEX IF NOT EXISTS history_messages_cjk ON ${s}.history_messages USING gin (cjk);
        `);
        // Outside a transaction (each statement commits on its own): a server without pg_trgm, or a role that may
        // not create it, fails only these two statements and leaves the connection usable.
        let trigram = false;
        try {
          await createTrigramExtension(client);
          await client.query(
            `CREATE INDEX IF NOT EXISTS history_messages_trgm ON ${s}.history_messages USING gin (content gin_trgm_ops) WHERE searchable`,
          );
          trigram = true;
        } catch {
          // No pg_trgm on this server: substring queries use the bigram column or a bounded LIKE scan.
        }
        await client.query(
          `INSERT INTO ${s}.history_meta (key, value) VALUES ('version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          [String(PG_HISTORY_VERSION)],
        );
        return { messages_fts: true, messages_fts_trigram: trigram, messages_fts_cjk: true };
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`${s}:history`]);
      }
    } finally {
      client.release();
    }
  }

  /** Archives a batch of one session's messages for a user (see `HistoryStore.append`); a tombstoned session takes nothing. */
  async append(userId: string, batch: HistoryAppend): Promise<HistoryAppendResult> {
    const key = historyUserKey(checkAppend(userId, batch));
    await this.migrate();
    const s = this.#schema;
    const now = this.#clock.now();
    const session = batch.session;
    const text = (value: string | null | undefined) => (value == null ? null : withoutNul(value));
    return this.#tx(async (c) => {
      const dead = await c.query(`SELECT 1 FROM ${s}.history_deleted_sessions WHERE user_key = $1 AND id = $2`, [
        key,
        session.id,
      ]);
      if (dead.rowCount) return { appended: 0, dropped: true };
      const times = batch.messages.map((m) => m.timestamp ?? now);
      const startedAt = session.startedAt ?? Math.min(now, ...times);
      const upsert = await c.query(
        `INSERT INTO ${s}.history_sessions (user_key, id, source, title, model, started_at, last_active, parent_session_id, end_reason)
         VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8)
         ON CONFLICT (user_key, id) DO UPDATE SET
           title = coalesce(nullif(excluded.title, ''), ${s}.history_sessions.title),
           model = coalesce(nullif(excluded.model, ''), ${s}.history_sessions.model),
           parent_session_id = coalesce(excluded.parent_session_id, ${s}.history_sessions.parent_session_id),
           end_reason = coalesce(excluded.end_reason, ${s}.history_sessions.end_reason)
         RETURNING source`,
        [
          key,
          session.id,
          text(session.source) ?? 'chat',
          text(session.title),
          text(session.model),
          startedAt,
          text(session.parentSessionId),
          text(session.endReason),
        ],
      );
      const source = upsert.rows[0].source as string;
      let appended = 0;
      for (const [i, m] of batch.messages.entries()) {
        const content = withoutNul(this.#redact(m.content));
        const toolCalls = m.toolCalls === undefined ? null : withoutNul(this.#redact(m.toolCalls));
        const toolName = text(m.toolName);
        const searchable = m.role !== 'tool' && source !== 'cron' && source !== 'subagent';
        const words = [
          (m.role === 'tool' ? content.slice(0, 8192) : content).slice(0, TSVECTOR_CHARS),
          toolName ?? '',
          (toolCalls ?? '').slice(0, TSVECTOR_CHARS),
        ].join(' ');
        const r = await c.query(
          `INSERT INTO ${s}.history_messages (user_key, session_id, message_uid, role, content, tool_call_id, tool_name,
             tool_calls, tool_status, timestamp, searchable, words, cjk)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, to_tsvector('simple', $12), to_tsvector('simple', $13))
           ON CONFLICT (user_key, session_id, message_uid) DO NOTHING`,
          [
            key,
            session.id,
            m.uid,
            m.role,
            content,
            text(m.toolCallId),
            toolName,
            toolCalls,
            text(m.toolStatus),
            times[i],
            searchable,
            words,
            searchable ? bigramText(`${content.slice(0, TSVECTOR_CHARS)} ${toolName ?? ''}`) : '',
          ],
        );
        appended += r.rowCount ?? 0;
      }
      if (appended > 0)
        await c.query(
          `UPDATE ${s}.history_sessions SET message_count = message_count + $3, last_active = greatest(last_active, $4)
           WHERE user_key = $1 AND id = $2`,
          [key, session.id, appended, Math.max(...times)],
        );
      return { appended, dropped: false };
    });
  }

  /** Marks messages of a session compacted (they stay searchable, labelled); returns how many changed. */
  markCompacted(userId: string, sessionId: string, uids: readonly string[]): Promise<number> {
    return this.#mark(userId, sessionId, uids, 'active = 0, compacted = 1');
  }

  /** Marks messages of a session rewound (no longer part of it); returns how many changed. */
  markRewound(userId: string, sessionId: string, uids: readonly string[]): Promise<number> {
    return this.#mark(userId, sessionId, uids, 'active = 0, compacted = 0');
  }

  /** Deletes a session and leaves a tombstone, so a late write or backfill cannot bring it back; true when it existed. */
  async deleteSession(userId: string, sessionId: string): Promise<boolean> {
    const key = historyUserKey(checkUser(userId));
    checkSessionId(sessionId, 'sessionId');
    await this.migrate();
    return this.#tx(async (c) => (await this.#delete(c, key, [sessionId])) > 0);
  }

  /** Runs one `session_search` call for a user (the tool's input, validated here); see `HistoryStore.search`. */
  async search(userId: string, input: unknown, scope: SessionSearchScope = {}): Promise<SessionSearchResult> {
    const key = historyUserKey(checkUser(userId));
    const { currentSessionId } = checkScope(scope);
    const request = parseSearchInput(input, this.#clock.now());
    const status = await this.migrate();
    let client: pg.PoolClient;
    try {
      client = await this.#connect();
    } catch {
      return {
        success: false,
        error: 'storage_unavailable',
        complete: false,
        hint: 'the history could not be read; an unavailable search does not mean the history is absent',
        index_status: { ...status },
      };
    }
    try {
      await client.query('BEGIN READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.ceil(this.#deadlineMs))}`);
      await client.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.ceil(this.#deadlineMs))}`);
      const backend = postgresSearchBackend(client, this.#schema, key, status);
      const result = await runSearch(backend, request, currentSessionId);
      await client.query(result.success === false ? 'ROLLBACK' : 'COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      if (error instanceof SearchFailure) return { success: false, error: error.error, complete: false };
      return {
        success: false,
        error: 'storage_unavailable',
        complete: false,
        hint: 'the history could not be read; an unavailable search does not mean the history is absent',
        index_status: { ...status },
      };
    } finally {
      client.release();
    }
  }

  /** Index backfill in bounded batches and retention for one user; see `HistoryStore.maintain`. */
  async maintain(userId: string, options?: HistoryMaintenanceOptions): Promise<HistoryMaintenance> {
    const key = historyUserKey(checkUser(userId));
    const { batchSize } = checkMaintenance(options);
    const status = await this.migrate();
    let expired = 0;
    if (this.#retentionDays > 0) {
      const cutoff = this.#clock.now() - this.#retentionDays * 86_400_000;
      for (;;) {
        const n = await this.#tx(async (c) => {
          const ids = await c.query(
            `SELECT id FROM ${this.#schema}.history_sessions WHERE user_key = $1 AND last_active < $2 ORDER BY last_active LIMIT $3`,
            [key, cutoff, batchSize],
          );
          return this.#delete(
            c,
            key,
            ids.rows.map((r) => r.id as string),
          );
        });
        if (n === 0) break;
        expired += n;
      }
    }
    // GIN indexes follow every write: there is never a backfill to run.
    return { pending: false, index_status: status, expired_sessions: expired };
  }

  /**
   * Ends the store's own pool (a `pool` of the host's stays open); later calls fail `HISTORY_STORE_UNAVAILABLE`
   * either way, and a second `close()` does nothing.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownPool) await this.#pool.end();
  }

  /** A pooled connection; a server that cannot be reached (or answers too late) is `HISTORY_STORE_UNAVAILABLE`. */
  async #connect(): Promise<pg.PoolClient> {
    try {
      return await this.#pool.connect();
    } catch (error) {
      throw new HistoryStoreError(error instanceof Error ? error.message : String(error), { cause: error });
    }
  }

  async #delete(c: pg.PoolClient, key: string, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const s = this.#schema;
    await c.query(
      `INSERT INTO ${s}.history_deleted_sessions (user_key, id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`,
      [key, ids],
    );
    await c.query(`DELETE FROM ${s}.history_messages WHERE user_key = $1 AND session_id = ANY($2)`, [key, ids]);
    const r = await c.query(`DELETE FROM ${s}.history_sessions WHERE user_key = $1 AND id = ANY($2)`, [key, ids]);
    return r.rowCount ?? 0;
  }

  async #mark(userId: string, sessionId: string, uids: readonly string[], set: string): Promise<number> {
    const key = historyUserKey(checkUser(userId));
    checkSessionId(sessionId, 'sessionId');
    if (checkUids(uids).length === 0) return 0;
    await this.migrate();
    const r = await this.#pool
      .query(
        `UPDATE ${this.#schema}.history_messages SET ${set} WHERE user_key = $1 AND session_id = $2 AND message_uid = ANY($3)`,
        [key, sessionId, [...uids]],
      )
      .catch((error: unknown) => {
        throw new HistoryStoreError(error instanceof Error ? error.message : String(error), { cause: error });
      });
    return r.rowCount ?? 0;
  }

  async #tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.#connect();
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (error) {
      await c.query('ROLLBACK').catch(() => undefined);
      if (error instanceof HistoryInputError) throw error;
      throw new HistoryStoreError(error instanceof Error ? error.message : String(error), { cause: error });
    } finally {
      c.release();
    }
  }
}
