/**
 * `@media-agent/sdk/history`: the conversation history archive below the host — the `HistoryStore`
 * port and the records it takes and returns, for a store of your own or code that reads an archive
 * directly; the per-user key, the `session_search` tool name and the `HISTORY_*` error classes.
 *
 * @remarks
 * A host turns history on with `createAgentHost({ history: { store } })` (`HistoryOptions`, in this
 * entry) and a store from `@media-agent/sdk/sqlite` (`SqliteHistoryStore`) or
 * `@media-agent/sdk/postgres` (`PostgresHistoryStore`); see docs/history.md.
 *
 * @example
 * ```ts
 * import type { HistoryAppend, HistoryAppendResult, HistoryStore } from '@media-agent/sdk/history';
 *
 * class MyHistoryStore implements HistoryStore {
 *   async append(userId: string, batch: HistoryAppend): Promise<HistoryAppendResult> { … }
 *   // markCompacted, markRewound, deleteSession, search, maintain, close
 * }
 * ```
 *
 * @packageDocumentation
 */
export type {
  HistoryAppend,
  HistoryAppendResult,
  HistoryIndexStatus,
  HistoryMaintenance,
  HistoryMaintenanceOptions,
  HistoryMessageInput,
  HistoryRole,
  HistorySessionInput,
  HistoryStore,
  SessionSearchResult,
  SessionSearchScope,
} from './history/history-store';
export { HistoryInputError, HistoryStoreError } from './history/errors';
export { historyUserKey } from './history/user-key';
export { SESSION_SEARCH_TOOL } from './runtime/tools/session-search';
// the host's `history` option
export type { HistoryOptions } from './runtime/agent-options';
