// The SQLite history store: one file per user, `<directory>/users/<user-key>/state.db`.
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { redactText } from '../capabilities/input-summary';
import { type Clock, SystemClock } from '../ports/clock';
import { HistoryInputError, HistoryStoreError } from './errors';
import type {
  HistoryAppend,
  HistoryAppendResult,
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
import { LikeWorkers } from './like-worker';
import { parseSearchInput } from './search-request';
import {
  HISTORY_INDEXES,
  type HistoryIndexName,
  backfillStep,
  cjkEligible,
  cjkGate,
  cjkInsert,
  indexState,
  indexStatus,
  openHistorySchema,
  startIndexBuild,
  syncCjk,
} from './sqlite-history-schema';
import { runSearch } from './search-engine';
import { SqliteSearchBackend } from './sqlite-search-backend';
import { sql } from './statement-cache';
import { historyUserKey } from './user-key';
import { openWal } from '../storage/sqlite/sqlite-open';

/** Default deadline of a LIKE scan, in ms. @public */
export const DEFAULT_HISTORY_DEADLINE_MS = 3000;

/** Default busy timeout of a user's history file, in ms. @public */
export const DEFAULT_HISTORY_BUSY_TIMEOUT_MS = 5000;

/** Options of {@link SqliteHistoryStore}. @public */
export interface SqliteHistoryStoreOptions {
  /** Root folder; each user's file is `<directory>/users/<user-key>/state.db` (folders 0700, files 0600). */
  directory: string;
  /** Time source of appends and retention. @defaultValue `SystemClock` */
  clock?: Clock;
  /**
   * Longest run time of a LIKE scan, in ms; a scan that hits it returns
   * `{success:false, error:"query_timeout", complete:false}`, never "no match".
   * @defaultValue 3000
   */
  deadlineMs?: number;
  /** Days after a session's last activity when maintenance deletes it (tombstoned); 0 turns retention off. @defaultValue 0 */
  retentionDays?: number;
  /**
   * Whether the CJK bigram index is available. `false` detaches it (writes go on, CJK queries fall back to
   * the trigram index or LIKE); turning it on again rebuilds it from scratch through maintenance.
   * @defaultValue true
   */
  cjk?: boolean;
  /**
   * SQLite `synchronous` of the user files: `full` syncs every commit to disk; `normal` (in WAL mode)
   * syncs at checkpoints only, so the last commits before a power loss (not a process crash) may be lost.
   * @defaultValue `full`
   */
  synchronous?: 'full' | 'normal';
  /**
   * How long a write waits for another process's lock on a user's file before it fails
   * `HISTORY_STORE_UNAVAILABLE`, in ms (SQLite's busy timeout; also the limit of the retried switch to WAL
   * when many processes open a new file at once).
   * @defaultValue 5000 ({@link DEFAULT_HISTORY_BUSY_TIMEOUT_MS})
   */
  busyTimeoutMs?: number;
  /** Worker threads for LIKE scans. @defaultValue 1 */
  workers?: number;
  /** User files kept open at once (least recently used ones are closed). @defaultValue 64 */
  maxOpenUsers?: number;
  /**
   * Redaction applied to every stored text (content and tool-call JSON).
   * @defaultValue the SDK's secret redaction (`name=value` secrets, URL passwords, bearer tokens)
   */
  redact?: (text: string) => string;
}

/**
 * The history archive and `session_search` on SQLite (better-sqlite3): one WAL file per user, an
 * external-content FTS5 word index (BM25), a trigram index, a CJK bigram index, and a LIKE fallback
 * on worker threads under a deadline.
 *
 * @remarks
 * Independent of the run storage: its own files, its own schema version (a newer file is refused with
 * `HISTORY_STORE_UNAVAILABLE`). Appends, deletions and index maintenance are short transactions on one
 * connection per user; index searches run on that connection, LIKE scans on the workers.
 *
 * @example
 * ```ts
 * import { SqliteHistoryStore } from '@media-agent/sdk/sqlite';
 *
 * const history = new SqliteHistoryStore({ directory: './data/history', retentionDays: 90 });
 * await history.append('alice', {
 *   session: { id: 'run-1', title: 'Dune' },
 *   messages: [{ uid: 'u1', role: 'user', content: '沙丘2 下载完成' }],
 * });
 * const found = await history.search('alice', { query: '沙丘' });
 * ```
 * @public
 */
export class SqliteHistoryStore implements HistoryStore {
  readonly #dir: string;
  readonly #clock: Clock;
  readonly #deadlineMs: number;
  readonly #retentionDays: number;
  readonly #redact: (text: string) => string;
  readonly #synchronous: 'full' | 'normal';
  readonly #busyTimeoutMs: number;
  readonly #workers: LikeWorkers;
  readonly #open: LRUCache<string, Database.Database>;
  #cjk: boolean;
  #closed = false;

  /**
   * @param options - folder, clock, deadline, retention, CJK index, workers
   * @throws `HISTORY_INPUT_INVALID` (`details.field`) for a `directory` that is not a non-empty string, a
   * `deadlineMs` that is not positive, a negative `retentionDays`, `workers`, `maxOpenUsers` or `busyTimeoutMs`
   * that are not positive integers, an unknown `synchronous`, or a `redact` that is not a function
   */
  constructor(options: SqliteHistoryStoreOptions) {
    if (typeof options?.directory !== 'string' || options.directory === '')
      throw new HistoryInputError('directory', 'must be a folder path');
    checkStoreLimits({
      deadlineMs: options.deadlineMs,
      retentionDays: options.retentionDays,
      redact: options.redact,
      counts: { workers: options.workers, maxOpenUsers: options.maxOpenUsers, busyTimeoutMs: options.busyTimeoutMs },
    });
    if (options.synchronous !== undefined && !['full', 'normal'].includes(options.synchronous))
      throw new HistoryInputError('synchronous', 'must be full or normal');
    this.#dir = options.directory;
    this.#clock = options.clock ?? new SystemClock();
    this.#deadlineMs = options.deadlineMs ?? DEFAULT_HISTORY_DEADLINE_MS;
    this.#retentionDays = options.retentionDays ?? 0;
    this.#redact = options.redact ?? redactText;
    this.#cjk = options.cjk ?? true;
    this.#synchronous = options.synchronous ?? 'full';
    this.#busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_HISTORY_BUSY_TIMEOUT_MS;
    this.#workers = new LikeWorkers(options.workers ?? 1);
    this.#open = new LRUCache({ max: options.maxOpenUsers ?? 64, dispose: (db) => db.close() });
  }

  /** Path of a user's file. */
  pathOf(userId: string): string {
    return join(this.#dir, 'users', historyUserKey(checkUser(userId)), 'state.db');
  }

  /**
   * Turns the CJK bigram index on or off for every user (see {@link SqliteHistoryStoreOptions.cjk}).
   * Open files are aligned now, the others when next opened.
   */
  setCjk(available: boolean): void {
    this.#cjk = available;
    for (const db of this.#open.values()) syncCjk(db, available);
  }

  /** Archives a batch of one session's messages for a user (see `HistoryStore.append`); a tombstoned session takes nothing. */
  async append(userId: string, batch: HistoryAppend): Promise<HistoryAppendResult> {
    const user = checkAppend(userId, batch);
    const db = this.#db(user);
    const now = this.#clock.now();
    const s = batch.session;
    return db
      .transaction((): HistoryAppendResult => {
        if (sql(db, 'SELECT 1 FROM deleted_sessions WHERE id = ?').get(s.id)) return { appended: 0, dropped: true };
        const times = batch.messages.map((m) => m.timestamp ?? now);
        const startedAt = s.startedAt ?? Math.min(now, ...times);
        sql(
          db,
          `INSERT INTO sessions (id, source, title, model, started_at, last_active, parent_session_id, end_reason)
           VALUES (@id, @source, @title, @model, @startedAt, @startedAt, @parent, @endReason)
           ON CONFLICT (id) DO UPDATE SET
             title = coalesce(nullif(excluded.title, ''), sessions.title),
             model = coalesce(nullif(excluded.model, ''), sessions.model),
             parent_session_id = coalesce(excluded.parent_session_id, sessions.parent_session_id),
             end_reason = coalesce(excluded.end_reason, sessions.end_reason)`,
        ).run({
          id: s.id,
          source: s.source ?? 'chat',
          title: s.title ?? null,
          model: s.model ?? null,
          startedAt,
          parent: s.parentSessionId ?? null,
          endReason: s.endReason ?? null,
        });
        const source = (sql(db, 'SELECT source FROM sessions WHERE id = ?').get(s.id) as { source: string }).source;
        const insert = sql(
          db,
          `INSERT INTO messages (session_id, message_uid, role, content, tool_call_id, tool_name, tool_calls, tool_status, timestamp)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, message_uid) DO NOTHING`,
        );
        const gate = cjkGate(db);
        let appended = 0;
        batch.messages.forEach((m, i) => {
          const content = this.#redact(m.content);
          const toolCalls = m.toolCalls === undefined ? null : this.#redact(m.toolCalls);
          const r = insert.run(
            s.id,
            m.uid,
            m.role,
            content,
            m.toolCallId ?? null,
            m.toolName ?? null,
            toolCalls,
            m.toolStatus ?? null,
            times[i],
          );
          if (r.changes === 0) return;
          appended++;
          const id = Number(r.lastInsertRowid);
          if (cjkEligible(m.role, source) && gate(id)) cjkInsert(db, id, content, m.toolName ?? null);
        });
        return { appended, dropped: false };
      })
      .immediate();
  }

  /** Marks messages of a session compacted (they stay searchable, labelled); returns how many changed. */
  async markCompacted(userId: string, sessionId: string, uids: readonly string[]): Promise<number> {
    return this.#mark(userId, sessionId, uids, 'active = 0, compacted = 1');
  }

  /** Marks messages of a session rewound (no longer part of it); returns how many changed. */
  async markRewound(userId: string, sessionId: string, uids: readonly string[]): Promise<number> {
    return this.#mark(userId, sessionId, uids, 'active = 0, compacted = 0');
  }

  /** Deletes a session and leaves a tombstone, so a late write or backfill cannot bring it back; true when it existed. */
  async deleteSession(userId: string, sessionId: string): Promise<boolean> {
    const user = checkUser(userId);
    checkSessionId(sessionId, 'sessionId');
    const db = this.#db(user);
    return db.transaction(() => deleteSessions(db, [sessionId]) > 0).immediate();
  }

  /** Runs one `session_search` call for a user (the tool's input, validated here); see `HistoryStore.search`. */
  async search(userId: string, input: unknown, scope: SessionSearchScope = {}): Promise<SessionSearchResult> {
    const user = checkUser(userId);
    const { currentSessionId } = checkScope(scope);
    const request = parseSearchInput(input, this.#clock.now());
    const db = this.#db(user);
    return runSearch(
      new SqliteSearchBackend(db, this.pathOf(user), this.#workers, this.#deadlineMs),
      request,
      currentSessionId,
    );
  }

  /** Index backfill in bounded batches and retention for one user; see `HistoryStore.maintain`. */
  async maintain(userId: string, options?: HistoryMaintenanceOptions): Promise<HistoryMaintenance> {
    const user = checkUser(userId);
    const { batchSize, maxSteps } = checkMaintenance(options);
    const db = this.#db(user);
    let steps = maxSteps;
    let pending = false;
    for (const index of HISTORY_INDEXES) {
      pending = false;
      if (indexState(db, index).high < 0) continue;
      while (steps > 0) {
        steps--;
        pending = backfillStep(db, index, batchSize);
        if (!pending) break;
      }
      if (pending) break;
    }
    let expired = 0;
    if (this.#retentionDays > 0) {
      const cutoff = this.#clock.now() - this.#retentionDays * 86_400_000;
      for (;;) {
        const ids = (
          db
            .prepare('SELECT id FROM sessions WHERE last_active < ? ORDER BY last_active LIMIT ?')
            .all(cutoff, batchSize) as {
            id: string;
          }[]
        ).map((r) => r.id);
        if (ids.length === 0) break;
        expired += db.transaction(() => deleteSessions(db, ids)).immediate();
      }
    }
    const building = HISTORY_INDEXES.some((i) => indexState(db, i).high >= 0);
    return { pending: building, index_status: indexStatus(db), expired_sessions: expired };
  }

  /**
   * Starts rebuilding one index of a user's file from scratch (e.g. after it was found corrupt):
   * until {@link SqliteHistoryStore.maintain} has backfilled it, searches route around it and
   * `index_status` reports it as not ready; rows written meanwhile are indexed as they arrive.
   * @param index - `messages_fts`, `messages_fts_trigram` or `messages_fts_cjk`
   */
  rebuildIndex(userId: string, index: HistoryIndexName): void {
    const user = checkUser(userId);
    if (!HISTORY_INDEXES.includes(index)) throw new HistoryInputError('index', `unknown index ${String(index)}`);
    startIndexBuild(this.#db(user), index);
  }

  /**
   * Runs FTS5 `integrity-check` on every built index of a user's file.
   * @returns true when every index is consistent with the stored messages
   */
  integrityCheck(userId: string): boolean {
    const db = this.#db(checkUser(userId));
    const status = indexStatus(db);
    try {
      for (const index of HISTORY_INDEXES)
        if (status[index]) sql(db, `INSERT INTO ${index} (${index}) VALUES ('integrity-check')`).run();
      return true;
    } catch {
      return false;
    }
  }

  /** Closes every open file or connection; later calls fail `HISTORY_STORE_UNAVAILABLE`. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#open.clear();
    await this.#workers.close();
  }

  #mark(userId: string, sessionId: string, uids: readonly string[], set: string): number {
    const user = checkUser(userId);
    checkSessionId(sessionId, 'sessionId');
    if (checkUids(uids).length === 0) return 0;
    const db = this.#db(user);
    const stmt = sql(db, `UPDATE messages SET ${set} WHERE session_id = ? AND message_uid = ?`);
    return db.transaction(() => uids.reduce((n, uid) => n + stmt.run(sessionId, uid).changes, 0)).immediate();
  }

  #db(userId: string): Database.Database {
    if (this.#closed) throw new HistoryStoreError('closed');
    const key = historyUserKey(userId);
    const open = this.#open.get(key);
    if (open) return open;
    const dir = join(this.#dir, 'users', key);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const path = join(dir, 'state.db');
      const db = new Database(path, { timeout: this.#busyTimeoutMs });
      try {
        chmodSync(path, 0o600);
        // The busy timeout first, then WAL (retried while another process opening the file holds its lock),
        // then the schema under the write lock: concurrent first opens by many processes never fail.
        openWal(db, this.#busyTimeoutMs);
        db.pragma(`synchronous = ${this.#synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
        db.pragma('foreign_keys = ON');
        db.pragma('journal_size_limit = 67108864');
        openHistorySchema(db, this.#cjk);
      } catch (error) {
        db.close();
        throw error;
      }
      this.#open.set(key, db);
      return db;
    } catch (error) {
      if (error instanceof HistoryStoreError) throw error;
      throw new HistoryStoreError(error instanceof Error ? error.message : String(error), { cause: error });
    }
  }
}

/** Tombstones and deletes sessions (messages first: their triggers update the indexes). */
function deleteSessions(db: Database.Database, ids: readonly string[]): number {
  const cjk = cjkGate(db);
  const rows = sql(db, 'SELECT id FROM messages WHERE session_id = ?');
  let deleted = 0;
  for (const id of ids) {
    sql(db, 'INSERT OR IGNORE INTO deleted_sessions (id) VALUES (?)').run(id);
    for (const r of rows.all(id) as { id: number }[])
      if (cjk(r.id)) sql(db, 'DELETE FROM messages_fts_cjk WHERE rowid = ?').run(r.id);
    sql(db, 'DELETE FROM messages WHERE session_id = ?').run(id);
    deleted += sql(db, 'DELETE FROM sessions WHERE id = ?').run(id).changes;
  }
  return deleted;
}
