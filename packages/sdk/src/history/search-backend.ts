// What the session search engine needs of a store: rows, sessions and the candidate queries of each
// route. SQLite and PostgreSQL implement it; the engine does the routing, the walk and the windows.
import type { HistoryIndexStatus } from './history-store';
import type { MessageRow } from './message-view';
import type { LikeGroup, NormalizedQuery } from './search-query';
import type { SessionSearchRequest } from './search-request';

/** A value or a promise of it (SQLite answers synchronously, PostgreSQL does not). */
export type Awaitable<T> = T | Promise<T>;

/** A discovery request. */
export type DiscoverRequest = Extract<SessionSearchRequest, { mode: 'discover' }>;

/** An index route (everything but LIKE). */
export type IndexStep = 'fts5' | 'fts5_or' | 'cjk' | 'trigram';

/** A candidate message of a discovery (ids and metadata; the snippet is made for hits only). */
export interface Candidate {
  id: number;
  session_id: string;
  role: string;
  timestamp: number;
  compacted: number;
  source: string;
  snippet?: string;
  matched_role?: string;
}

/** A session row. */
export interface SessionRow {
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

/** A search that did not finish: reported as `complete:false`, never as "no match". */
export class SearchFailure extends Error {
  /**
   * @param error - `query_timeout`, `query_unavailable` or `storage_unavailable`
   * @param message - the underlying reason (not shown to the model)
   */
  constructor(
    readonly error: 'query_timeout' | 'query_unavailable' | 'storage_unavailable',
    message: string,
  ) {
    super(message);
  }
}

/** One user's history as the engine reads it. Rows are visible when `active = 1 OR compacted = 1`. */
export interface SearchBackend {
  /** `bm25` or `ts_rank_cd`: how index routes rank. */
  readonly ranking: string;
  /** Which indexes are built and complete. */
  indexStatus(): Awaitable<HistoryIndexStatus>;
  /** Percent of the slowest index backfill in progress, or undefined. */
  rebuildPercent(): Awaitable<number | undefined>;
  /** A session (hidden ones included), or undefined. */
  session(id: string): Awaitable<SessionRow | undefined>;
  /** Ids and roles of a session's visible messages, in id order. */
  visibleRows(sessionId: string): Awaitable<{ id: number; role: string }[]>;
  /** Whole rows by id. */
  rowsById(ids: number[]): Awaitable<MessageRow[]>;
  /** A visible message's session, or undefined. */
  visibleMessage(id: number): Awaitable<{ id: number; session_id: string } | undefined>;
  /** Shown sessions by `last_active` descending. */
  recentSessions(limit: number): Awaitable<SessionRow[]>;
  /** The first visible user message of a session (else any), or ''. */
  preview(sessionId: string): Awaitable<string>;
  /** Sessions titled `<title> #…` (newest first, at most 50) and the newest titled exactly `<title>`. */
  titled(title: string): Awaitable<{ continuations: SessionRow[]; exact: SessionRow | undefined }>;
  /** The first visible message of a session. */
  firstVisible(sessionId: string): Awaitable<{ id: number; timestamp: number; compacted: number } | undefined>;
  /** At most `limit` candidates of an index route; throws when the route cannot run. */
  matchCandidates(step: IndexStep, q: NormalizedQuery, req: DiscoverRequest, limit: number): Awaitable<Candidate[]>;
  /** At most `limit` candidates of a LIKE scan under the deadline; throws {@link SearchFailure} when it did not finish. */
  likeCandidates(groups: LikeGroup[], req: DiscoverRequest, limit: number): Promise<Candidate[]>;
  /** The snippet of a hit on a route. */
  snippet(c: Candidate, step: IndexStep | 'like', q: NormalizedQuery, term: string): Awaitable<string>;
  /** An index route failed: a broken index is scheduled for a rebuild here. */
  indexFailed(step: IndexStep, error: unknown): void;
}
