// How far the runtime's token estimate is from what one provider counts, learned from that
// provider's own figures (the usage of successful calls, the counts in its overflow errors). Pure
// rules, and the corrections of the provider instances of this process.

/**
 * The correction of the runtime's token estimate for one provider instance.
 * @internal
 */
export interface TokenCorrection {
  /** Prompt tokens the provider counts per estimated token (1 or more: an estimate is never scaled down). */
  ratio: number;
  /**
   * The configured context window over the prompt limit the provider stated in an overflow error,
   * when that limit was smaller (1 otherwise).
   */
  windowScale: number;
  /**
   * Whether the provider refused a request as too large at least once: until then the corrected window is
   * a guess from reported usage (compaction aims at it, but a turn that only the configured window holds is
   * still sent); after, it is the limit the server enforces.
   */
  refused: boolean;
}

/**
 * Bounds and weights of the correction rules.
 * @internal
 */
export const TOKEN_CORRECTION = Object.freeze({
  /** No correction: the estimate as counted. */
  none: Object.freeze({ ratio: 1, windowScale: 1, refused: false }) as TokenCorrection,
  /** Largest ratio kept (a server's figure beyond it is taken as this). */
  maxRatio: 8,
  /** Weight of the newest successful call's ratio in the moving average. */
  smoothing: 0.3,
  /** Each overflow raises the ratio by at least this factor, so every retry compacts to a smaller budget. */
  overflowGrowth: 1.25,
  /** Margin over a lower bound (an overflow that stated no prompt size). */
  boundMargin: 1.05,
});

const clampRatio = (r: number) => Math.min(TOKEN_CORRECTION.maxRatio, Math.max(1, r));

/**
 * The correction after a successful model call: the ratio moves toward the provider's reported
 * prompt tokens over the runtime's estimate of the same request (a moving average, at least 1);
 * the window scale is kept.
 * @param previous - the correction before the call
 * @param estimatedTokens - the runtime's estimate of the request as sent
 * @param reportedTokens - the provider's `inputTokens + cacheReadTokens + cacheWriteTokens` (0 when it reported none)
 * @returns the new correction (the previous one when either figure is not positive)
 * @internal
 */
export function correctionAfterUsage(
  previous: TokenCorrection,
  estimatedTokens: number,
  reportedTokens: number,
): TokenCorrection {
  if (!(estimatedTokens > 0) || !(reportedTokens > 0)) return previous;
  const observed = reportedTokens / estimatedTokens;
  const ratio = clampRatio(previous.ratio + TOKEN_CORRECTION.smoothing * (observed - previous.ratio));
  return { ratio, windowScale: previous.windowScale, refused: previous.refused };
}

/** What an overflow error told, with the runtime's figures for the refused request. @internal */
export interface OverflowObservation {
  /** The runtime's estimate of the refused request. */
  estimatedTokens: number;
  /** The configured context window, in tokens. */
  windowTokens: number;
  /** The prompt size the server stated, if it did. */
  promptTokens?: number | undefined;
  /** The prompt limit the server stated, if it did. */
  limitTokens?: number | undefined;
}

/**
 * The correction after the provider refused a request as too large for its context window.
 *
 * @remarks
 * The server's limit is the one it stated, and in any case below the prompt size it stated (less a
 * 5% margin); a limit below the configured window sets the window scale (configured ÷ limit). The
 * ratio becomes the largest of: the stated prompt size over the estimate; without one, the limit
 * (stated, or the window as corrected so far) over the estimate with a 5% margin — the prompt was
 * larger than that; and the previous ratio raised by 25%, so that each overflow shrinks the budget
 * the next compaction aims at. Bounded by {@link TOKEN_CORRECTION}.
 *
 * @param previous - the correction before the refused call
 * @param overflow - the estimate, the window, and the server's counts
 * @returns the new correction
 * @internal
 */
export function correctionAfterOverflow(previous: TokenCorrection, overflow: OverflowObservation): TokenCorrection {
  const { estimatedTokens, windowTokens, promptTokens, limitTokens } = overflow;
  const stated = limitTokens !== undefined && limitTokens > 0 ? limitTokens : undefined;
  // The server refused `promptTokens`: whatever it stated, its limit is below that.
  const limit =
    promptTokens !== undefined && promptTokens > 0
      ? Math.min(stated ?? Number.POSITIVE_INFINITY, promptTokens / TOKEN_CORRECTION.boundMargin)
      : stated;
  const windowScale =
    limit !== undefined && limit < windowTokens
      ? Math.max(previous.windowScale, windowTokens / limit)
      : previous.windowScale;
  let observed = 0;
  if (estimatedTokens > 0) {
    if (promptTokens !== undefined && promptTokens > 0) observed = promptTokens / estimatedTokens;
    else {
      const limit = limitTokens ?? windowTokens / windowScale;
      observed = (limit / estimatedTokens) * TOKEN_CORRECTION.boundMargin;
    }
  }
  const ratio = clampRatio(Math.max(observed, previous.ratio * TOKEN_CORRECTION.overflowGrowth));
  return { ratio, windowScale, refused: true };
}

/**
 * What one estimated token stands for in the provider's window: `ratio × windowScale`. Budgets
 * divide the configured window by it (or multiply estimates by it).
 * @param correction - a correction
 * @returns the scale, 1 or more
 * @internal
 */
export function correctionScale(correction: TokenCorrection): number {
  return correction.ratio * correction.windowScale;
}

/** The corrections of the provider instances of this process. */
const corrections = new WeakMap<object, TokenCorrection>();

/**
 * The current correction of a provider instance ({@link TOKEN_CORRECTION}.none before any figure).
 * @param provider - the provider instance (the key; a new instance starts uncorrected)
 * @internal
 */
export function tokenCorrectionOf(provider: object): TokenCorrection {
  return corrections.get(provider) ?? TOKEN_CORRECTION.none;
}

/**
 * Records a successful call's usage against the estimate for a provider instance (see
 * {@link correctionAfterUsage}).
 * @returns the new correction
 * @internal
 */
export function observeUsage(provider: object, estimatedTokens: number, reportedTokens: number): TokenCorrection {
  const next = correctionAfterUsage(tokenCorrectionOf(provider), estimatedTokens, reportedTokens);
  corrections.set(provider, next);
  return next;
}

/**
 * Records an overflow error of a provider instance (see {@link correctionAfterOverflow}).
 * @returns the new correction
 * @internal
 */
export function observeOverflow(provider: object, overflow: OverflowObservation): TokenCorrection {
  const next = correctionAfterOverflow(tokenCorrectionOf(provider), overflow);
  corrections.set(provider, next);
  return next;
}
