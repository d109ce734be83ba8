// The runtime's compaction, attached as a middleware.
import { MediaAgentError } from '../../core/errors';
import type { TokenCounter } from '../../models/token-counter';
import type { ModelMessage } from '../../models/types';
import { compact, assessCompaction, compactionTotals, type PinnedFacts } from '../context/compaction';
import { correctionScale, TOKEN_CORRECTION, type TokenCorrection } from '../context/token-correction';
import { RUNTIME_SYSTEM_PROMPT } from '../system-prompt';
import type { ModelRequestContext, RunMiddleware, RunStepContext } from './run-middleware';

/** What {@link compactionMiddleware} needs. @internal */
export interface CompactionMiddlewareOptions {
  /** Token counting. */
  counter: TokenCounter;
  /** Model id (selects the encoding). */
  model: string;
  /** The model's context window in tokens. */
  contextWindowTokens: number;
  /** Compact above this share of the window (0 < share < 1). */
  thresholdShare: number;
  /**
   * The correction learned from the provider's own counts, read before each request (see
   * `runtime/context/token-correction.ts`): the window is divided by its scale. Default: none.
   */
  tokenCorrection?: () => TokenCorrection;
  /** Facts that survive every compaction (the checklist, unknown writes, open approvals) of a run; read only when a compaction is due. */
  pinned: (runId: string) => Promise<PinnedFacts>;
  /**
   * Writes the summary of `messages` (normally a model call, whose usage it hands to `charge`: it is
   * added to the run's); compaction falls back to a deterministic digest when it throws. `run` is the run
   * compacted (whose owner's spending budgets the call is reserved against, docs/budgets.md).
   */
  summarize: (
    messages: readonly ModelMessage[],
    signal: AbortSignal | undefined,
    charge: RunStepContext['chargeUsage'],
    run: RunStepContext['run'],
  ) => Promise<string>;
}

/**
 * Compaction as a {@link RunMiddleware} named `compaction`:
 * before a model request whose estimate (runtime system prompt, the drive's base tools, the working
 * conversation) is over the threshold, the older turns are summarized and replaced in the working
 * conversation (never splitting a call from its result; the checklist, unknown writes and open
 * approvals pinned into the summary; every message stays in storage). It sets `requestTokens` for
 * the middleware after it. The window is the configured one divided by `tokenScale` (the provider's
 * own counts over the estimate), so a provider that counts more, or refused a request as too large,
 * gets compacted sooner and to less. When even the latest turn does not fit the window the run ends
 * `failed` with `CONTEXT_TURN_TOO_LARGE` — the corrected window when the provider has refused a request as too
 * large, else the configured one (a correction learned from reported usage alone is a guess, not a limit).
 * @param options - counter, model, window, threshold, pinned facts, summarizer
 * @returns the middleware
 * @internal
 */
export function compactionMiddleware(options: CompactionMiddlewareOptions): RunMiddleware {
  const system = [{ role: 'system' as const, content: RUNTIME_SYSTEM_PROMPT }];
  /** Compacts the working conversation for a window, when due; sets `requestTokens`. */
  const compactFor = async (ctx: ModelRequestContext, contextWindowTokens: number): Promise<void> => {
    const base = {
      counter: options.counter,
      model: options.model,
      contextWindowTokens,
      thresholdShare: options.thresholdShare,
      system,
      tools: ctx.tools,
    };
    // Below the threshold (the common case) the assessment is `below_threshold`: its total is all that is needed.
    const totals = compactionTotals(ctx.messages, base);
    if (totals.totalTokens <= totals.thresholdTokens) {
      ctx.requestTokens = totals.totalTokens;
      return;
    }
    // Pinned facts cost storage reads: gather them only when a compaction is due.
    const assessment = assessCompaction(ctx.messages, base);
    if (!assessment.needed) {
      ctx.requestTokens = assessment.totalTokens; // what `compact` reports when it does nothing
      return;
    }
    const result = await compact(ctx.messages, {
      ...base,
      pinned: await options.pinned(ctx.run.id),
      summarize: (older, signal) => options.summarize(older, signal, ctx.chargeUsage, ctx.run),
      signal: ctx.signal,
    });
    if (result.summarySource !== 'none') ctx.compactHistory(result.messages[0]!, result.messages.length - 1);
    ctx.requestTokens = result.tokensAfter;
  };
  const turnTooLarge = (error: unknown): error is MediaAgentError =>
    error instanceof MediaAgentError && error.code === 'CONTEXT_TURN_TOO_LARGE';
  return {
    name: 'compaction',
    async beforeModelRequest(ctx) {
      // The window in the runtime's estimate: smaller when the provider counts more than the estimate.
      const correction = options.tokenCorrection?.() ?? TOKEN_CORRECTION.none;
      const scale = Math.max(1, correctionScale(correction));
      try {
        await compactFor(ctx, Math.floor(options.contextWindowTokens / scale));
        return;
      } catch (error) {
        if (!turnTooLarge(error)) throw error;
        // A window corrected from reported usage alone is a guess: the configured window stays the limit until
        // the provider refuses a request as too large.
        if (scale === 1 || correction.refused) return ctx.failRun(error.code, error.message);
      }
      try {
        await compactFor(ctx, options.contextWindowTokens);
      } catch (error) {
        if (turnTooLarge(error)) return ctx.failRun(error.code, error.message);
        throw error;
      }
    },
  };
}
