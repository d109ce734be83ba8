// The session search engine's view of one SQLite history file.
import type { Database } from 'better-sqlite3';
import type { HistoryIndexStatus } from './history-store';
import { GUARD_FUNCTION, LikeScanError, type LikeWorkers } from './like-worker';
import { type MessageRow, markSnippet } from './message-view';
import {
  type Candidate,
  type DiscoverRequest,
  type IndexStep,
  type SearchBackend,
  SearchFailure,
  type SessionRow,
} from './search-backend';
import { cjkMatch, fts5Match, fts5OrMatch, type LikeGroup, type NormalizedQuery, trigramMatch } from './search-query';
import {
  HISTORY_INDEXES,
  indexState,
  indexStatus,
  isCorruptIndexError,
  startIndexBuild,
} from './sqlite-history-schema';
import { sql } from './statement-cache';

const HIDDEN = `('kanban', 'subagent', 'tool')`;
const VISIBLE = '(m.active = 1 OR m.compacted = 1)';
const TABLES = {
  fts5: 'messages_fts',
  fts5_or: 'messages_fts',
  cjk: 'messages_fts_cjk',
  trigram: 'messages_fts_trigram',
} as const;

function filters(req: DiscoverRequest): { sql: string; params: unknown[] } {
  const parts = [VISIBLE, `s.source NOT IN ${HIDDEN}`, `m.role IN (${req.roles.map(() => '?').join(', ')})`];
  const params: unknown[] = [...req.roles];
  if (req.after !== undefined) {
    parts.push('s.started_at >= ?');
    params.push(req.after);
  }
  if (req.before !== undefined) {
    parts.push('s.started_at < ?');
    params.push(req.before);
  }
  return { sql: parts.join(' AND '), params };
}

function order(req: DiscoverRequest, ranked: boolean): string {
  if (req.sort === 'newest') return `m.timestamp DESC${ranked ? ', rank' : ''}, m.id DESC`;
  if (req.sort === 'oldest') return `m.timestamp ASC${ranked ? ', rank' : ''}, m.id ASC`;
  return ranked ? 'rank, m.id DESC' : 'm.timestamp DESC, m.id DESC';
}

function matchText(step: IndexStep, q: NormalizedQuery): string {
  if (step === 'fts5') return fts5Match(q);
  if (step === 'fts5_or') return fts5OrMatch(q);
  if (step === 'cjk') return cjkMatch(q);
  return trigramMatch(q);
}

const likeEscape = (t: string) => `%${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The search engine's backend over one user's SQLite file: index routes on `db`, LIKE scans on `workers`. */
export class SqliteSearchBackend implements SearchBackend {
  readonly ranking = 'bm25';

  /**
   * @param db - the user's connection
   * @param path - the file (the LIKE workers open it read-only)
   * @param workers - the LIKE workers
   * @param deadlineMs - the LIKE deadline
   */
  constructor(
    private readonly db: Database,
    private readonly path: string,
    private readonly workers: LikeWorkers,
    private readonly deadlineMs: number,
  ) {}

  indexStatus(): HistoryIndexStatus {
    return indexStatus(this.db);
  }

  rebuildPercent(): number | undefined {
    const building = HISTORY_INDEXES.map((i) => indexState(this.db, i)).filter((s) => s.high > 0);
    if (building.length === 0) return undefined;
    return Math.floor(Math.min(...building.map((s) => (100 * s.progress) / s.high)));
  }

  session(id: string): SessionRow | undefined {
    return sql(this.db, 'SELECT * FROM sessions WHERE id = ?').get(id) as SessionRow | undefined;
  }

  visibleRows(sessionId: string): { id: number; role: string }[] {
    return sql(this.db, `SELECT m.id, m.role FROM messages m WHERE m.session_id = ? AND ${VISIBLE} ORDER BY m.id`).all(
      sessionId,
    ) as { id: number; role: string }[];
  }

  rowsById(ids: number[]): MessageRow[] {
    return sql(this.db, `SELECT * FROM messages WHERE id IN (${ids.map(() => '?').join(', ')})`).all(
      ...ids,
    ) as MessageRow[];
  }

  visibleMessage(id: number): { id: number; session_id: string } | undefined {
    return sql(this.db, `SELECT m.id, m.session_id FROM messages m WHERE m.id = ? AND ${VISIBLE}`).get(id) as
      | { id: number; session_id: string }
      | undefined;
  }

  recentSessions(limit: number): SessionRow[] {
    return sql(this.db, `SELECT * FROM sessions WHERE source NOT IN ${HIDDEN} ORDER BY last_active DESC LIMIT ?`).all(
      limit,
    ) as SessionRow[];
  }

  preview(sessionId: string): string {
    const row = sql(
      this.db,
      `SELECT content FROM messages m WHERE m.session_id = ? AND ${VISIBLE} ORDER BY (m.role = 'user') DESC, m.id LIMIT 1`,
    ).get(sessionId) as { content: string } | undefined;
    return row?.content ?? '';
  }

  titled(title: string): { continuations: SessionRow[]; exact: SessionRow | undefined } {
    const continuations = sql(
      this.db,
      `SELECT * FROM sessions WHERE title LIKE ? ESCAPE '\\' ORDER BY started_at DESC LIMIT 50`,
    ).all(`${title.replace(/[\\%_]/g, (c) => `\\${c}`)} #%`) as SessionRow[];
    const exact = sql(
      this.db,
      'SELECT * FROM sessions WHERE title = ? COLLATE NOCASE ORDER BY started_at DESC LIMIT 1',
    ).get(title) as SessionRow | undefined;
    return { continuations, exact };
  }

  firstVisible(sessionId: string): { id: number; timestamp: number; compacted: number } | undefined {
    return sql(
      this.db,
      `SELECT m.id, m.timestamp, m.compacted FROM messages m WHERE m.session_id = ? AND ${VISIBLE} ORDER BY m.id LIMIT 1`,
    ).get(sessionId) as { id: number; timestamp: number; compacted: number } | undefined;
  }

  matchCandidates(step: IndexStep, q: NormalizedQuery, req: DiscoverRequest, limit: number): Candidate[] {
    const table = TABLES[step];
    const f = filters(req);
    return sql(
      this.db,
      `SELECT m.id, m.session_id, m.role, m.timestamp, m.compacted, s.source
       FROM ${table} JOIN messages m ON m.id = ${table}.rowid JOIN sessions s ON s.id = m.session_id
       WHERE ${table} MATCH ? AND ${f.sql} ORDER BY ${order(req, true)} LIMIT ${limit}`,
    ).all(matchText(step, q), ...f.params) as Candidate[];
  }

  async likeCandidates(groups: LikeGroup[], req: DiscoverRequest, limit: number): Promise<Candidate[]> {
    if (groups.length === 0) return [];
    const f = filters(req);
    const params: unknown[] = [];
    const termSql = (t: string) => {
      const p = likeEscape(t);
      params.push(p, p, p);
      return `(m.content LIKE ? ESCAPE '\\' OR m.tool_name LIKE ? ESCAPE '\\' OR m.tool_calls LIKE ? ESCAPE '\\')`;
    };
    const groupSql = groups
      .map((g) => `(${[...g.include.map(termSql), ...g.exclude.map((t) => `NOT ${termSql(t)}`)].join(' AND ')})`)
      .join(' OR ');
    params.push(...f.params);
    // The deadline guard comes first in WHERE, so it runs for every scanned row.
    const text = `SELECT m.id, m.session_id, m.role, m.timestamp, m.compacted, s.source
      FROM messages m JOIN sessions s ON s.id = m.session_id
      WHERE ${GUARD_FUNCTION}(m.id) AND (${groupSql}) AND ${f.sql}
      ORDER BY ${order(req, false)} LIMIT ${limit}`;
    try {
      return (await this.workers.run(this.path, text, params, this.deadlineMs)) as Candidate[];
    } catch (error) {
      if (error instanceof LikeScanError && error.kind === 'timeout')
        throw new SearchFailure('query_timeout', error.message);
      const code = error instanceof LikeScanError ? error.code : undefined;
      throw new SearchFailure(
        code?.startsWith('SQLITE_') ? 'storage_unavailable' : 'query_unavailable',
        error instanceof Error ? error.message : String(error),
      );
    }
  }

  snippet(c: Candidate, step: IndexStep | 'like', q: NormalizedQuery, term: string): string {
    if (step === 'fts5' || step === 'fts5_or') {
      const row = sql(
        this.db,
        `SELECT snippet(messages_fts, 0, '>>>', '<<<', '…', 24) AS s FROM messages_fts WHERE messages_fts MATCH ? AND rowid = ?`,
      ).get(matchText(step, q), c.id) as { s: string } | undefined;
      if (row?.s) return row.s;
    }
    const content =
      (
        sql(this.db, 'SELECT substr(content, 1, 100000) AS c FROM messages WHERE id = ?').get(c.id) as
          | { c: string }
          | undefined
      )?.c ?? '';
    return snippetAround(content, term);
  }

  indexFailed(step: IndexStep, error: unknown): void {
    // A broken index is rebuilt from scratch (maintenance backfills it); the search goes on without it.
    if (!isCorruptIndexError(error)) return;
    try {
      startIndexBuild(this.db, TABLES[step]);
    } catch {
      // the next search tries again
    }
  }
}

/** About 240 characters around the first case-insensitive occurrence of `term`, marked. */
export function snippetAround(content: string, term: string): string {
  const at = term ? content.toLowerCase().indexOf(term.toLowerCase()) : 0;
  const from = Math.max(0, at - 60);
  return markSnippet(content.slice(from, from + 240), term);
}
