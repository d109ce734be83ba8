// The session search engine's view of one user's rows in the PostgreSQL history tables. Every
// statement runs in the search's read-only transaction under its `statement_timeout`.
import type pg from 'pg';
import type { HistoryIndexStatus } from './history-store';
import { type MessageRow, markSnippet } from './message-view';
import { tsqueryText } from './postgres-tsquery';
import {
  type Candidate,
  type DiscoverRequest,
  type IndexStep,
  type SearchBackend,
  SearchFailure,
  type SessionRow,
} from './search-backend';
import { type LikeGroup, likeGroups, type NormalizedQuery } from './search-query';

const VISIBLE = '(m.active = 1 OR m.compacted = 1)';
const HIDDEN = `('kanban', 'subagent', 'tool')`;
/** SQLSTATEs of a statement that ran out of time or waited too long for a lock. */
const TIMEOUTS = new Set(['57014', '55P03']);

function message(r: Record<string, unknown>): MessageRow {
  return { ...(r as unknown as MessageRow), id: Number(r.id), timestamp: Number(r.timestamp) };
}

function session(r: Record<string, unknown> | undefined): SessionRow | undefined {
  if (!r) return undefined;
  return {
    ...(r as unknown as SessionRow),
    started_at: Number(r.started_at),
    last_active: Number(r.last_active),
    message_count: Number(r.message_count),
  };
}

function candidate(r: Record<string, unknown>): Candidate {
  return {
    id: Number(r.id),
    session_id: r.session_id as string,
    role: r.role as string,
    timestamp: Number(r.timestamp),
    compacted: Number(r.compacted),
    source: r.source as string,
  };
}

const likeEscape = (t: string) => `%${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The backend over `client` (in the search's transaction) for the user `key`.
 * @param status - which indexes the schema has (word and CJK always; trigram with pg_trgm)
 */
export function postgresSearchBackend(
  client: pg.PoolClient,
  schema: string,
  key: string,
  status: HistoryIndexStatus,
): SearchBackend {
  const T = `${schema}.history_messages`;
  const S = `${schema}.history_sessions`;
  let savepoints = 0;
  const run = async (text: string, params: unknown[]): Promise<Record<string, unknown>[]> => {
    try {
      return (await client.query(text, params)).rows as Record<string, unknown>[];
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code && TIMEOUTS.has(code)) throw new SearchFailure('query_timeout', String(error));
      throw error;
    }
  };
  // A candidate query that fails (a malformed tsquery) must not abort the search's transaction.
  const guarded = async (text: string, params: unknown[]) => {
    const sp = `c${++savepoints}`;
    await client.query(`SAVEPOINT ${sp}`);
    try {
      const rows = await run(text, params);
      await client.query(`RELEASE SAVEPOINT ${sp}`);
      return rows;
    } catch (error) {
      if (!(error instanceof SearchFailure)) await client.query(`ROLLBACK TO SAVEPOINT ${sp}`);
      throw error;
    }
  };
  const filters = (req: DiscoverRequest, params: unknown[]) => {
    params.push(key, req.roles);
    const parts = [
      `m.user_key = $${params.length - 1}`,
      VISIBLE,
      `s.source NOT IN ${HIDDEN}`,
      `m.role = ANY($${params.length})`,
    ];
    if (req.after !== undefined) {
      params.push(req.after);
      parts.push(`s.started_at >= $${params.length}`);
    }
    if (req.before !== undefined) {
      params.push(req.before);
      parts.push(`s.started_at < $${params.length}`);
    }
    return parts.join(' AND ');
  };
  const order = (req: DiscoverRequest, rank: string | undefined) => {
    const r = rank ? `${rank} DESC, ` : '';
    if (req.sort === 'newest') return `m.timestamp DESC, ${r}m.id DESC`;
    if (req.sort === 'oldest') return `m.timestamp ASC, ${r}m.id ASC`;
    return rank ? `${r}m.id DESC` : 'm.timestamp DESC, m.id DESC';
  };
  const likeWhere = (groups: LikeGroup[], params: unknown[], columns: string[]) => {
    const term = (t: string) => {
      params.push(likeEscape(t));
      return `(${columns.map((c) => `${c} ILIKE $${params.length}`).join(' OR ')})`;
    };
    return groups
      .map((g) => `(${[...g.include.map(term), ...g.exclude.map((t) => `NOT ${term(t)}`)].join(' AND ')})`)
      .join(' OR ');
  };
  const FROM = `FROM ${T} m JOIN ${S} s ON s.user_key = m.user_key AND s.id = m.session_id`;
  const COLS = 'm.id, m.session_id, m.role, m.timestamp, m.compacted, s.source';

  return {
    ranking: 'ts_rank_cd',
    indexStatus: () => status,
    rebuildPercent: () => undefined,
    session: async (id) => session((await run(`SELECT * FROM ${S} WHERE user_key = $1 AND id = $2`, [key, id]))[0]),
    visibleRows: async (sessionId) =>
      (
        await run(
          `SELECT m.id, m.role FROM ${T} m WHERE m.user_key = $1 AND m.session_id = $2 AND ${VISIBLE} ORDER BY m.id`,
          [key, sessionId],
        )
      ).map((r) => ({ id: Number(r.id), role: r.role as string })),
    rowsById: async (ids) =>
      (
        await run(
          `SELECT id, session_id, role, content, timestamp, provenance, tool_name, tool_call_id, tool_calls, tool_status
           FROM ${T} WHERE user_key = $1 AND id = ANY($2::bigint[])`,
          [key, ids],
        )
      ).map(message),
    visibleMessage: async (id) => {
      const r = (
        await run(`SELECT m.id, m.session_id FROM ${T} m WHERE m.user_key = $1 AND m.id = $2 AND ${VISIBLE}`, [key, id])
      )[0];
      return r ? { id: Number(r.id), session_id: r.session_id as string } : undefined;
    },
    recentSessions: async (limit) =>
      (
        await run(
          `SELECT * FROM ${S} WHERE user_key = $1 AND source NOT IN ${HIDDEN} ORDER BY last_active DESC LIMIT $2`,
          [key, limit],
        )
      ).map((r) => session(r) as SessionRow),
    preview: async (sessionId) =>
      ((
        await run(
          `SELECT content FROM ${T} m WHERE m.user_key = $1 AND m.session_id = $2 AND ${VISIBLE} ORDER BY (m.role = 'user') DESC, m.id LIMIT 1`,
          [key, sessionId],
        )
      )[0]?.content as string | undefined) ?? '',
    titled: async (title) => {
      const continuations = (
        await run(`SELECT * FROM ${S} WHERE user_key = $1 AND title LIKE $2 ORDER BY started_at DESC LIMIT 50`, [
          key,
          `${title.replace(/[\\%_]/g, (c) => `\\${c}`)} #%`,
        ])
      ).map((r) => session(r) as SessionRow);
      const exact = session(
        (
          await run(
            `SELECT * FROM ${S} WHERE user_key = $1 AND lower(title) = lower($2) ORDER BY started_at DESC LIMIT 1`,
            [key, title],
          )
        )[0],
      );
      return { continuations, exact };
    },
    firstVisible: async (sessionId) => {
      const r = (
        await run(
          `SELECT m.id, m.timestamp, m.compacted FROM ${T} m WHERE m.user_key = $1 AND m.session_id = $2 AND ${VISIBLE} ORDER BY m.id LIMIT 1`,
          [key, sessionId],
        )
      )[0];
      return r ? { id: Number(r.id), timestamp: Number(r.timestamp), compacted: Number(r.compacted) } : undefined;
    },
    async matchCandidates(step: IndexStep, q: NormalizedQuery, req: DiscoverRequest, limit: number) {
      const params: unknown[] = [];
      if (step === 'trigram') {
        // pg_trgm serves ILIKE '%x%' for patterns of three or more characters.
        const where = likeWhere(likeGroups(q), params, ['m.content']);
        const f = filters(req, params);
        return (
          await guarded(
            `SELECT ${COLS} ${FROM} WHERE m.searchable AND (${where}) AND ${f} ORDER BY ${order(req, undefined)} LIMIT ${limit}`,
            params,
          )
        ).map(candidate);
      }
      const text = tsqueryText(q, { bigrams: step === 'cjk', or: step === 'fts5_or' });
      if (!text) return [];
      params.push(text);
      const column = step === 'cjk' ? 'm.cjk' : 'm.words';
      const f = filters(req, params);
      const rank = `ts_rank_cd(${column}, to_tsquery('simple', $1))`;
      return (
        await guarded(
          `SELECT ${COLS} ${FROM} WHERE ${column} @@ to_tsquery('simple', $1) AND ${step === 'cjk' ? 'm.searchable AND ' : ''}${f}
           ORDER BY ${order(req, rank)} LIMIT ${limit}`,
          params,
        )
      ).map(candidate);
    },
    async likeCandidates(groups: LikeGroup[], req: DiscoverRequest, limit: number) {
      if (groups.length === 0) return [];
      const params: unknown[] = [];
      const where = likeWhere(groups, params, ['m.content', "coalesce(m.tool_name, '')", "coalesce(m.tool_calls, '')"]);
      const f = filters(req, params);
      try {
        return (
          await run(
            `SELECT ${COLS} ${FROM} WHERE (${where}) AND ${f} ORDER BY ${order(req, undefined)} LIMIT ${limit}`,
            params,
          )
        ).map(candidate);
      } catch (error) {
        if (error instanceof SearchFailure) throw error;
        throw new SearchFailure('storage_unavailable', String(error));
      }
    },
    async snippet(c, _step, _q, term) {
      const r = (
        await run(`SELECT left(content, 100000) AS c FROM ${T} WHERE user_key = $1 AND id = $2`, [key, c.id])
      )[0];
      const content = (r?.c as string | undefined) ?? '';
      const at = term ? content.toLowerCase().indexOf(term.toLowerCase()) : 0;
      const from = Math.max(0, at - 60);
      return markSnippet(content.slice(from, from + 240), term);
    },
    indexFailed: () => undefined,
  };
}
