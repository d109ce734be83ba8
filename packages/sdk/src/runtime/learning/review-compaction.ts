// A background review's own compaction: independent of the conversation's, it summarizes all but the
// latest messages once the review's request passes 85 % of the model's window.
import { costOf, priceFor } from '../../models/cost';
import type { TokenCounter } from '../../models/token-counter';
import type { ModelMessage, ModelProvider, ModelTool } from '../../models/types';
import type { ReviewCompactor, ReviewUsage } from '../../skills/review-run';
import {
  fallbackDigest,
  summarizedAssistantTurns,
  summaryMessage,
  summaryRequestMessages,
  turnBoundaries,
} from '../context/compaction';

/** A review's compaction settings. */
export interface ReviewCompactionOptions {
  /** The conversation's provider and model (summaries are written by the same model). */
  readonly provider: ModelProvider;
  /** Model id. */
  readonly model: string;
  /** Counts the request. */
  readonly counter: TokenCounter;
  /** The request's tools (they count against the window). */
  readonly tools: readonly ModelTool[];
  /** The model's context window in tokens; 160 000 when unknown. */
  readonly contextWindowTokens: number | undefined;
  /** Share of the window above which the review compacts. @defaultValue 0.85 */
  readonly thresholdShare?: number;
  /** Messages kept after the summary (the cut moves earlier to a turn boundary). @defaultValue 20 */
  readonly keepMessages?: number;
}

/** The window a review compacts against when the model's is unknown, in tokens. */
export const REVIEW_UNKNOWN_WINDOW_TOKENS = 160_000;

/**
 * The compaction of a background review: when the request (system messages, messages, tools) is over
 * `thresholdShare` of the window, the messages before the last `keepMessages` (cut at a turn boundary,
 * so no tool call is separated from its result) are summarized by the model — a deterministic digest
 * when that fails — and replaced by one summary message; leading system messages stay first. The
 * summary call's usage is returned to be counted as the review's.
 */
export function reviewCompactor(options: ReviewCompactionOptions): ReviewCompactor {
  const window = options.contextWindowTokens ?? REVIEW_UNKNOWN_WINDOW_TOKENS;
  const threshold = Math.floor(window * (options.thresholdShare ?? 0.85));
  const keep = options.keepMessages ?? 20;
  const price = priceFor(options.model);
  return async (messages, signal) => {
    if (options.counter.countRequest(messages, options.tools, options.model) <= threshold) return undefined;
    const lead = messages.findIndex((m) => m.role !== 'system');
    if (lead < 0) return undefined;
    const system = messages.slice(0, lead);
    const rest = messages.slice(lead);
    const cut = turnBoundaries(rest)
      .filter((b) => b <= rest.length - keep)
      .at(-1);
    if (cut === undefined || cut <= 0) return undefined;
    const older = rest.slice(0, cut);
    const usage = { modelCalls: 1, inputTokens: 0, outputTokens: 0, costUsd: 0 };
    let summary = '';
    let failure: string | undefined;
    try {
      const request = { model: options.model, messages: summaryRequestMessages(older) };
      let reported = false;
      for await (const event of options.provider.stream(request, signal)) {
        if (event.type === 'text_delta') summary += event.text;
        else if (event.type === 'usage') {
          reported = true;
          usage.inputTokens += event.usage.inputTokens;
          usage.outputTokens += event.usage.outputTokens;
          if (price) usage.costUsd += costOf(event.usage, price);
        } else if (event.type === 'error') failure = event.error.message;
      }
      if (!reported) usage.inputTokens = options.counter.countRequest(request.messages, [], options.model);
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    if (failure !== undefined || !summary.trim())
      summary = fallbackDigest(older, failure ?? 'the summarizer returned an empty text');
    const next: ModelMessage[] = [
      ...system,
      summaryMessage(summary, undefined, older.length, summarizedAssistantTurns(older)),
      ...rest.slice(cut),
    ];
    return { messages: next, usage: usage satisfies ReviewUsage };
  };
}
