// The limits of the tool-result store: defaults, options, and the check that fills them in.
import { MediaAgentError } from '../../core/errors';
import type { Clock, SystemClock } from '../../ports/clock';
import type { IdGenerator, RandomIdGenerator } from '../../ports/id-generator';

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
 * Options of the tool-result store (`ToolResultStore`). Every number is optional; defaults in `TOOL_RESULT_STORE_DEFAULTS`.
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
   * Default and maximum `limit` of one read (`ToolResultStore.read`), in code points.
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

/** The store's limits with the defaults filled in. @public */
export type ToolResultLimits = Required<Omit<ToolResultStoreOptions, 'clock' | 'ids'>>;

/**
 * The limits of a store: the options' numbers, the defaults for the rest, checked.
 * @param options - the store's options
 * @returns the limits
 * @throws MediaAgentError `OPTIONS_INVALID` when a limit is not a positive integer or the limits contradict each other
 *   (`previewBytes < maxResultBytes ≤ maxBytesPerRun ≤ maxTotalBytes`, `pageBudgetChars ≥ 16`)
 * @internal
 */
export function resolveToolResultLimits(options: ToolResultStoreOptions): ToolResultLimits {
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
  return limits;
}
