// The settings of compaction: defaults, options, and the token figures they give.
import type { TokenCounter } from '../../models/token-counter';
import type { ModelMessage, ModelTool } from '../../models/types';
import type { PinnedFacts } from './pinned-facts';
import { DEFAULT_CONTEXT_WINDOW_TOKENS } from './tool-discovery';

/**
 * Defaults of compaction. Every one is configurable through {@link CompactionOptions}.
 * @public
 */
export const COMPACTION_DEFAULTS = Object.freeze({
  /**
   * Share of the window above which older turns are summarized (docs/architecture.md#compaction).
   * @defaultValue 0.8
   */
  thresholdShare: 0.8,
  /** Share of the window the request should fall to after compaction (keeps compaction from running on every call). */
  targetShare: 0.5,
  /** Ceiling of the summary text, in tokens (also capped at 10% of the window). */
  summaryMaxTokens: 4096,
  /** Characters of one text part or tool result passed to the summarizer (longer ones are truncated for it). */
  summarizerPartChars: 4000,
  /**
   * Shortest tool-result text, in characters, that {@link dedupeRepeatedResults} replaces when repeated.
   * @defaultValue 512
   */
  dedupeMinChars: 512,
});

/**
 * Summarizes older messages, usually by calling the model (see {@link summaryRequestMessages}).
 * Throwing, or returning an empty text, selects the deterministic fallback ({@link fallbackDigest}).
 * @public
 */
export type Summarizer = (messages: readonly ModelMessage[], signal?: AbortSignal) => Promise<string>;

/**
 * Options of {@link assessCompaction} and {@link compact}. Token figures are in tokens; shares are
 * fractions of the window.
 * @public
 */
export interface CompactionOptions {
  /** Counts messages and tools. */
  counter: TokenCounter;
  /** Model id, selects the encoding. */
  model?: string;
  /**
   * The model's context window, in tokens.
   * @defaultValue {@link DEFAULT_CONTEXT_WINDOW_TOKENS}
   */
  contextWindowTokens?: number;
  /**
   * Compact when the request exceeds this share of the window.
   * @defaultValue 0.8
   */
  thresholdShare?: number;
  /**
   * After compaction the request should be at most this share; the latest turn is always kept.
   * @defaultValue 0.5
   */
  targetShare?: number;
  /** Ceiling of the summary text in tokens (default min(4096, 10% of the window)). */
  summaryMaxTokens?: number;
  /** The fixed part of every request: system layers (not compacted). */
  system?: readonly ModelMessage[];
  /** Tools sent with the request (their schemas count against the window). */
  tools?: readonly ModelTool[];
  /** Facts rendered verbatim into the summary message. */
  pinned?: PinnedFacts;
}

/**
 * The token figures of compaction for the given options: the window, the threshold, the target and the
 * summary ceiling (default min(4096, 10% of the window)), each rounded down.
 * @param options - the window and shares
 * @internal
 */
export function compactionBudget(
  options: Pick<CompactionOptions, 'contextWindowTokens' | 'thresholdShare' | 'targetShare' | 'summaryMaxTokens'>,
): { windowTokens: number; thresholdTokens: number; targetTokens: number; summaryMaxTokens: number } {
  const windowTokens = options.contextWindowTokens ?? DEFAULT_CONTEXT_WINDOW_TOKENS;
  return {
    windowTokens,
    thresholdTokens: Math.floor((options.thresholdShare ?? COMPACTION_DEFAULTS.thresholdShare) * windowTokens),
    targetTokens: Math.floor((options.targetShare ?? COMPACTION_DEFAULTS.targetShare) * windowTokens),
    summaryMaxTokens:
      options.summaryMaxTokens ?? Math.floor(Math.min(COMPACTION_DEFAULTS.summaryMaxTokens, 0.1 * windowTokens)),
  };
}
