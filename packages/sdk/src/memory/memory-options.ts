import type { MemoryStore } from '../ports/memory-store';

/**
 * Stable memory settings of a host (`createAgentHost({ memory })`). Memory is off unless one of
 * `dataDir` or `store` is given. A `dataDir` that is not a string, a `store` without every `MemoryStore`
 * method, or a deadline that is not positive is `OPTIONS_INVALID` when the host is made.
 * @example
 * ```ts
 * createAgentHost({ memory: { dataDir: '/var/lib/media-agent/memory' } });
 * ```
 * @public
 */
export interface MemoryOptions {
  /** The folder of the default Markdown store (`MEMORY.md` there is global; `users/<key>/` per user). */
  dataDir?: string;
  /** Another store (replaces `dataDir`). */
  store?: MemoryStore;
  /**
   * Longest run of a `search_memory` regular expression, in ms (it runs on a worker thread).
   * @defaultValue 1000
   */
  regexDeadlineMs?: number;
}
