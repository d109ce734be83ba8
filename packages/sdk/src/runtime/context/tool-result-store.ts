import { LRUCache } from 'lru-cache';
import { SystemClock, type Clock } from '../../ports/clock';
import { RandomIdGenerator, type IdGenerator } from '../../ports/id-generator';
import { evictionsFor, type RunShelf } from './run-shelf';
import { indexCodePoints, type CodePointIndex } from './text-units';
import {
  ToolResultExpiredError,
  ToolResultForeignError,
  ToolResultNotFoundError,
  type GoneReason,
} from './tool-result-errors';
import { resolveToolResultLimits, type ToolResultLimits, type ToolResultStoreOptions } from './tool-result-limits';
import { fitsInline, previewOf, tooLargeResult, type ToolResultOffer } from './tool-result-offer';
import { checkPageOffset, checkPageRequest, pageOf, readToolResultArgs, type ToolResultPage } from './tool-result-page';

export {
  READ_TOOL_RESULT_MODEL_TOOL,
  READ_TOOL_RESULT_TOOL,
  ReadToolResultInputSchema,
  type ReadToolResultInput,
} from './read-tool-result-tool';
export {
  TOOL_RESULT_ERROR_CODES,
  ToolResultExpiredError,
  ToolResultForeignError,
  ToolResultNotFoundError,
  ToolResultRangeError,
  type GoneReason,
} from './tool-result-errors';
export { TOOL_RESULT_STORE_DEFAULTS, type ToolResultStoreOptions } from './tool-result-limits';
export type { InlineToolResult, StoredToolResult, TooLargeToolResult, ToolResultOffer } from './tool-result-offer';
export type { ToolResultPage } from './tool-result-page';
export {
  formatStoredToolResult,
  storedToolResultView,
  toolResultPageView,
  type StoredToolResultView,
} from './tool-result-views';

/*
 * Large tool results: a result over the preview size
 * reaches the model as a preview plus `result_id` and `next_offset`; `read_tool_result` pages the
 * rest by Unicode code point without re-running the tool. Results live only in memory (never on
 * disk or in logs), per run, for a short time. The rules live in the files beside this one; the store
 * keeps the results and their accounting.
 */

interface Entry {
  runId: string;
  callId: string;
  tool: string;
  text: string;
  index: CodePointIndex;
  storedAt: number;
}

interface Tombstone {
  runId: string;
  reason: GoneReason;
}

/**
 * Keeps large tool results of each run in memory for paging. Built on `lru-cache` with size accounting (UTF-8 bytes) and a TTL driven by the
 * injected {@link Clock}; per-run limits on top: at most `maxResultsPerRun` results and
 * `maxBytesPerRun` bytes, the run's oldest evicted first, other runs untouched (only the process-wide
 * `maxTotalBytes` bound, far above one run's share, can drop another run's result). Nothing is
 * written to disk or logs.
 *
 * Usage in the run driver: `offer` every tool result's text; send `inline` text as is, a `stored`
 * one as {@link formatStoredToolResult}, a `too_large` one as a failure carrying its message; answer
 * `read_tool_result` calls with {@link ToolResultStore.readToolInput} (or `read`) and
 * {@link toolResultPageView}; call `releaseRun` when a run ends.
 * @public
 */
export class ToolResultStore {
  /** The effective limits (defaults filled in). */
  readonly limits: Readonly<ToolResultLimits>;
  readonly #clock: Clock;
  readonly #ids: IdGenerator;
  readonly #cache: LRUCache<string, Entry>;
  readonly #runs = new Map<string, RunShelf>();
  readonly #gone: LRUCache<string, Tombstone>;
  #dropping: GoneReason | undefined;

  /**
   * @param options - limits, clock and id source; see {@link ToolResultStoreOptions}
   * @throws MediaAgentError `OPTIONS_INVALID` when a limit is not a positive integer or the limits contradict each other
   *   (`previewBytes < maxResultBytes ≤ maxBytesPerRun ≤ maxTotalBytes`, `pageBudgetChars ≥ 16`)
   */
  constructor(options: ToolResultStoreOptions = {}) {
    const limits = resolveToolResultLimits(options);
    this.limits = Object.freeze(limits);
    this.#clock = options.clock ?? new SystemClock();
    this.#ids = options.ids ?? new RandomIdGenerator();
    const clock = this.#clock;
    this.#cache = new LRUCache<string, Entry>({
      maxSize: limits.maxTotalBytes,
      // `offer` enforces the per-result limit (a caller may pass its own); the cache only bounds the total.
      maxEntrySize: limits.maxTotalBytes,
      sizeCalculation: (entry) => Math.max(1, entry.index.bytes),
      ttl: limits.ttlMs,
      // Read the injected clock on every check (no debounce timer), so a ManualClock drives expiry.
      ttlResolution: 0,
      perf: { now: () => clock.now() },
      updateAgeOnGet: false,
      dispose: (entry, id, reason) =>
        this.#forget(
          id,
          entry,
          this.#dropping ?? (reason === 'expire' ? 'expired' : reason === 'evict' ? 'evicted' : 'released'),
        ),
    });
    this.#gone = new LRUCache<string, Tombstone>({ max: 4096 });
  }

  /**
   * Decides how a tool result reaches the model and stores it when it is large.
   * @param runId - the run the result belongs to (only this run can read it back)
   * @param callId - the model's tool-call id (kept for diagnostics)
   * @param tool - the tool (capability) name
   * @param text - the full result text the model would otherwise get
   * @param limits - this result's own preview size and per-result limit, in UTF-8 bytes, instead of
   *   the store's (`execute_code` keeps up to 5 MB of output with a 50 KB preview); a result over
   *   `maxBytesPerRun` alone still evicts the run's older results first
   * @returns `inline` when `text` is at most `previewBytes` UTF-8 bytes; `too_large` (nothing stored)
   *   when it is over `maxResultBytes`; otherwise `stored`, with a preview of whole code points. Storing
   *   evicts this run's oldest results while the run would hold more than `maxResultsPerRun` results
   *   or `maxBytesPerRun` bytes.
   */
  offer(
    runId: string,
    callId: string,
    tool: string,
    text: string,
    limits: { previewBytes?: number; maxResultBytes?: number } = {},
  ): ToolResultOffer {
    const { maxResultsPerRun, maxBytesPerRun } = this.limits;
    const previewBytes = limits.previewBytes ?? this.limits.previewBytes;
    const maxResultBytes = limits.maxResultBytes ?? this.limits.maxResultBytes;
    if (fitsInline(text, previewBytes)) return { kind: 'inline', text };
    const index = indexCodePoints(text);
    if (index.bytes > maxResultBytes) return tooLargeResult(tool, index.bytes, maxResultBytes);
    this.#sweep();
    const shelf: RunShelf = this.#runs.get(runId) ?? { ids: new Map<string, number>(), bytes: 0 };
    for (const oldest of evictionsFor(shelf, index.bytes, maxResultsPerRun, maxBytesPerRun))
      this.#drop(oldest, 'evicted');
    const resultId = this.#ids.next('tr');
    const storedAt = this.#clock.now();
    this.#cache.set(resultId, { runId, callId, tool, text, index, storedAt });
    this.#runs.set(runId, shelf);
    shelf.ids.set(resultId, index.bytes);
    shelf.bytes += index.bytes;
    const { preview, nextOffset } = previewOf(text, index, previewBytes);
    return {
      kind: 'stored',
      resultId,
      tool,
      preview,
      nextOffset,
      totalChars: index.codePoints,
      totalBytes: index.bytes,
      expiresAt: storedAt + this.limits.ttlMs,
      ttlMs: this.limits.ttlMs,
    };
  }

  /**
   * Reads one page of a stored result, by Unicode code point (never splitting a surrogate pair).
   * @param runId - the run asking; must be the run the result was stored for
   * @param resultId - the id from a `stored` offer
   * @param offset - first code point to return (default 0); `0 ≤ offset ≤ totalChars`
   * @param limit - at most this many code points (default and maximum `maxPageCodePoints`, 16 000;
   *   larger values are lowered to it). The page is shortened further so that
   *   `JSON.stringify(page.text).length ≤ pageBudgetChars`; it always holds at least one code point
   *   unless `offset` is the end.
   * @returns the page; `nextOffset` is `null` once the page reaches the end
   * @throws {@link ToolResultRangeError} `TOOL_RESULT_RANGE` for a non-integer or negative `offset`, a
   *   non-integer or `< 1` `limit`, or `offset > totalChars` (checked after ownership, so a foreign id never reveals its size)
   * @throws {@link ToolResultForeignError} `TOOL_RESULT_FOREIGN` when the id belongs to another run (no content revealed)
   * @throws {@link ToolResultExpiredError} `TOOL_RESULT_EXPIRED` when it expired, was evicted or released
   * @throws {@link ToolResultNotFoundError} `TOOL_RESULT_NOT_FOUND` for an unknown id
   */
  read(runId: string, resultId: string, offset = 0, limit: number = this.limits.maxPageCodePoints): ToolResultPage {
    checkPageRequest(offset, limit, this.limits.maxPageCodePoints);
    const entry = this.#lookup(runId, resultId);
    checkPageOffset(resultId, offset, entry.index.codePoints);
    return pageOf(entry.text, entry.index, offset, limit, this.limits);
  }

  /**
   * Answers a `read_tool_result` call: checks the model's input, then {@link ToolResultStore.read}.
   * @param runId - the run asking
   * @param input - the call's arguments, `{ result_id, offset?, limit? }`
   * @returns the page
   * @throws {@link ToolResultNotFoundError} when `result_id` is missing or not a non-empty string; otherwise as {@link ToolResultStore.read}
   */
  readToolInput(runId: string, input: unknown): ToolResultPage {
    const { resultId, offset, limit } = readToolResultArgs(input, this.limits.maxPageCodePoints);
    return this.read(runId, resultId, offset, limit);
  }

  /**
   * Drops every stored result of a run (its end, a rebuilt conversation); later reads of its ids
   * get `TOOL_RESULT_EXPIRED`.
   * @param runId - the run
   * @returns how many results were dropped
   */
  releaseRun(runId: string): number {
    const shelf = this.#runs.get(runId);
    if (!shelf) return 0;
    const ids = [...shelf.ids.keys()];
    for (const id of ids) this.#drop(id, 'released');
    this.#runs.delete(runId);
    return ids.length;
  }

  /**
   * What a run holds now (expired results already swept).
   * @param runId - the run
   * @returns `results`: stored result ids, oldest first; `bytes`: their UTF-8 bytes
   */
  usage(runId: string): { results: string[]; bytes: number } {
    this.#sweep();
    const shelf = this.#runs.get(runId);
    return { results: shelf ? [...shelf.ids.keys()] : [], bytes: shelf?.bytes ?? 0 };
  }

  /** Finds an entry the run may read, or throws the matching typed error. */
  #lookup(runId: string, resultId: string): Entry {
    const entry = this.#cache.get(resultId); // a stale entry is deleted here (dispose → tombstone 'expired')
    if (entry) {
      if (entry.runId !== runId) throw new ToolResultForeignError(resultId);
      if (this.#clock.now() - entry.storedAt <= this.limits.ttlMs) return entry;
      this.#drop(resultId, 'expired');
    }
    const gone = this.#gone.get(resultId);
    if (gone) {
      if (gone.runId !== runId) throw new ToolResultForeignError(resultId);
      throw new ToolResultExpiredError(resultId, gone.reason, this.limits);
    }
    throw new ToolResultNotFoundError(resultId);
  }

  /** Expires results older than the TTL (lru-cache expires lazily; this also covers a clock at 0). */
  #sweep(): void {
    this.#cache.purgeStale();
    const now = this.#clock.now();
    for (const shelf of this.#runs.values()) {
      for (const id of [...shelf.ids.keys()]) {
        const entry = this.#cache.peek(id, { allowStale: true });
        if (entry && now - entry.storedAt > this.limits.ttlMs) this.#drop(id, 'expired');
      }
    }
  }

  /** Deletes one result, recording why. */
  #drop(id: string, reason: GoneReason): void {
    this.#dropping = reason;
    try {
      if (!this.#cache.delete(id)) {
        const owner = [...this.#runs.entries()].find(([, s]) => s.ids.has(id));
        if (owner) this.#forget(id, undefined, reason, owner[0]);
      }
    } finally {
      this.#dropping = undefined;
    }
  }

  /** Removes a result from its run's shelf and leaves a tombstone (run id and reason only, no content). */
  #forget(id: string, entry: Entry | undefined, reason: GoneReason, runId = entry?.runId): void {
    if (runId === undefined) return;
    const shelf = this.#runs.get(runId);
    const bytes = shelf?.ids.get(id);
    if (shelf && bytes !== undefined) {
      shelf.ids.delete(id);
      shelf.bytes -= bytes;
      if (shelf.ids.size === 0) this.#runs.delete(runId);
    }
    this.#gone.set(id, { runId, reason });
  }
}
