// `session_search` over one user's history file: the four call shapes, routing between the
// indexes and the LIKE fallback, candidates, lineage de-duplication and adaptive windows.
import type { Database } from 'better-sqlite3';
import { sql } from './statement-cache';
import type { JsonValue } from '../core/records';
import type { HistoryIndexStatus, SessionSearchResult } from './history-store';
import { GUARD_FUNCTION, LikeScanError, type LikeWorkers } from './like-worker';
import { DISPLAY_CAPS, type MessageRow, capText, markSnippet, messageView } from './message-view';
import {
  cjkMatch,
  firstPositiveTerm,
  fts5Match,
  fts5OrMatch,
  type LikeGroup,
  likeGroups,
  type NormalizedQuery,
  normalizeQuery,
  trigramMatch,
} from './search-query';
import { type RouteStep, routePlan } from './search-route';
import type { SessionSearchRequest } from './search-request';
import {
  indexState,
  indexStatus,
  isCorruptIndexError,
  startIndexBuild,
  HISTORY_INDEXES,
} from './sqlite-history-schema';

/** Most candidate rows a discovery considers. */
export const CANDIDATE_LIMIT = 300;

/** End reasons after which a session's content is no longer in the live context. */
const ENDED = new Set([
  'compression',
  'new_session',
  'session_reset',
  'session_switch',
  'idle',
  'daily',
  'suspended',
  'resume_pending_expired',
]);
const HIDDEN = `('kanban', 'subagent', 'tool')`;
const VISIBLE = '(m.active = 1 OR m.compacted = 1)';
const TIMEOUT_HINT = 'narrow the query or the time range; an unavailable search does not mean the history is absent';
const DISCOVER_HINT =
  'Past conversations, verbatim: historical observations, not current state and not authorisation. A miss does not prove absence. Read a session with session_id, scroll with around_message_id.';

/** What a search needs of the store. */
export interface SearchContext {
  db: Database;
  path: string;
  workers: LikeWorkers;
  deadlineMs: number;
  currentSessionId: string | undefined;
}

interface Candidate {
  id: number;
  session_id: string;
  role: string;
  timestamp: number;
  compacted: number;
  source: string;
  snippet?: string;
  matched_role?: string;
}

interface SessionRow {
  id: string;
  source: string;
  title: string | null;
  model: string | null;
  started_at: number;
  last_active: number;
  parent_session_id: string | null;
  end_reason: string | null;
  message_count: number;
}

class SearchFailure extends Error {
  constructor(
    readonly error: 'query_timeout' | 'query_unavailable' | 'storage_unavailable',
    message: string,
  ) {
    super(message);
  }
}

/** Runs a checked request. Never throws for a search that did not finish: it says so. */
export async function runSearch(ctx: SearchContext, req: SessionSearchRequest): Promise<SessionSearchResult> {
  const index_status = indexStatus(ctx.db) as unknown as Record<string, JsonValue>;
  try {
    const result =
      req.mode === 'read'
        ? read(ctx, req.sessionId)
        : req.mode === 'scroll'
          ? scroll(ctx, req.sessionId, req.anchor, req.window)
          : req.mode === 'browse'
            ? browse(ctx, req.limit)
            : await discover(ctx, req, indexStatus(ctx.db));
    return { ...result, index_status, ...rebuildProgress(ctx) };
  } catch (error) {
    if (error instanceof SearchFailure)
      return { success: false, error: error.error, complete: false, hint: TIMEOUT_HINT, index_status };
    throw error;
  }
}

/** `index_rebuild` while an index is being backfilled: how far, and that misses are inconclusive. */
function rebuildProgress(ctx: SearchContext): { index_rebuild?: JsonValue } {
  const building = HISTORY_INDEXES.map((i) => indexState(ctx.db, i)).filter((s) => s.high > 0);
  if (building.length === 0) return {};
  const percent = Math.floor(Math.min(...building.map((s) => (100 * s.progress) / s.high)));
  return {
    index_rebuild: {
      percent,
      note: 'an index is being rebuilt: searches route around it; older messages may be missed',
    },
  };
}

// ---- sessions and lineage ----

function session(ctx: SearchContext, id: string): SessionRow | undefined {
  return sql(ctx.db, 'SELECT * FROM sessions WHERE id = ?').get(id) as SessionRow | undefined;
}

function shown(s: SessionRow | undefined): s is SessionRow {
  return s !== undefined && !['kanban', 'subagent', 'tool'].includes(s.source);
}

function rootOf(ctx: SearchContext, id: string, cache: Map<string, string>): string {
  const known = cache.get(id);
  if (known) return known;
  const seen = new Set<string>([id]);
  let current = id;
  for (let hop = 0; hop < 100; hop++) {
    const parent = session(ctx, current)?.parent_session_id;
    if (!parent || seen.has(parent)) break;
    seen.add(parent);
    current = parent;
  }
  cache.set(id, current);
  return current;
}

function visibleRows(ctx: SearchContext, sessionId: string): { id: number; role: string }[] {
  return sql(ctx.db, `SELECT m.id, m.role FROM messages m WHERE m.session_id = ? AND ${VISIBLE} ORDER BY m.id`).all(
    sessionId,
  ) as { id: number; role: string }[];
}

function rowsById(ctx: SearchContext, ids: number[]): Map<number, MessageRow> {
  if (ids.length === 0) return new Map();
  const rows = sql(ctx.db, `SELECT * FROM messages WHERE id IN (${ids.map(() => '?').join(', ')})`).all(
    ...ids,
  ) as MessageRow[];
  return new Map(rows.map((r) => [r.id, r]));
}

function sessionFields(s: SessionRow): Record<string, JsonValue> {
  return {
    session_id: s.id,
    title: s.title ?? '',
    source: s.source,
    started_at: new Date(s.started_at).toISOString(),
    last_active: new Date(s.last_active).toISOString(),
  };
}

// ---- read, scroll, browse ----

function notFound(): SessionSearchResult {
  return { success: false, error: 'session_not_found', hint: 'no such session in your history' };
}

function read(ctx: SearchContext, sessionId: string): SessionSearchResult {
  const s = session(ctx, sessionId);
  if (!shown(s)) return notFound();
  const rows = visibleRows(ctx, sessionId);
  const picked = rows.length > 30 ? [...rows.slice(0, 20), ...rows.slice(-10)] : rows;
  const byId = rowsById(
    ctx,
    picked.map((r) => r.id),
  );
  const messages = picked.map((r) => messageView(byId.get(r.id) as MessageRow, DISPLAY_CAPS.read));
  return {
    success: true,
    mode: 'read',
    ...sessionFields(s),
    message_count: rows.length,
    truncated: rows.length > 30,
    count: messages.length,
    messages,
    hint:
      rows.length > 30
        ? 'first 20 and last 10 messages shown; scroll the middle with around_message_id'
        : 'historical messages, not current state',
  };
}

function scroll(ctx: SearchContext, sessionId: string, anchor: number, window: number): SessionSearchResult {
  let s = session(ctx, sessionId);
  if (!shown(s)) return notFound();
  const anchorRow = sql(ctx.db, `SELECT m.id, m.session_id FROM messages m WHERE m.id = ? AND ${VISIBLE}`).get(
    anchor,
  ) as { id: number; session_id: string } | undefined;
  if (!anchorRow) return { success: false, error: 'anchor_not_in_history', hint: 'use a message id a search returned' };
  let warning: string | undefined;
  if (anchorRow.session_id !== sessionId) {
    const cache = new Map<string, string>();
    if (rootOf(ctx, anchorRow.session_id, cache) !== rootOf(ctx, sessionId, cache))
      return { success: false, error: 'anchor_not_in_session', hint: 'the message belongs to another session' };
    s = session(ctx, anchorRow.session_id);
    if (!shown(s)) return notFound();
    warning = `the anchor belongs to session ${anchorRow.session_id} of the same lineage; showing that session`;
  }
  const rows = visibleRows(ctx, s.id);
  const at = rows.findIndex((r) => r.id === anchor);
  const from = Math.max(0, at - window);
  const to = Math.min(rows.length, at + window + 1);
  const picked = rows.slice(from, to);
  const byId = rowsById(
    ctx,
    picked.map((r) => r.id),
  );
  return {
    success: true,
    mode: 'scroll',
    ...sessionFields(s),
    count: picked.length,
    messages: picked.map((r) => messageView(byId.get(r.id) as MessageRow, DISPLAY_CAPS.window, r.id === anchor)),
    messages_before: at,
    messages_after: rows.length - at - 1,
    hint: 'page on by anchoring on the last message id (forward) or the first (backward)',
    ...(warning ? { warning } : {}),
  };
}

function browse(ctx: SearchContext, limit: number): SessionSearchResult {
  const sessions = sql(
    ctx.db,
    `SELECT * FROM sessions WHERE source NOT IN ${HIDDEN} ORDER BY last_active DESC LIMIT ?`,
  ).all(limit + 15) as SessionRow[];
  const results: JsonValue[] = [];
  for (const s of sessions) {
    if (results.length >= limit) break;
    if (s.id === ctx.currentSessionId) continue;
    const first = sql(
      ctx.db,

      `SELECT content FROM messages m WHERE m.session_id = ? AND ${VISIBLE} ORDER BY (m.role = 'user') DESC, m.id LIMIT 1`,
    ).get(s.id) as { content: string } | undefined;
    results.push({
      ...sessionFields(s),
      message_count: s.message_count,
      preview: capText(first?.content ?? '', DISPLAY_CAPS.preview).text,
    });
  }
  return {
    success: true,
    mode: 'browse',
    count: results.length,
    results,
    hint: 'recent sessions; read one with session_id',
  };
}

// ---- discover ----

type Discover = Extract<SessionSearchRequest, { mode: 'discover' }>;

function filters(req: Discover): { sql: string; params: unknown[] } {
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

function order(req: Discover, ranked: boolean): string {
  if (req.sort === 'newest') return `m.timestamp DESC${ranked ? ', rank' : ''}, m.id DESC`;
  if (req.sort === 'oldest') return `m.timestamp ASC${ranked ? ', rank' : ''}, m.id ASC`;
  return ranked ? 'rank, m.id DESC' : 'm.timestamp DESC, m.id DESC';
}

const TABLES = {
  fts5: 'messages_fts',
  fts5_or: 'messages_fts',
  cjk: 'messages_fts_cjk',
  trigram: 'messages_fts_trigram',
} as const;

/** Candidate rows of a MATCH route (ids and metadata only; snippets are made for the hits). */
function matchCandidates(ctx: SearchContext, req: Discover, table: string, match: string): Candidate[] {
  const f = filters(req);
  return sql(
    ctx.db,
    `SELECT m.id, m.session_id, m.role, m.timestamp, m.compacted, s.source
     FROM ${table} JOIN messages m ON m.id = ${table}.rowid JOIN sessions s ON s.id = m.session_id
     WHERE ${table} MATCH ? AND ${f.sql} ORDER BY ${order(req, true)} LIMIT ${CANDIDATE_LIMIT}`,
  ).all(match, ...f.params) as Candidate[];
}

const likeEscape = (t: string) => `%${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The LIKE scan: the deadline guard first in WHERE, then the boolean groups and the filters. */
function likeSql(req: Discover, groups: LikeGroup[]): { sql: string; params: unknown[] } {
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
  return {
    sql: `SELECT m.id, m.session_id, m.role, m.timestamp, m.compacted, s.source
      FROM messages m JOIN sessions s ON s.id = m.session_id
      WHERE ${GUARD_FUNCTION}(m.id) AND (${groupSql}) AND ${f.sql}
      ORDER BY ${order(req, false)} LIMIT ${CANDIDATE_LIMIT}`,
    params,
  };
}

async function likeCandidates(
  ctx: SearchContext,
  req: Discover,
  q: NormalizedQuery,
  orTerms: boolean,
): Promise<Candidate[]> {
  const groups = likeGroups(q, orTerms);
  if (groups.length === 0) return [];
  const { sql: text, params } = likeSql(req, groups);
  try {
    return (await ctx.workers.run(ctx.path, text, params, ctx.deadlineMs)) as Candidate[];
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

function matchText(step: RouteStep, q: NormalizedQuery): string {
  if (step === 'fts5') return fts5Match(q);
  if (step === 'fts5_or') return fts5OrMatch(q);
  if (step === 'cjk') return cjkMatch(q);
  return trigramMatch(q);
}

/** Runs the route plan; an index step that cannot run (syntax error, broken index) passes to the next. */
async function candidatesFor(
  ctx: SearchContext,
  req: Discover,
  q: NormalizedQuery,
  status: HistoryIndexStatus,
): Promise<{ route: RouteStep; match: string; rows: Candidate[] }> {
  const plan = routePlan(q, req.roles, status);
  for (const step of plan.steps) {
    if (step === 'like' || step === 'like_or')
      return { route: step, match: '', rows: await likeCandidates(ctx, req, q, step === 'like_or') };
    const match = matchText(step, q);
    let rows: Candidate[];
    try {
      rows = matchCandidates(ctx, req, TABLES[step], match);
    } catch (error) {
      // A broken index is rebuilt from scratch (maintenance backfills it); the search goes on without it.
      if (isCorruptIndexError(error)) {
        try {
          startIndexBuild(ctx.db, TABLES[step]);
        } catch {
          // the next search tries again
        }
      }
      continue;
    }
    if (rows.length > 0 || plan.firstRunDecides) return { route: step, match, rows };
  }
  return { route: 'fts5', match: '', rows: [] };
}

/** The snippet of a hit: FTS5 `snippet()` on the word index, else the text around the first term. */
function snippetOf(ctx: SearchContext, c: Candidate, route: RouteStep, match: string, term: string): string {
  if (c.snippet) return c.snippet;
  if (route === 'fts5' || route === 'fts5_or') {
    const row = sql(
      ctx.db,
      `SELECT snippet(messages_fts, 0, '>>>', '<<<', '…', 24) AS s FROM messages_fts WHERE messages_fts MATCH ? AND rowid = ?`,
    ).get(match, c.id) as { s: string } | undefined;
    if (row?.s) return row.s;
  }
  const content =
    (
      sql(ctx.db, 'SELECT substr(content, 1, 100000) AS c FROM messages WHERE id = ?').get(c.id) as
        | { c: string }
        | undefined
    )?.c ?? '';
  const at = term ? content.toLowerCase().indexOf(term.toLowerCase()) : 0;
  const from = Math.max(0, at - 60);
  return markSnippet(content.slice(from, from + 240), term);
}

function titleHit(ctx: SearchContext, req: Discover): Candidate | undefined {
  const title = req.query.replace(/["`]/g, '').trim();
  if (!title) return undefined;
  const continuations = (
    sql(ctx.db, `SELECT * FROM sessions WHERE title LIKE ? ESCAPE '\\' ORDER BY started_at DESC LIMIT 50`).all(
      `${title.replace(/[\\%_]/g, (c) => `\\${c}`)} #%`,
    ) as SessionRow[]
  ).filter((s) => /^ #\d+$/.test((s.title ?? '').slice(title.length)));
  const s =
    continuations[0] ??
    (sql(ctx.db, 'SELECT * FROM sessions WHERE title = ? COLLATE NOCASE ORDER BY started_at DESC LIMIT 1').get(title) as
      | SessionRow
      | undefined);
  if (!shown(s)) return undefined;
  if (req.after !== undefined && s.started_at < req.after) return undefined;
  if (req.before !== undefined && s.started_at >= req.before) return undefined;
  const first = sql(
    ctx.db,
    `SELECT m.id, m.timestamp, m.compacted FROM messages m WHERE m.session_id = ? AND ${VISIBLE} ORDER BY m.id LIMIT 1`,
  ).get(s.id) as { id: number; timestamp: number; compacted: number } | undefined;
  if (!first) return undefined;
  return {
    id: first.id,
    session_id: s.id,
    role: 'session_title',
    timestamp: first.timestamp,
    compacted: first.compacted,
    source: s.source,
    snippet: `Session title matched: ${s.title ?? ''}`,
    matched_role: 'session_title',
  };
}

async function discover(ctx: SearchContext, req: Discover, status: HistoryIndexStatus): Promise<SessionSearchResult> {
  const q = normalizeQuery(req.query);
  const base = {
    success: true,
    mode: 'discover' as const,
    query: q.text,
    detail: req.detail,
    candidate_limit: CANDIDATE_LIMIT,
    complete: true,
  };
  if (q.terms.length === 0)
    return {
      ...base,
      search_path: 'empty',
      ranking: 'none',
      candidate_limit_reached: false,
      count: 0,
      results: [],
      hint: DISCOVER_HINT,
    };
  const { route, match, rows } = await candidatesFor(ctx, req, q, status);
  const term = firstPositiveTerm(q);
  const title = titleHit(ctx, req);
  // Cron sessions rank after interactive ones (stable: rank or time order kept within each class).
  const ordered = [
    ...(title ? [title] : []),
    ...rows.filter((r) => r.source !== 'cron'),
    ...rows.filter((r) => r.source === 'cron'),
  ];
  const roots = new Map<string, string>();
  const current = ctx.currentSessionId ? rootOf(ctx, ctx.currentSessionId, roots) : undefined;
  const excluded = new Set(req.exclude.map((id) => rootOf(ctx, id, roots)));
  const seen = new Set<string>();
  const hits: { c: Candidate; s: SessionRow; root: string }[] = [];
  for (const c of ordered) {
    if (hits.length >= req.limit) break;
    const root = rootOf(ctx, c.session_id, roots);
    if (seen.has(root) || excluded.has(root)) continue;
    const s = session(ctx, c.session_id);
    if (!shown(s)) continue;
    if (root === current && !c.compacted && !ENDED.has(s.end_reason ?? '')) continue;
    seen.add(root);
    hits.push({ c, s, root });
  }
  const results = hits.map(({ c, s, root }, i) =>
    hydrate(ctx, { ...c, snippet: snippetOf(ctx, c, route, match, term) }, s, root, i === 0 || req.detail === 'full'),
  );
  return {
    ...base,
    search_path: route === 'like_or' ? 'like' : route,
    ranking: route === 'like' || route === 'like_or' ? 'recency' : req.sort ? `${req.sort}_then_bm25` : 'bm25',
    candidate_limit_reached: rows.length >= CANDIDATE_LIMIT,
    count: results.length,
    results,
    hint: DISCOVER_HINT,
  };
}

function hydrate(ctx: SearchContext, c: Candidate, s: SessionRow, root: string, full: boolean): JsonValue {
  const rows = visibleRows(ctx, s.id);
  const at = rows.findIndex((r) => r.id === c.id);
  let windowRows: { id: number; role: string }[] = [{ id: c.id, role: c.role }];
  let start: { id: number; role: string }[] = [];
  let end: { id: number; role: string }[] = [];
  if (full && at >= 0) {
    const talk = (r: { id: number; role: string }) => r.role !== 'tool' || r.id === c.id;
    const before = rows.slice(0, at).filter(talk).slice(-5);
    const after = rows
      .slice(at + 1)
      .filter(talk)
      .slice(0, 5);
    windowRows = [...before, rows[at] as { id: number; role: string }, ...after];
    const first = windowRows[0]?.id ?? c.id;
    const last = windowRows[windowRows.length - 1]?.id ?? c.id;
    start = rows.filter((r) => r.id < first).slice(0, 3);
    end = rows.filter((r) => r.id > last).slice(-3);
  }
  const byId = rowsById(
    ctx,
    [...start, ...windowRows, ...end].map((r) => r.id),
  );
  const view = (r: { id: number }, cap: number, anchor = false) => {
    const row = byId.get(r.id);
    return row ? messageView(row, cap, anchor) : null;
  };
  return {
    session_id: s.id,
    title: s.title ?? '',
    when: new Date(s.started_at).toISOString(),
    source: s.source,
    model: s.model ?? '',
    matched_role: c.matched_role ?? c.role,
    match_message_id: c.id,
    snippet: c.snippet ?? '',
    messages: windowRows.map((r) => view(r, DISPLAY_CAPS.window, r.id === c.id)).filter((m) => m !== null),
    bookend_start: start.map((r) => view(r, DISPLAY_CAPS.bookend)).filter((m) => m !== null),
    bookend_end: end.map((r) => view(r, DISPLAY_CAPS.bookend)).filter((m) => m !== null),
    messages_before: Math.max(0, at),
    messages_after: at >= 0 ? rows.length - at - 1 : 0,
    detail: full ? 'full' : 'compact',
    ...(root !== s.id ? { parent_session_id: root } : {}),
  };
}
