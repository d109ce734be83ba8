// Context accounting and compaction:
// older turns are summarized above a threshold, a tool call never leaves its result, pinned facts
// survive verbatim, a turn too large for the window is a typed error, repeated long results are
// replaced by a reference to the first. Each rule lives in the file named after it beside this one;
// here the assessment and the compaction put them in order.
import { MediaAgentError } from '../../core/errors';
import { MESSAGE_OVERHEAD_TOKENS } from '../../models/token-counter';
import type { ModelMessage } from '../../models/types';
import { compactionCut } from './compaction-cut';
import { compactionBudget, type CompactionOptions, type Summarizer } from './compaction-settings';
import { fallbackDigest } from './fallback-digest';
import { fitTokens } from './fit-tokens';
import { fixedPartTokens, messagesTokens, messageTokens } from './request-tokens';
import { summarizedAssistantTurns, summaryMessage } from './summary-message';
import { turnBoundaries } from './turn-boundaries';

export { COMPACTION_DEFAULTS, type CompactionOptions, type Summarizer } from './compaction-settings';
export { fallbackDigest } from './fallback-digest';
export { renderPinnedFacts, type PinnedFacts } from './pinned-facts';
export { dedupeRepeatedResults } from './repeated-tool-results';
export { estimateRequestTokens } from './request-tokens';
export { COMPACTION_SUMMARY_PROMPT, summaryRequestMessages } from './summary-request';
export { isSummaryMessage, SUMMARY_MARKER, summarizedAssistantTurns, summaryMessage } from './summary-message';
export { ContextTurnTooLargeError } from './turn-too-large';
export { turnBoundaries } from './turn-boundaries';

/**
 * What {@link assessCompaction} decided.
 * @public
 */
export interface CompactionAssessment {
  /** True when older turns should be summarized now. */
  needed: boolean;
  /** `below_threshold`; `over_threshold` (compact); `no_boundary` (over the threshold but one turn only — it still fits the window). */
  reason: 'below_threshold' | 'over_threshold' | 'no_boundary';
  /** The window, in tokens. */
  windowTokens: number;
  /** The threshold, in tokens. */
  thresholdTokens: number;
  /** The target after compaction, in tokens. */
  targetTokens: number;
  /** Tokens of the whole request now (system, tools, messages). */
  totalTokens: number;
  /** Tokens of the fixed part (system layers and tools). */
  fixedTokens: number;
  /** Messages `[0, cut)` are summarized, `[cut, n)` kept verbatim; 0 when nothing is. Always a turn boundary. */
  cut: number;
  /** The messages to summarize. */
  summarize: ModelMessage[];
  /** The messages kept verbatim. */
  keep: ModelMessage[];
  /** Tokens the summary text may use in this compaction. */
  summaryBudgetTokens: number;
  /** Estimated request tokens after compaction (fixed + summary message at its budget + kept). */
  expectedTokens: number;
}

/**
 * Decides whether and where to compact (pure apart from token counting).
 *
 * @remarks
 * Message objects are treated as immutable: their token counts are memoized per object.
 * Accounting: system layers, tools and messages counted with the {@link TokenCounter}, as sent (before
 * {@link dedupeRepeatedResults}, so a conservative figure). Under the threshold nothing happens. Over
 * it, the cut is the earliest turn boundary ({@link turnBoundaries}) after which the request —
 * fixed part, summary message at its budget, kept messages — fits the target; when none does, the
 * latest boundary (only the latest turn is kept).
 *
 * @param messages - the conversation without the system prompt (an earlier summary message may lead it)
 * @param options - counter, window, shares, fixed part, pinned facts
 * @returns the assessment
 * @throws {@link ContextTurnTooLargeError} (`CONTEXT_TURN_TOO_LARGE`) when over the threshold and the
 *   latest turn with the fixed part and the pinned facts exceeds the window
 * @public
 */
export function assessCompaction(messages: readonly ModelMessage[], options: CompactionOptions): CompactionAssessment {
  const { counter, model } = options;
  const r = compactionBudget(options);
  const fixedTokens = fixedTokensOf(options);
  const per = messages.map((m) => messageTokens(counter, m, model));
  const totalTokens = fixedTokens + per.reduce((a, b) => a + b, 0);
  const base = {
    windowTokens: r.windowTokens,
    thresholdTokens: r.thresholdTokens,
    targetTokens: r.targetTokens,
    totalTokens,
    fixedTokens,
  };
  const none = (reason: CompactionAssessment['reason']): CompactionAssessment => ({
    ...base,
    needed: false,
    reason,
    cut: 0,
    summarize: [],
    keep: [...messages],
    summaryBudgetTokens: 0,
    expectedTokens: totalTokens,
  });
  if (totalTokens <= r.thresholdTokens) return none('below_threshold');

  const pinnedTokens = messageTokens(counter, summaryMessage('', options.pinned, 0), model);
  const chosen = compactionCut(per, turnBoundaries(messages), { ...r, fixedTokens, pinnedTokens });
  if (!chosen) return none('no_boundary');
  const { cut, summaryBudgetTokens, expectedTokens } = chosen;
  return {
    ...base,
    needed: true,
    reason: 'over_threshold',
    cut,
    summarize: messages.slice(0, cut),
    keep: messages.slice(cut),
    summaryBudgetTokens,
    expectedTokens,
  };
}

/** Tokens of the fixed part of a request (system layers and tools), as {@link assessCompaction} counts them. */
function fixedTokensOf(options: CompactionOptions): number {
  return options.system?.length || options.tools?.length
    ? fixedPartTokens(options.counter, options.system ?? [], options.tools ?? [], options.model)
    : MESSAGE_OVERHEAD_TOKENS;
}

/**
 * The request's size and the threshold, as {@link assessCompaction} computes them, without the rest of the
 * assessment: when `totalTokens` is at most `thresholdTokens` the assessment is `below_threshold` (nothing to
 * do), which a caller asking before every model call can learn without copying the conversation.
 * @param messages - the conversation without the system prompt
 * @param options - counter, window, shares, fixed part
 * @returns the request's tokens and the threshold
 * @internal
 */
export function compactionTotals(
  messages: readonly ModelMessage[],
  options: CompactionOptions,
): { totalTokens: number; thresholdTokens: number } {
  return {
    totalTokens: fixedTokensOf(options) + messagesTokens(options.counter, messages, options.model),
    thresholdTokens: compactionBudget(options).thresholdTokens,
  };
}

/**
 * The result of {@link compact}.
 * @public
 */
export interface CompactionResult {
  /** The new conversation: `[summary message, ...kept]`, or the input unchanged when no compaction was needed. */
  messages: ModelMessage[];
  /** The assessment it followed. */
  assessment: CompactionAssessment;
  /** Where the summary came from: `model`, `fallback` (the summarizer failed), or `none` (not compacted). */
  summarySource: 'model' | 'fallback' | 'none';
  /** Why the fallback was used. */
  fallbackReason?: string;
  /** Request tokens after compaction (system, tools, new messages), counted; pass it to `ToolDiscovery.toolsForNextCall({ requestTokens })`. */
  tokensAfter: number;
}

/**
 * Compacts a conversation when it is over the threshold: summarizes `assessment.summarize` with
 * `summarize` (the deterministic {@link fallbackDigest} when it throws or returns nothing) and
 * returns `[summaryMessage, ...kept]`. Pinned facts go into the summary message verbatim; the summary
 * text is cut to its token budget.
 *
 * @remarks
 * The result is the new working history: keep it (the originals stay in storage) so the next call
 * does not summarize again. Apply {@link dedupeRepeatedResults} to each outbound request, not to the
 * stored history.
 *
 * @param messages - the conversation without the system prompt
 * @param options - as {@link assessCompaction}, plus the summarizer and an abort signal
 * @returns the new conversation and what happened
 * @throws {@link ContextTurnTooLargeError} (`CONTEXT_TURN_TOO_LARGE`) as {@link assessCompaction}
 * @public
 */
export async function compact(
  messages: readonly ModelMessage[],
  options: CompactionOptions & { summarize: Summarizer; signal?: AbortSignal },
): Promise<CompactionResult> {
  const assessment = assessCompaction(messages, options);
  const count = (list: readonly ModelMessage[]) =>
    assessment.fixedTokens + list.reduce((sum, m) => sum + messageTokens(options.counter, m, options.model), 0);
  if (!assessment.needed)
    return { messages: [...messages], assessment, summarySource: 'none', tokensAfter: assessment.totalTokens };
  let summary = '';
  let fallbackReason: string | undefined;
  try {
    summary = (await options.summarize(assessment.summarize, options.signal)).trim();
    if (!summary) fallbackReason = 'the summarizer returned an empty text';
  } catch (error) {
    fallbackReason =
      error instanceof Error
        ? `${error instanceof MediaAgentError ? `${error.code}: ` : ''}${error.message}`
        : String(error);
  }
  if (fallbackReason !== undefined) summary = fallbackDigest(assessment.summarize, fallbackReason);
  summary = fitTokens(options.counter, options.model, summary, assessment.summaryBudgetTokens);
  const next = [
    summaryMessage(summary, options.pinned, assessment.cut, summarizedAssistantTurns(assessment.summarize)),
    ...assessment.keep,
  ];
  return {
    messages: next,
    assessment,
    summarySource: fallbackReason === undefined ? 'model' : 'fallback',
    ...(fallbackReason !== undefined ? { fallbackReason } : {}),
    tokensAfter: count(next),
  };
}
