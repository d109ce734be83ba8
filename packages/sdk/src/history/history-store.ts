// The history store port: a per-user archive of conversation messages with session search.
import type { JsonValue } from '../core/records';

/** Role of an archived message. @public */
export type HistoryRole = 'user' | 'assistant' | 'tool';

/**
 * One message to archive. Content is stored whole (never truncated); the caller has already
 * redacted it and kept only its text parts.
 * @public
 */
export interface HistoryMessageInput {
  /** Stable id of the message within its session (1–255 characters); a retried append with the same id is a no-op. */
  uid: string;
  /** `user`, `assistant` or `tool`. */
  role: HistoryRole;
  /** The full text (images and audio never stored). */
  content: string;
  /** When it was said, epoch ms (default: the store's clock). */
  timestamp?: number;
  /** For a tool result: the call it answers. */
  toolCallId?: string;
  /** For a tool result: the tool's name. */
  toolName?: string;
  /** For an assistant turn: its tool calls as JSON text (redacted arguments). */
  toolCalls?: string;
  /** For a tool result: `ok`, `error` or `unknown`. */
  toolStatus?: string;
}

/** Metadata of the session a batch belongs to; upserted (a non-empty title or model wins). @public */
export interface HistorySessionInput {
  /** Session id (1–255 characters), e.g. the run id. */
  id: string;
  /**
   * Where it happened: `chat`, `web`, a channel name, `cron`, `subagent`, `tool` or `kanban`.
   * `subagent`, `tool` and `kanban` sessions are never shown; `cron` ranks after the others. Fixed
   * by the first append.
   * @defaultValue `chat`
   */
  source?: string;
  /** Title (e.g. the goal). */
  title?: string;
  /** Model id. */
  model?: string;
  /** Start, epoch ms (default: the first append's time). Time-range filters apply to it. */
  startedAt?: number;
  /** The session this one continues (its lineage parent), or null. */
  parentSessionId?: string | null;
  /** Why the session ended, e.g. `compression` or `session_reset`, or null while live. */
  endReason?: string | null;
}

/** A batch of at most 100 messages of one session. @public */
export interface HistoryAppend {
  /** The session (upserted with the messages, in one transaction). */
  session: HistorySessionInput;
  /** The messages, in order (at most 100). */
  messages: readonly HistoryMessageInput[];
}

/** What an append did. @public */
export interface HistoryAppendResult {
  /** Messages newly stored (retried ones are not counted). */
  appended: number;
  /** True when the session is deleted (tombstoned): the batch was dropped. */
  dropped: boolean;
}

/** Whether each search index is built and complete. @public */
export interface HistoryIndexStatus {
  /** The word index (unicode61, BM25). */
  messages_fts: boolean;
  /** The trigram index (substrings of three or more characters). */
  messages_fts_trigram: boolean;
  /** The CJK bigram index (substrings of two or more CJK letters). */
  messages_fts_cjk: boolean;
}

/** Options of one maintenance pass. @public */
export interface HistoryMaintenanceOptions {
  /** Rows per backfill step (1–2000). @defaultValue 500 */
  batchSize?: number;
  /** Backfill steps at most in this pass. @defaultValue unlimited (until every index is complete) */
  maxSteps?: number;
}

/** What a maintenance pass did. @public */
export interface HistoryMaintenance {
  /** True when an index is still being backfilled (run maintenance again). */
  pending: boolean;
  /** Index state after the pass. */
  index_status: HistoryIndexStatus;
  /** Sessions deleted by retention in this pass. */
  expired_sessions: number;
}

/**
 * The result of a session search: JSON for the model. `success:false` results carry `error`
 * (`query_timeout`, `query_unavailable`, `storage_unavailable`, `session_not_found`,
 * `anchor_not_in_history`, `anchor_not_in_session`), `complete:false` when the search did not finish
 * (never reported as "no match"), and a `hint`. Every result names `index_status`; discovery
 * results also name the `search_path` (`fts5`, `fts5_or`, `cjk`, `trigram`, `like`, `empty`) and
 * the `ranking`.
 * @public
 */
export interface SessionSearchResult {
  /** False when the search failed or did not finish. */
  success: boolean;
  /** `discover`, `read`, `scroll` or `browse` (absent on input errors). */
  mode?: 'discover' | 'read' | 'scroll' | 'browse';
  /** The rest of the result (results, messages, counts, hints). */
  [field: string]: JsonValue | undefined;
}

/** What the host binds to a search (never the model). @public */
export interface SessionSearchScope {
  /** The session the search runs in: its lineage is excluded (its content is in the live context). */
  currentSessionId?: string;
}

/**
 * A per-user archive of conversation history with `session_search`.
 *
 * @remarks
 * Every call names a person as `user:<id>` or the bare `<id>`: both are the same person and reach the
 * same archive (the SDK's stores apply `personKey`, see docs/history.md#whose-history); another actor
 * kind (`agent:`, `apikey:`, `system:`), an empty or wrong-typed id is refused with `PERSON_ID_INVALID`
 * before any storage access. Users never see each other's sessions. Deleted sessions are tombstoned: a late append cannot bring them back.
 * History is evidence of what was said, never authorisation or proof of live state.
 * @public
 */
export interface HistoryStore {
  /**
   * Archives a batch (session, messages and index changes in one transaction). A deleted session
   * drops the batch silently.
   * @throws `HISTORY_INPUT_INVALID` for a malformed batch (nothing written)
   */
  append(userId: string, batch: HistoryAppend): Promise<HistoryAppendResult>;
  /**
   * Marks messages as compacted out of the live context (they stay searchable).
   * @returns how many rows changed
   */
  markCompacted(userId: string, sessionId: string, uids: readonly string[]): Promise<number>;
  /**
   * Marks messages as rewound (hidden everywhere, e.g. an undone turn).
   * @returns how many rows changed
   */
  markRewound(userId: string, sessionId: string, uids: readonly string[]): Promise<number>;
  /**
   * Deletes a session: tombstone, messages (and their index entries) and the session, in one transaction.
   * @returns true when the session existed
   */
  deleteSession(userId: string, sessionId: string): Promise<boolean>;
  /**
   * Runs `session_search` for a user: one of the four call shapes chosen from `input` (see the
   * `session_search` tool).
   * @throws `HISTORY_INPUT_INVALID` for invalid input (before any storage access)
   */
  search(userId: string, input: unknown, scope?: SessionSearchScope): Promise<SessionSearchResult>;
  /** Backfills indexes being built and applies retention for one user. */
  maintain(userId: string, options?: HistoryMaintenanceOptions): Promise<HistoryMaintenance>;
  /** Closes connections and worker threads. */
  close(): Promise<void>;
}
