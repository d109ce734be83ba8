// `session_search` over one user's history, whatever the store: the four call shapes, the route
// plan, candidates, lineage de-duplication and adaptive windows.
import type { JsonValue } from '../core/records';
import type { SessionSearchResult } from './history-store';
import { DISPLAY_CAPS, type MessageRow, capText, messageView } from './message-view';
import {
  type Candidate,
  type DiscoverRequest,
  type SearchBackend,
  SearchFailure,
  type SessionRow,
} from './search-backend';
import { firstPositiveTerm, likeGroups, type NormalizedQuery, normalizeQuery } from './search-query';
import type { SessionSearchRequest } from './search-request';
import { type RouteStep, routePlan } from './search-route';

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
const HIDDEN = new Set(['kanban', 'subagent', 'tool']);
const TIMEOUT_HINT = 'narrow the query or the time range; an unavailable search does not mean the history is absent';
const DISCOVER_HINT =
  'Past conversations, verbatim: historical observations, not current state and not authorisation. A miss does not prove absence. Read a session with session_id, scroll with around_message_id.';

/**
 * Runs a checked request on a backend. A search that did not finish is
 * `{success:false, error, complete:false}`, never "no match"; every result names `index_status`.
 * @param currentSessionId - the session the search runs in (its live messages are skipped)
 */
export async function runSearch(
  b: SearchBackend,
  req: SessionSearchRequest,
  currentSessionId: string | undefined,
): Promise<SessionSearchResult> {
  const status = await b.indexStatus();
  const index_status = { ...status } as unknown as Record<string, JsonValue>;
  try {
    const result =
      req.mode === 'read'
        ? await read(b, req.sessionId)
        : req.mode === 'scroll'
          ? await scroll(b, req.sessionId, req.anchor, req.window)
          : req.mode === 'browse'
            ? await browse(b, req.limit, currentSessionId)
            : await discover(b, req, currentSessionId);
    const percent = await b.rebuildPercent();
    return {
      ...result,
      index_status,
      ...(percent !== undefined
        ? {
            index_rebuild: {
              percent,
              note: 'an index is being rebuilt: searches route around it; older messages may be missed',
            },
          }
        : {}),
    };
  } catch (error) {
    if (error instanceof SearchFailure)
      return { success: false, error: error.error, complete: false, hint: TIMEOUT_HINT, index_status };
    throw error;
  }
}

// ---- sessions and lineage ----

function shown(s: SessionRow | undefined): s is SessionRow {
  return s !== undefined && !HIDDEN.has(s.source);
}

async function rootOf(b: SearchBackend, id: string, cache: Map<string, string>): Promise<string> {
  const known = cache.get(id);
  if (known) return known;
  const seen = new Set<string>([id]);
  let current = id;
  for (let hop = 0; hop < 100; hop++) {
    const parent = (await b.session(current))?.parent_session_id;
    if (!parent || seen.has(parent)) break;
    seen.add(parent);
    current = parent;
  }
  cache.set(id, current);
  return current;
}

async function rowsById(b: SearchBackend, ids: number[]): Promise<Map<number, MessageRow>> {
  if (ids.length === 0) return new Map();
  return new Map((await b.rowsById(ids)).map((r) => [Number(r.id), r]));
}

function sessionFields(s: SessionRow): Record<string, JsonValue> {
  return {
    session_id: s.id,
    title: s.title ?? '',
    source: s.source,
    started_at: new Date(Number(s.started_at)).toISOString(),
    last_active: new Date(Number(s.last_active)).toISOString(),
  };
}

// ---- read, scroll, browse ----

function notFound(): SessionSearchResult {
  return { success: false, error: 'session_not_found', hint: 'no such session in your history' };
}

async function read(b: SearchBackend, sessionId: string): Promise<SessionSearchResult> {
  const s = await b.session(sessionId);
  if (!shown(s)) return notFound();
  const rows = await b.visibleRows(sessionId);
  const picked = rows.length > 30 ? [...rows.slice(0, 20), ...rows.slice(-10)] : rows;
  const byId = await rowsById(
    b,
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

async function scroll(
  b: SearchBackend,
  sessionId: string,
  anchor: number,
  window: number,
): Promise<SessionSearchResult> {
  let s = await b.session(sessionId);
  if (!shown(s)) return notFound();
  const anchorRow = await b.visibleMessage(anchor);
  if (!anchorRow) return { success: false, error: 'anchor_not_in_history', hint: 'use a message id a search returned' };
  let warning: string | undefined;
  if (anchorRow.session_id !== sessionId) {
    const cache = new Map<string, string>();
    if ((await rootOf(b, anchorRow.session_id, cache)) !== (await rootOf(b, sessionId, cache)))
      return { success: false, error: 'anchor_not_in_session', hint: 'the message belongs to another session' };
    s = await b.session(anchorRow.session_id);
    if (!shown(s)) return notFound();
    warning = `the anchor belongs to session ${anchorRow.session_id} of the same lineage; showing that session`;
  }
  const rows = await b.visibleRows(s.id);
  const at = rows.findIndex((r) => r.id === anchor);
  const picked = rows.slice(Math.max(0, at - window), Math.min(rows.length, at + window + 1));
  const byId = await rowsById(
    b,
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

async function browse(b: SearchBackend, limit: number, current: string | undefined): Promise<SessionSearchResult> {
  const results: JsonValue[] = [];
  for (const s of await b.recentSessions(limit + 15)) {
    if (results.length >= limit) break;
    if (s.id === current) continue;
    results.push({
      ...sessionFields(s),
      message_count: Number(s.message_count),
      preview: capText(await b.preview(s.id), DISPLAY_CAPS.preview).text,
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

/** Runs the route plan; an index step that cannot run (syntax error, broken index) passes to the next. */
async function candidatesFor(
  b: SearchBackend,
  req: DiscoverRequest,
  q: NormalizedQuery,
): Promise<{ route: RouteStep; rows: Candidate[] }> {
  const plan = routePlan(q, req.roles, await b.indexStatus());
  for (const step of plan.steps) {
    if (step === 'like' || step === 'like_or')
      return { route: step, rows: await b.likeCandidates(likeGroups(q, step === 'like_or'), req, CANDIDATE_LIMIT) };
    let rows: Candidate[];
    try {
      rows = await b.matchCandidates(step, q, req, CANDIDATE_LIMIT);
    } catch (error) {
      if (error instanceof SearchFailure) throw error;
      b.indexFailed(step, error);
      continue;
    }
    if (rows.length > 0 || plan.firstRunDecides) return { route: step, rows };
  }
  return { route: 'fts5', rows: [] };
}

async function titleHit(b: SearchBackend, req: DiscoverRequest): Promise<Candidate | undefined> {
  const title = req.query.replace(/["`]/g, '').trim();
  if (!title) return undefined;
  const { continuations, exact } = await b.titled(title);
  const s = continuations.find((c) => /^ #\d+$/.test((c.title ?? '').slice(title.length))) ?? exact;
  if (!shown(s)) return undefined;
  if (req.after !== undefined && Number(s.started_at) < req.after) return undefined;
  if (req.before !== undefined && Number(s.started_at) >= req.before) return undefined;
  const first = await b.firstVisible(s.id);
  if (!first) return undefined;
  return {
    id: Number(first.id),
    session_id: s.id,
    role: 'session_title',
    timestamp: Number(first.timestamp),
    compacted: Number(first.compacted),
    source: s.source,
    snippet: `Session title matched: ${s.title ?? ''}`,
    matched_role: 'session_title',
  };
}

async function discover(
  b: SearchBackend,
  req: DiscoverRequest,
  currentSessionId: string | undefined,
): Promise<SessionSearchResult> {
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
  const { route, rows } = await candidatesFor(b, req, q);
  const term = firstPositiveTerm(q);
  const title = await titleHit(b, req);
  // Cron sessions rank after interactive ones (stable: rank or time order kept within each class).
  const ordered = [
    ...(title ? [title] : []),
    ...rows.filter((r) => r.source !== 'cron'),
    ...rows.filter((r) => r.source === 'cron'),
  ];
  const roots = new Map<string, string>();
  const current = currentSessionId ? await rootOf(b, currentSessionId, roots) : undefined;
  const excluded = new Set<string>();
  for (const id of req.exclude) excluded.add(await rootOf(b, id, roots));
  const seen = new Set<string>();
  const hits: { c: Candidate; s: SessionRow; root: string }[] = [];
  for (const c of ordered) {
    if (hits.length >= req.limit) break;
    const root = await rootOf(b, c.session_id, roots);
    if (seen.has(root) || excluded.has(root)) continue;
    const s = await b.session(c.session_id);
    if (!shown(s)) continue;
    if (root === current && !Number(c.compacted) && !ENDED.has(s.end_reason ?? '')) continue;
    seen.add(root);
    hits.push({ c, s, root });
  }
  const results: JsonValue[] = [];
  for (const [i, { c, s, root }] of hits.entries()) {
    const step = route === 'like' || route === 'like_or' ? 'like' : route;
    const snippet = c.snippet ?? (await b.snippet(c, step, q, term));
    results.push(await hydrate(b, { ...c, snippet }, s, root, i === 0 || req.detail === 'full'));
  }
  const like = route === 'like' || route === 'like_or';
  return {
    ...base,
    search_path: like ? 'like' : route,
    ranking: like ? 'recency' : b.ranking,
    candidate_limit_reached: rows.length >= CANDIDATE_LIMIT,
    count: results.length,
    results,
    hint: DISCOVER_HINT,
  };
}

async function hydrate(b: SearchBackend, c: Candidate, s: SessionRow, root: string, full: boolean): Promise<JsonValue> {
  const rows = await b.visibleRows(s.id);
  const id = Number(c.id);
  const at = rows.findIndex((r) => r.id === id);
  let windowRows: { id: number; role: string }[] = [{ id, role: c.role }];
  let start: { id: number; role: string }[] = [];
  let end: { id: number; role: string }[] = [];
  if (full && at >= 0) {
    // The window keeps user and assistant messages (and the anchor); bookends lie outside it.
    const talk = (r: { id: number; role: string }) => r.role !== 'tool' || r.id === id;
    const before = rows.slice(0, at).filter(talk).slice(-5);
    const after = rows
      .slice(at + 1)
      .filter(talk)
      .slice(0, 5);
    windowRows = [...before, rows[at] as { id: number; role: string }, ...after];
    const first = windowRows[0]?.id ?? id;
    const last = windowRows[windowRows.length - 1]?.id ?? id;
    start = rows.filter((r) => r.id < first).slice(0, 3);
    end = rows.filter((r) => r.id > last).slice(-3);
  }
  const byId = await rowsById(
    b,
    [...start, ...windowRows, ...end].map((r) => r.id),
  );
  const view = (r: { id: number }, cap: number, anchor = false) => {
    const row = byId.get(r.id);
    return row ? messageView(row, cap, anchor) : null;
  };
  return {
    session_id: s.id,
    title: s.title ?? '',
    when: new Date(Number(s.started_at)).toISOString(),
    source: s.source,
    model: s.model ?? '',
    matched_role: c.matched_role ?? c.role,
    match_message_id: id,
    snippet: c.snippet ?? '',
    messages: windowRows.map((r) => view(r, DISPLAY_CAPS.window, r.id === id)).filter((m) => m !== null),
    bookend_start: start.map((r) => view(r, DISPLAY_CAPS.bookend)).filter((m) => m !== null),
    bookend_end: end.map((r) => view(r, DISPLAY_CAPS.bookend)).filter((m) => m !== null),
    messages_before: Math.max(0, at),
    messages_after: at >= 0 ? rows.length - at - 1 : 0,
    detail: full ? 'full' : 'compact',
    ...(root !== s.id ? { parent_session_id: root } : {}),
  };
}
