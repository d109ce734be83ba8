// Schema of a per-user history file: sessions, messages, tombstones and three FTS5 indexes kept
// consistent under an incremental backfill (a row is indexed iff `id <= progress OR id > high`).
import type { Database } from 'better-sqlite3';
import { bigramText } from './cjk';
import { forgetStatements, sql } from './statement-cache';
import { HistoryStoreError } from './errors';
import type { HistoryIndexStatus } from './history-store';

/** Schema version kept in `PRAGMA user_version`. */
export const HISTORY_SCHEMA_VERSION = 1;

/** The three search indexes of a history store. @public */
export type HistoryIndexName = keyof HistoryIndexStatus;

/** Names of the indexes, in routing order. */
export const HISTORY_INDEXES: readonly HistoryIndexName[] = [
  'messages_fts',
  'messages_fts_trigram',
  'messages_fts_cjk',
];

/** Sources never shown by any call shape. */
export const HIDDEN_SOURCES = ['kanban', 'subagent', 'tool'] as const;

const BASE = `
CREATE TABLE IF NOT EXISTS state_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY, source TEXT NOT NULL, title TEXT, model TEXT,
  started_at INTEGER NOT NULL, last_active INTEGER NOT NULL,
  parent_session_id TEXT, end_reason TEXT, message_count INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS sessions_last_active ON sessions (last_active DESC);
CREATE INDEX IF NOT EXISTS sessions_title ON sessions (title COLLATE NOCASE, started_at DESC);
CREATE TABLE IF NOT EXISTS deleted_sessions (id TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  message_uid TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
  content TEXT NOT NULL,
  tool_call_id TEXT, tool_name TEXT, tool_calls TEXT, tool_status TEXT,
  timestamp INTEGER NOT NULL,
  provenance TEXT NOT NULL DEFAULT 'observed' CHECK (provenance IN ('observed', 'legacy_snapshot')),
  active INTEGER NOT NULL DEFAULT 1,
  compacted INTEGER NOT NULL DEFAULT 0,
  UNIQUE (session_id, message_uid));
CREATE INDEX IF NOT EXISTS messages_session ON messages (session_id, id);
CREATE TRIGGER IF NOT EXISTS messages_count_ai AFTER INSERT ON messages BEGIN
  UPDATE sessions SET message_count = message_count + 1, last_active = max(last_active, new.timestamp)
  WHERE id = new.session_id;
END;
CREATE TRIGGER IF NOT EXISTS messages_count_ad AFTER DELETE ON messages BEGIN
  UPDATE sessions SET message_count = message_count - 1 WHERE id = old.session_id;
END;
`;

/** How one trigger-maintained index projects a message row (`r` is `new`, `old` or the view's alias). */
interface TriggerIndex {
  tokenize: string;
  columns: string[];
  projection: (r: string) => string[];
  condition: (r: string) => string;
}

const TRIGGER_INDEXES: Record<'messages_fts' | 'messages_fts_trigram', TriggerIndex> = {
  messages_fts: {
    tokenize: 'unicode61',
    columns: ['content', 'tool_name', 'tool_calls'],
    // Tool rows contribute their first 8192 characters only (the stored text stays whole).
    projection: (r) => [
      `CASE WHEN ${r}.role = 'tool' THEN substr(${r}.content, 1, 8192) ELSE ${r}.content END`,
      `${r}.tool_name`,
      `${r}.tool_calls`,
    ],
    condition: () => '1',
  },
  messages_fts_trigram: {
    tokenize: 'trigram',
    columns: ['content', 'tool_name'],
    projection: (r) => [`${r}.content`, `${r}.tool_name`],
    condition: (r) =>
      `${r}.role <> 'tool' AND (SELECT source FROM sessions WHERE id = ${r}.session_id) NOT IN ('cron', 'subagent')`,
  },
};

/** The backfill predicate in SQL: the row is (or will be) in the index. */
function inIndexSql(index: string, r: string): string {
  const marker = (k: string) =>
    `coalesce((SELECT CAST(value AS INTEGER) FROM state_meta WHERE key = '${index}:${k}'), -1)`;
  return `(${r}.id > ${marker('high')} OR ${r}.id <= ${marker('progress')})`;
}

function dropIndexObjects(db: Database, index: HistoryIndexName): void {
  forgetStatements(db);
  for (const t of ['ai', 'bd', 'bu', 'au']) db.exec(`DROP TRIGGER IF EXISTS ${index}_${t}`);
  db.exec(`DROP TABLE IF EXISTS ${index}`);
  db.exec(`DROP VIEW IF EXISTS ${index}_src`);
}

function createIndexObjects(db: Database, index: HistoryIndexName): void {
  if (index === 'messages_fts_cjk') {
    db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${index} USING fts5(content, tool_name, tokenize = 'unicode61', content = '', contentless_delete = 1)`,
    );
    return;
  }
  const def = TRIGGER_INDEXES[index];
  const cols = def.columns.join(', ');
  const proj = (r: string) => def.projection(r).join(', ');
  db.exec(
    `CREATE VIEW IF NOT EXISTS ${index}_src AS SELECT m.id AS id, ${def
      .projection('m')
      .map((p, i) => `${p} AS ${def.columns[i]}`)
      .join(', ')} FROM messages m WHERE ${def.condition('m')}`,
  );
  db.exec(
    `CREATE VIRTUAL TABLE IF NOT EXISTS ${index} USING fts5(${cols}, tokenize = '${def.tokenize}', content = '${index}_src', content_rowid = 'id')`,
  );
  const when = (r: string) => `${def.condition(r)} AND ${inIndexSql(index, r)}`;
  db.exec(`CREATE TRIGGER IF NOT EXISTS ${index}_ai AFTER INSERT ON messages WHEN ${when('new')} BEGIN
    INSERT INTO ${index} (rowid, ${cols}) VALUES (new.id, ${proj('new')}); END`);
  db.exec(`CREATE TRIGGER IF NOT EXISTS ${index}_bd BEFORE DELETE ON messages WHEN ${when('old')} BEGIN
    INSERT INTO ${index} (${index}, rowid, ${cols}) VALUES ('delete', old.id, ${proj('old')}); END`);
  db.exec(`CREATE TRIGGER IF NOT EXISTS ${index}_bu BEFORE UPDATE OF content, tool_name, tool_calls, role ON messages WHEN ${when('old')} BEGIN
    INSERT INTO ${index} (${index}, rowid, ${cols}) VALUES ('delete', old.id, ${proj('old')}); END`);
  db.exec(`CREATE TRIGGER IF NOT EXISTS ${index}_au AFTER UPDATE OF content, tool_name, tool_calls, role ON messages WHEN ${when('new')} BEGIN
    INSERT INTO ${index} (rowid, ${cols}) VALUES (new.id, ${proj('new')}); END`);
}

function meta(db: Database, key: string): string | undefined {
  return (sql(db, 'SELECT value FROM state_meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
}

function setMeta(db: Database, key: string, value: string | number): void {
  db.prepare(
    'INSERT INTO state_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  ).run(key, String(value));
}

function clearMarkers(db: Database, index: HistoryIndexName): void {
  db.prepare('DELETE FROM state_meta WHERE key IN (?, ?, ?)').run(index, `${index}:high`, `${index}:progress`);
}

function tableExists(db: Database, name: string): boolean {
  return sql(db, 'SELECT 1 FROM sqlite_master WHERE name = ?').get(name) !== undefined;
}

function schemaVersion(db: Database): number {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > HISTORY_SCHEMA_VERSION)
    throw new HistoryStoreError(`schema version ${version} is newer than this SDK's ${HISTORY_SCHEMA_VERSION}`);
  return version;
}

/**
 * Opens (creates or checks) the schema on a fresh connection. A new file gets every index ready; a
 * file with a newer schema version is refused, never downgraded.
 *
 * @remarks
 * Safe when many processes open the same new file at once: the version is read again inside the
 * `BEGIN IMMEDIATE` transaction that creates the schema (the write lock makes one process the creator;
 * the others wait for it, then find the version set and create nothing), and every object is created
 * `IF NOT EXISTS`. The connection's busy timeout and WAL mode are set before (see `openWal`).
 * @throws `HISTORY_STORE_UNAVAILABLE` for a newer schema version
 */
export function openHistorySchema(db: Database, cjk: boolean): void {
  if (schemaVersion(db) === 0) {
    db.transaction(() => {
      if (schemaVersion(db) !== 0) return; // another process created it while this one waited for the lock
      db.exec(BASE);
      createIndexObjects(db, 'messages_fts');
      createIndexObjects(db, 'messages_fts_trigram');
      if (cjk) createIndexObjects(db, 'messages_fts_cjk');
      else setMeta(db, 'messages_fts_cjk', 'detached');
      db.pragma(`user_version = ${HISTORY_SCHEMA_VERSION}`);
    }).immediate();
  }
  syncCjk(db, cjk);
}

/** What aligning the CJK index with the tokenizer's availability needs now, if anything. */
function cjkChange(db: Database, cjk: boolean): 'detach' | 'build' | undefined {
  const state = meta(db, 'messages_fts_cjk');
  if (!cjk && state !== 'detached') return 'detach';
  if (cjk && (state === 'detached' || !tableExists(db, 'messages_fts_cjk'))) return 'build';
  return undefined;
}

/**
 * Aligns the CJK index with the tokenizer's availability: unavailable detaches it (writes go on,
 * routing falls back); available again after a detach rebuilds it from scratch. The state is read again
 * under the write lock, so processes opening the file at once change it once.
 */
export function syncCjk(db: Database, cjk: boolean): void {
  if (cjkChange(db, cjk) === undefined) return;
  db.transaction(() => {
    const change = cjkChange(db, cjk);
    if (change === 'detach') {
      dropIndexObjects(db, 'messages_fts_cjk');
      clearMarkers(db, 'messages_fts_cjk');
      setMeta(db, 'messages_fts_cjk', 'detached');
    } else if (change === 'build') {
      startIndexBuild(db, 'messages_fts_cjk');
    }
  }).immediate();
}

/**
 * Starts (or restarts) building an index in one immediate transaction: drops it, records
 * `high = MAX(id)` and `progress = 0`, and recreates it empty with its triggers; rows above `high`
 * are indexed as they arrive, rows up to `high` by {@link backfillStep}.
 */
export function startIndexBuild(db: Database, index: HistoryIndexName): void {
  db.transaction(() => {
    dropIndexObjects(db, index);
    const high = (db.prepare('SELECT coalesce(max(id), 0) AS h FROM messages').get() as { h: number }).h;
    clearMarkers(db, index);
    if (high > 0) {
      setMeta(db, index, 'building');
      setMeta(db, `${index}:high`, high);
      setMeta(db, `${index}:progress`, 0);
    }
    createIndexObjects(db, index);
  }).immediate();
}

/** Markers of an index: absent (ready), building with its range, or detached. */
export function indexState(db: Database, index: HistoryIndexName): { ready: boolean; high: number; progress: number } {
  const state = meta(db, index);
  if (state === 'detached') return { ready: false, high: -1, progress: -1 };
  if (state === 'building')
    return { ready: false, high: Number(meta(db, `${index}:high`)), progress: Number(meta(db, `${index}:progress`)) };
  return { ready: tableExists(db, index), high: -1, progress: -1 };
}

/** Whether each index is built and complete. */
export function indexStatus(db: Database): HistoryIndexStatus {
  return {
    messages_fts: indexState(db, 'messages_fts').ready,
    messages_fts_trigram: indexState(db, 'messages_fts_trigram').ready,
    messages_fts_cjk: indexState(db, 'messages_fts_cjk').ready,
  };
}

/** A test for the ids the CJK index must receive now (built, or being built and in range); false for all when detached. */
export function cjkGate(db: Database): (id: number) => boolean {
  const state = meta(db, 'messages_fts_cjk');
  if (state === 'detached' || !tableExists(db, 'messages_fts_cjk')) return () => false;
  if (state !== 'building') return () => true;
  const high = Number(meta(db, 'messages_fts_cjk:high'));
  const progress = Number(meta(db, 'messages_fts_cjk:progress'));
  return (id) => id > high || id <= progress;
}

const CJK_ROW = `SELECT m.id, m.content, m.tool_name FROM messages m JOIN sessions s ON s.id = m.session_id
  WHERE m.role <> 'tool' AND s.source NOT IN ('cron', 'subagent')`;

/** Adds one message to the CJK index (the caller checked {@link cjkIndexes} and the exclusions). */
export function cjkInsert(db: Database, id: number, content: string, toolName: string | null): void {
  sql(db, 'INSERT INTO messages_fts_cjk (rowid, content, tool_name) VALUES (?, ?, ?)').run(
    id,
    bigramText(content),
    toolName ? bigramText(toolName) : null,
  );
}

/**
 * One backfill step of an index being built, in one immediate transaction (the write lock is the
 * claim): indexes the next `batchSize` rows above `progress` up to `high` and moves `progress`; the
 * last step removes the markers.
 * @returns true when the index is still being built
 */
export function backfillStep(db: Database, index: HistoryIndexName, batchSize: number): boolean {
  return db
    .transaction((): boolean => {
      const state = indexState(db, index);
      if (state.ready || state.high < 0) return false;
      const end =
        (
          db
            .prepare('SELECT max(id) AS e FROM (SELECT id FROM messages WHERE id > ? AND id <= ? ORDER BY id LIMIT ?)')
            .get(state.progress, state.high, batchSize) as { e: number | null }
        ).e ?? state.high;
      if (index === 'messages_fts_cjk') {
        const rows = db.prepare(`${CJK_ROW} AND m.id > ? AND m.id <= ?`).all(state.progress, end) as {
          id: number;
          content: string;
          tool_name: string | null;
        }[];
        for (const r of rows) cjkInsert(db, r.id, r.content, r.tool_name);
      } else {
        const cols = TRIGGER_INDEXES[index].columns.join(', ');
        db.prepare(
          `INSERT INTO ${index} (rowid, ${cols}) SELECT id, ${cols} FROM ${index}_src WHERE id > ? AND id <= ?`,
        ).run(state.progress, end);
      }
      if (end >= state.high) {
        clearMarkers(db, index);
        return false;
      }
      setMeta(db, `${index}:progress`, end);
      return true;
    })
    .immediate();
}

/** The CJK exclusions of a row: true when it belongs in the CJK and trigram indexes. */
export function cjkEligible(role: string, source: string): boolean {
  return role !== 'tool' && source !== 'cron' && source !== 'subagent';
}

/** True when an error says an FTS5 index is corrupt (it must be rebuilt, never the user's data reset). */
export function isCorruptIndexError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_CORRUPT_VTAB') return true;
  const message = error instanceof Error ? error.message : '';
  return typeof code === 'string' && code.startsWith('SQLITE_CORRUPT') && /fts5|malformed/i.test(message);
}
