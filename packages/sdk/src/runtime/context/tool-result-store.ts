import { LRUCache } from 'lru-cache';
import Type, { type Static } from 'typebox';
import { providerSafeTool } from '../../models/provider-schema';
import { MediaAgentError } from '../../core/errors';
import type { ModelTool } from '../../models/types';
import { SystemClock, type Clock } from '../../ports/clock';
import { RandomIdGenerator, type IdGenerator } from '../../ports/id-generator';
import {
  codePointToUnitIndex,
  indexCodePoints,
  takeEscapedPrefix,
  utf8ByteLength,
  type CodePointIndex,
} from './text-units';

/*
 * Large tool results: a result over the preview size
 * reaches the model as a preview plus `result_id` and `next_offset`; `read_tool_result` pages the
 * rest by Unicode code point without re-running the tool. Results live only in memory (never on
 * disk or in logs), per run, for a short time.
 */

/** Name of the built-in paging tool. @public */
export const READ_TOOL_RESULT_TOOL = 'read_tool_result';

/**
 * Defaults of {@link ToolResultStoreOptions}: 64 KiB preview, 1 MiB per stored result, 8 results and
 * 4 MiB per run, 15 minutes before expiry (docs/architecture.md#large-tool-results).
 * @public
 */
export const TOOL_RESULT_STORE_DEFAULTS = Object.freeze({
  /** 64 KiB: a result whose text is over this many UTF-8 bytes is stored and previewed. */
  previewBytes: 65_536,
  /** 1 MiB: a result over this many UTF-8 bytes is not stored (the model is told to narrow the query). */
  maxResultBytes: 1_048_576,
  /** 8 stored results per run; storing one more evicts the run's oldest. */
  maxResultsPerRun: 8,
  /** 4 MiB of stored results (UTF-8 bytes) per run; going over evicts the run's oldest. */
  maxBytesPerRun: 4_194_304,
  /** 15 minutes, counted from when the result was stored (reads do not extend it). */
  ttlMs: 900_000,
  /** 64 MiB over all runs, a process-wide safety bound (least recently used first). */
  maxTotalBytes: 67_108_864,
  /** 16 000 code points: default and maximum `limit` of one page. */
  maxPageCodePoints: 16_000,
  /** 16 384: a page's `JSON.stringify(text).length` (quotes included) stays within this. */
  pageBudgetChars: 16_384,
});

/**
 * Options of {@link ToolResultStore}. Every number is optional; defaults in {@link TOOL_RESULT_STORE_DEFAULTS}.
 * @public
 */
export interface ToolResultStoreOptions {
  /**
   * Preview size in UTF-8 bytes (default 65 536 = 64 KiB). A result whose text is over this many
   * bytes is stored; its preview is the longest prefix of whole code points whose JSON-escaped form
   * (`JSON.stringify(preview)`, quotes included) is at most this many UTF-8 bytes, so the preview
   * never makes the tool message larger than an inline result could be. Bytes, not characters,
   * because the cost to the model follows the bytes (a CJK character is 3 bytes, an emoji 4).
   */
  previewBytes?: number;
  /**
   * Largest storable result in UTF-8 bytes; larger ones are refused as `too_large`.
   * @defaultValue 1 048 576 = 1 MiB
   */
  maxResultBytes?: number;
  /**
   * Stored results kept per run; one more evicts the run's oldest.
   * @defaultValue 8
   */
  maxResultsPerRun?: number;
  /**
   * UTF-8 bytes of stored results kept per run; going over evicts the run's oldest.
   * @defaultValue 4 194 304 = 4 MiB
   */
  maxBytesPerRun?: number;
  /**
   * Lifetime of a stored result in ms, measured with {@link ToolResultStoreOptions.clock}; a result older than this is expired.
   * @defaultValue 900 000 = 15 minutes
   */
  ttlMs?: number;
  /**
   * UTF-8 bytes kept over all runs; the least recently used result of any run is dropped past it.
   * @defaultValue 64 MiB
   */
  maxTotalBytes?: number;
  /**
   * Default and maximum `limit` of one {@link ToolResultStore.read}, in code points.
   * @defaultValue 16 000
   */
  maxPageCodePoints?: number;
  /**
   * Budget of one page after JSON escaping: `JSON.stringify(page.text).length` (UTF-16 units, quotes included) is at most this; at least 16.
   * @defaultValue 16 384
   */
  pageBudgetChars?: number;
  /**
   * Time source for expiry; tests pass a `ManualClock`.
   * @defaultValue {@link SystemClock}
   */
  clock?: Clock;
  /**
   * Source of result ids; the default's ids look like `tr_<32 hex>`.
   * @defaultValue {@link RandomIdGenerator}
   */
  ids?: IdGenerator;
}

/** The result is small enough to go to the model as it is. @public */
export interface InlineToolResult {
  /** Discriminator. */
  kind: 'inline';
  /** The text, unchanged. */
  text: string;
}

/** The result was stored; the model gets a preview and pages the rest with `read_tool_result`. @public */
export interface StoredToolResult {
  /** Discriminator. */
  kind: 'stored';
  /** Id for `read_tool_result` (valid in this run only, until it expires or is evicted). */
  resultId: string;
  /** The tool that produced it. */
  tool: string;
  /** First code points of the text (see {@link ToolResultStoreOptions.previewBytes} for its size). */
  preview: string;
  /** Code point offset where the rest starts (= code points in `preview`); always `< totalChars`. */
  nextOffset: number;
  /** Code points in the whole text. */
  totalChars: number;
  /** UTF-8 bytes of the whole text. */
  totalBytes: number;
  /** When it expires, ms since the epoch by the store's clock. */
  expiresAt: number;
  /** Its lifetime in ms (the store's `ttlMs`). */
  ttlMs: number;
}

/** The result is over the per-result limit and was not stored. @public */
export interface TooLargeToolResult {
  /** Discriminator. */
  kind: 'too_large';
  /** For the model: the size, the limit, and that it must narrow the query and call the tool again. */
  message: string;
  /** UTF-8 bytes of the refused text. */
  totalBytes: number;
  /** The limit it went over, in UTF-8 bytes. */
  maxResultBytes: number;
}

/** What {@link ToolResultStore.offer} decided. @public */
export type ToolResultOffer = InlineToolResult | StoredToolResult | TooLargeToolResult;

/** One page of a stored result. Offsets and counts are Unicode code points. @public */
export interface ToolResultPage {
  /** The page text; `JSON.stringify(text).length` is within the store's page budget. */
  text: string;
  /** Code point offset the page starts at (the requested offset). */
  offset: number;
  /** Code point offset of the next page, or `null` when this page reaches the end. */
  nextOffset: number | null;
  /** Code points in the whole result. */
  totalChars: number;
}

/** Why a stored result is gone. */
/** Why a stored result is gone: aged out, evicted by a newer one, or released with its run. @public */
export type GoneReason = 'expired' | 'evicted' | 'released';

/** Codes of the errors {@link ToolResultStore.read} throws. @public */
export const TOOL_RESULT_ERROR_CODES = Object.freeze({
  expired: 'TOOL_RESULT_EXPIRED',
  notFound: 'TOOL_RESULT_NOT_FOUND',
  foreign: 'TOOL_RESULT_FOREIGN',
  range: 'TOOL_RESULT_RANGE',
} as const);

/**
 * `TOOL_RESULT_EXPIRED`: the id was issued to this run but the result is gone — older than the TTL
 * (15 minutes), evicted by the per-run limits (8 results / 4 MiB) or the process-wide bound, or
 * released with its run. The message tells the model to
 * call the original tool again, narrowed if it can.
 * @public
 */
export class ToolResultExpiredError extends MediaAgentError {
  /** @param resultId - the id asked for; @param reason - why it is gone; @param limits - the limits to quote */
  constructor(
    resultId: string,
    reason: GoneReason,
    limits: { ttlMs: number; maxResultsPerRun: number; maxBytesPerRun: number },
  ) {
    const why =
      reason === 'expired'
        ? `it expired (stored results are kept for ${formatDuration(limits.ttlMs)})`
        : reason === 'evicted'
          ? `it was dropped to make room (a run keeps at most ${limits.maxResultsPerRun} stored results and ${formatBytes(limits.maxBytesPerRun)}; the oldest go first)`
          : 'the stored results of this run were released';
    super(
      TOOL_RESULT_ERROR_CODES.expired,
      `result_id ${JSON.stringify(resultId)} can no longer be read: ${why}. Call the original tool again to get the data, with a narrower query if possible, then read the new result_id.`,
      { resultId, reason },
    );
  }
}

/**
 * `TOOL_RESULT_NOT_FOUND`: no stored result has this id (mistyped, never issued, or issued before
 * the process restarted — results are kept in memory only).
 * @public
 */
export class ToolResultNotFoundError extends MediaAgentError {
  /** @param resultId - the id asked for */
  constructor(resultId: string) {
    super(
      TOOL_RESULT_ERROR_CODES.notFound,
      `no stored tool result has result_id ${JSON.stringify(resultId)}. Use the result_id exactly as given in a truncated tool result of this run; if it is from an earlier session, call the original tool again.`,
      { resultId },
    );
  }
}

/**
 * `TOOL_RESULT_FOREIGN`: the id belongs to another run. Neither the content
 * nor its size, tool or owner is revealed.
 * @public
 */
export class ToolResultForeignError extends MediaAgentError {
  /** @param resultId - the id asked for */
  constructor(resultId: string) {
    super(
      TOOL_RESULT_ERROR_CODES.foreign,
      `result_id ${JSON.stringify(resultId)} belongs to another run and cannot be read here. Only result_ids returned to this run can be read; call the tool yourself to get the data.`,
      { resultId },
    );
  }
}

/**
 * `TOOL_RESULT_RANGE`: `offset` or `limit` is not usable (not an integer, negative, `limit < 1`, or
 * `offset` past the end). The message says what is allowed.
 * @public
 */
export class ToolResultRangeError extends MediaAgentError {
  /** @param message - what is wrong and what is allowed; @param details - structured facts */
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(TOOL_RESULT_ERROR_CODES.range, message, details);
  }
}

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

interface RunShelf {
  /** result id → bytes, oldest first. */
  ids: Map<string, number>;
  bytes: number;
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
  readonly limits: Readonly<Required<Omit<ToolResultStoreOptions, 'clock' | 'ids'>>>;
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
    const d = TOOL_RESULT_STORE_DEFAULTS;
    const limits = {
      previewBytes: options.previewBytes ?? d.previewBytes,
      maxResultBytes: options.maxResultBytes ?? d.maxResultBytes,
      maxResultsPerRun: options.maxResultsPerRun ?? d.maxResultsPerRun,
      maxBytesPerRun: options.maxBytesPerRun ?? d.maxBytesPerRun,
      ttlMs: options.ttlMs ?? d.ttlMs,
      maxTotalBytes: options.maxTotalBytes ?? d.maxTotalBytes,
      maxPageCodePoints: options.maxPageCodePoints ?? d.maxPageCodePoints,
      pageBudgetChars: options.pageBudgetChars ?? d.pageBudgetChars,
    };
    for (const [name, value] of Object.entries(limits)) {
      if (!Number.isSafeInteger(value) || value <= 0)
        throw new MediaAgentError(
          'OPTIONS_INVALID',
          `ToolResultStore option ${name} must be a positive integer; got ${String(value)}`,
          { option: name },
        );
    }
    const order: [keyof typeof limits, keyof typeof limits][] = [
      ['previewBytes', 'maxResultBytes'],
      ['maxResultBytes', 'maxBytesPerRun'],
      ['maxBytesPerRun', 'maxTotalBytes'],
    ];
    for (const [a, b] of order) {
      if (limits[a] > limits[b] || (a === 'previewBytes' && limits[a] === limits[b])) {
        throw new MediaAgentError(
          'OPTIONS_INVALID',
          `ToolResultStore option ${a} (${limits[a]}) must be ${a === 'previewBytes' ? 'below' : 'at most'} ${b} (${limits[b]})`,
          { option: a },
        );
      }
    }
    if (limits.pageBudgetChars < 16)
      throw new MediaAgentError('OPTIONS_INVALID', 'ToolResultStore option pageBudgetChars must be at least 16', {
        option: 'pageBudgetChars',
      });
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
    if (text.length <= previewBytes / 3 || utf8ByteLength(text) <= previewBytes) return { kind: 'inline', text };
    const index = indexCodePoints(text);
    if (index.bytes > maxResultBytes) {
      return {
        kind: 'too_large',
        message: tooLargeMessage(tool, index.bytes, maxResultBytes),
        totalBytes: index.bytes,
        maxResultBytes,
      };
    }
    this.#sweep();
    const shelf: RunShelf = this.#runs.get(runId) ?? { ids: new Map<string, number>(), bytes: 0 };
    while (
      shelf.ids.size > 0 &&
      (shelf.ids.size + 1 > maxResultsPerRun || shelf.bytes + index.bytes > maxBytesPerRun)
    ) {
      const oldest = shelf.ids.keys().next().value as string;
      this.#drop(oldest, 'evicted');
    }
    const resultId = this.#ids.next('tr');
    const storedAt = this.#clock.now();
    this.#cache.set(resultId, { runId, callId, tool, text, index, storedAt });
    this.#runs.set(runId, shelf);
    shelf.ids.set(resultId, index.bytes);
    shelf.bytes += index.bytes;
    const head = takeEscapedPrefix(text, 0, index.codePoints, previewBytes, 'bytes');
    return {
      kind: 'stored',
      resultId,
      tool,
      preview: text.slice(0, head.end),
      nextOffset: head.codePoints,
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
    if (!Number.isSafeInteger(offset) || offset < 0) {
      throw new ToolResultRangeError(
        `offset must be a whole number of characters ≥ 0 (use next_offset from the previous page); got ${String(offset)}`,
        { offset },
      );
    }
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new ToolResultRangeError(
        `limit must be a whole number of characters ≥ 1 (at most ${this.limits.maxPageCodePoints}); got ${String(limit)}`,
        { limit },
      );
    }
    const entry = this.#lookup(runId, resultId);
    const total = entry.index.codePoints;
    if (offset > total) {
      throw new ToolResultRangeError(
        `offset ${offset} is past the end: result_id ${JSON.stringify(resultId)} has ${total} characters (offsets 0–${total}).`,
        { offset, totalChars: total },
      );
    }
    const start = codePointToUnitIndex(entry.text, entry.index, offset);
    const take = takeEscapedPrefix(
      entry.text,
      start,
      Math.min(limit, this.limits.maxPageCodePoints),
      this.limits.pageBudgetChars,
      'units',
    );
    const next = offset + take.codePoints;
    return {
      text: entry.text.slice(start, take.end),
      offset,
      nextOffset: next < total ? next : null,
      totalChars: total,
    };
  }

  /**
   * Answers a `read_tool_result` call: checks the model's input, then {@link ToolResultStore.read}.
   * @param runId - the run asking
   * @param input - the call's arguments, `{ result_id, offset?, limit? }`
   * @returns the page
   * @throws {@link ToolResultNotFoundError} when `result_id` is missing or not a non-empty string; otherwise as {@link ToolResultStore.read}
   */
  readToolInput(runId: string, input: unknown): ToolResultPage {
    const args = (input ?? {}) as Partial<Record<string, unknown>>;
    const resultId = args.result_id;
    if (typeof resultId !== 'string' || resultId === '') throw new ToolResultNotFoundError(String(resultId ?? ''));
    const offset = args.offset ?? 0;
    const limit = args.limit ?? this.limits.maxPageCodePoints;
    return this.read(runId, resultId, offset as number, limit as number);
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

/** Input schema of `read_tool_result`. @public */
export const ReadToolResultInputSchema = Type.Object(
  {
    result_id: Type.String({ minLength: 1, description: 'The result_id given with a truncated tool result.' }),
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'Character (Unicode code point) offset to start at; pass next_offset from the previous answer. Default 0.',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: `Most characters (code points) to return; default and maximum ${TOOL_RESULT_STORE_DEFAULTS.maxPageCodePoints}. Pages may be shorter when the text needs much escaping.`,
      }),
    ),
  },
  { additionalProperties: false },
);

/** Input of `read_tool_result`. @public */
export type ReadToolResultInput = Static<typeof ReadToolResultInputSchema>;

/** The `read_tool_result` tool as offered to the model (schema in the form every provider family accepts, see `providerSafeTool`). @public */
export const READ_TOOL_RESULT_MODEL_TOOL: ModelTool = providerSafeTool({
  name: READ_TOOL_RESULT_TOOL,
  description:
    'Read more of a tool result that was too long to show at once. A truncated result gives result_id and next_offset; call this with them to get the next page (offsets count Unicode characters), and repeat with the returned next_offset until it is null. This does not re-run the tool. Results are readable only in this run and expire 15 minutes after the call.',
  inputSchema: ReadToolResultInputSchema as unknown as Record<string, unknown>,
});

/**
 * The fields the model sees for a stored result (snake_case, as in the tool protocol).
 * @public
 */
export interface StoredToolResultView {
  /** Always true: the text below is only the beginning. */
  truncated: true;
  /** Id for `read_tool_result`. */
  result_id: string;
  /** Code points in the whole result. */
  total_chars: number;
  /** Code point offset to continue from (= code points in `preview`). */
  next_offset: number;
  /** How to continue, in words. */
  how_to_continue: string;
  /** The first `next_offset` code points. */
  preview: string;
}

/**
 * What the model sees for a stored result: preview, `result_id`, `next_offset` and how to continue.
 * Pure. Metadata comes before the preview so it is read first.
 * @param stored - a `stored` offer
 * @returns the view; put it in a tool message as is, or use {@link formatStoredToolResult}
 * @public
 */
export function storedToolResultView(stored: StoredToolResult): StoredToolResultView {
  return {
    truncated: true,
    result_id: stored.resultId,
    total_chars: stored.totalChars,
    next_offset: stored.nextOffset,
    how_to_continue: `This ${stored.tool} result is too long to show at once: ${stored.totalChars} characters, the first ${stored.nextOffset} are in "preview". To read the rest without running the tool again, call ${READ_TOOL_RESULT_TOOL} with {"result_id": ${JSON.stringify(stored.resultId)}, "offset": ${stored.nextOffset}} and continue with each answer's next_offset until it is null. The result can be read only in this run and expires ${formatDuration(stored.ttlMs)} after the call.`,
    preview: stored.preview,
  };
}

/**
 * The tool-result text (JSON) the model sees for a stored result; `JSON.stringify` of
 * {@link storedToolResultView}. Its preview part is at most `previewBytes` UTF-8 bytes after escaping.
 * @param stored - a `stored` offer
 * @returns JSON text
 * @public
 */
export function formatStoredToolResult(stored: StoredToolResult): string {
  return JSON.stringify(storedToolResultView(stored));
}

/**
 * The output the model sees for a `read_tool_result` page. Pure.
 * @param resultId - the id read
 * @param page - the page from {@link ToolResultStore.read}
 * @returns `{ result_id, offset, next_offset, total_chars, note, text }`
 * @public
 */
export function toolResultPageView(
  resultId: string,
  page: ToolResultPage,
): { result_id: string; offset: number; next_offset: number | null; total_chars: number; note: string; text: string } {
  const count = (page.nextOffset ?? page.totalChars) - page.offset;
  const note =
    page.nextOffset === null
      ? `characters ${page.offset}–${page.totalChars} of ${page.totalChars}; this is the end of the result.`
      : `characters ${page.offset}–${page.offset + count} of ${page.totalChars}; call ${READ_TOOL_RESULT_TOOL} with offset ${page.nextOffset} for more.`;
  return {
    result_id: resultId,
    offset: page.offset,
    next_offset: page.nextOffset,
    total_chars: page.totalChars,
    note,
    text: page.text,
  };
}

function tooLargeMessage(tool: string, bytes: number, max: number): string {
  return `The ${tool} result is too large to keep: ${formatBytes(bytes)} (${bytes} bytes), over the ${formatBytes(max)} limit for one result, so it was not stored and cannot be paged. Narrow the query and call the tool again: add filters, ask for fewer items or fields, use a smaller page or limit, or target a specific id.`;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1_048_576) return `${+(bytes / 1_048_576).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

function formatDuration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} minutes`;
  return `${Math.round(ms / 1000)} seconds`;
}
