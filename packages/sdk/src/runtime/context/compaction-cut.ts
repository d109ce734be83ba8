// Where compaction cuts a conversation, from token counts alone.
import { ContextTurnTooLargeError } from './turn-too-large';

/** Token figures a cut is chosen from. @internal */
export interface CutFigures {
  /** Tokens of the fixed part (system layers and tools). */
  fixedTokens: number;
  /** Tokens of an empty summary message carrying the pinned facts. */
  pinnedTokens: number;
  /** The window. */
  windowTokens: number;
  /** The target after compaction. */
  targetTokens: number;
  /** Ceiling of the summary text. */
  summaryMaxTokens: number;
}

/**
 * Chooses where to cut a conversation that is over the threshold: the earliest turn boundary after which the
 * request — fixed part, summary message at its budget, kept messages — fits the target, else the latest boundary
 * (only the latest turn is kept). The summary budget is what the window leaves, at most `summaryMaxTokens`.
 * @param messageTokens - tokens of each message, in order
 * @param boundaries - the turn boundaries, ascending (see {@link turnBoundaries})
 * @param figures - the fixed part, pinned facts, window, target and summary ceiling
 * @returns null when there is no boundary (one turn only, and it fits the window); else the cut, the summary
 *   budget and the request tokens expected after compaction
 * @throws {@link ContextTurnTooLargeError} when the latest turn with the fixed part (and the pinned facts, when
 *   there is anything to summarize) exceeds the window
 * @internal
 */
export function compactionCut(
  messageTokens: readonly number[],
  boundaries: readonly number[],
  figures: CutFigures,
): { cut: number; summaryBudgetTokens: number; expectedTokens: number } | null {
  const { fixedTokens, pinnedTokens, windowTokens, targetTokens, summaryMaxTokens } = figures;
  const n = messageTokens.length;
  const last = boundaries[boundaries.length - 1] ?? 0;
  // suffix[i] = tokens of messages[i..n)
  const suffix = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) suffix[i] = suffix[i + 1]! + messageTokens[i]!;
  const lastTurn = suffix[last]!;
  if (fixedTokens + (last > 0 ? pinnedTokens : 0) + lastTurn > windowTokens) {
    throw new ContextTurnTooLargeError({
      turnTokens: lastTurn,
      fixedTokens,
      pinnedTokens: last > 0 ? pinnedTokens : 0,
      windowTokens,
      from: last,
      to: n,
    });
  }
  if (last === 0) return null;
  const cut =
    boundaries.find((b) => fixedTokens + pinnedTokens + summaryMaxTokens + suffix[b]! <= targetTokens) ?? last;
  const room = windowTokens - (fixedTokens + pinnedTokens + suffix[cut]!);
  const summaryBudgetTokens = Math.max(0, Math.min(summaryMaxTokens, room));
  return { cut, summaryBudgetTokens, expectedTokens: fixedTokens + pinnedTokens + summaryBudgetTokens + suffix[cut]! };
}
