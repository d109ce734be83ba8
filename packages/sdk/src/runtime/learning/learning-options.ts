// The `learning` option of a host: background learning reviews and their settings.
import { MediaAgentError } from '../../core/errors';
import type { LearningReviewResult } from '../../skills/review-run';

/** Which reviews a background review covers. @public */
export interface LearningReviewDue {
  /** A memory review (every 10th user turn; needs the `memory` option). */
  readonly memory: boolean;
  /** A skill review (after 10 tool-calling model responses; needs the `skills` option). */
  readonly skills: boolean;
}

/** What {@link LearningOptions.onReview} is told when a background review ends. @public */
export interface LearningReviewReport {
  /** The conversation (run) reviewed; the review's usage was added to this run's. */
  readonly runId: string;
  /** The person whose skills and memory the review maintained (`user:<id>` without the prefix). */
  readonly userId: string;
  /** Which reviews ran. */
  readonly due: LearningReviewDue;
  /** What the review did: why it ended, model calls, usage, tool calls in order, writes. */
  readonly result: LearningReviewResult;
}

/**
 * Background learning reviews (the `learning` option of `createAgentHost`).
 * @example
 * ```ts
 * createAgentHost({
 *   model: { provider, model: 'claude-sonnet-4-5' },
 *   skills: { dataDir: './data/learning' },
 *   memory: { dataDir: './data/memory' },
 *   learning: { onReview: (r) => log.info('review', { run: r.runId, writes: r.result.writes }) },
 * });
 * ```
 * @public
 */
export interface LearningOptions {
  /**
   * `false` turns background reviews off (the skill and memory tools stay).
   * @defaultValue true
   */
  review?: boolean;
  /**
   * The review prompt for what is due (the host's own wording; test it with `learningReviewScript`
   * from `@media-agent/sdk/testing`). It must return a non-empty string: anything else (or a throw) skips
   * that review without a model call and logs a warning (`OPTIONS_INVALID` for a wrong return).
   * @defaultValue `reviewPrompt(due)`
   */
  prompt?: (due: LearningReviewDue) => string;
  /**
   * Most model calls of one review.
   * @defaultValue 16
   */
  maxModelCalls?: number;
  /**
   * Longest wait, in ms (0 to 2 147 483 647), for a running review to stop when new input reaches its
   * conversation; a review still running after that has its later writes refused.
   * @defaultValue 2000
   */
  cancelWaitMs?: number;
  /**
   * Told when a review ends. It may be `async`: a promise it returns is awaited (`host.learning.idle()` waits
   * for it); a throw or a rejection is logged as a warning, never left unhandled.
   */
  onReview?: (report: LearningReviewReport) => void;
}

/** {@link LearningOptions} with defaults applied. @public */
export interface ResolvedLearningOptions {
  /** The review prompt, when the host gave its own. */
  readonly prompt: ((due: LearningReviewDue) => string) | undefined;
  /** Most model calls of one review. */
  readonly maxModelCalls: number;
  /** Longest wait for a cancelled review, in ms. */
  readonly cancelWaitMs: number;
  /** Told when a review ends. */
  readonly onReview: ((report: LearningReviewReport) => void) | undefined;
  /**
   * The model's context window in tokens as the host set it (`runs.contextWindowTokens`), or undefined
   * when unknown: the review's input budget and compaction derive from it.
   */
  readonly contextWindowTokens: number | undefined;
}

/** The longest `learning.cancelWaitMs`: the longest delay a timer takes (about 24.8 days). */
const MAX_CANCEL_WAIT_MS = 2_147_483_647;

/** A value as an error message shows it: strings quoted, so `'false'` is not read as `false`. */
const shown = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v));

/**
 * Applies the defaults, or returns undefined when reviews are off (turned off, or neither skills nor
 * memory is configured).
 * @param options - the host's `learning` option
 * @param available - whether `skills` or `memory` is configured
 * @param contextWindowTokens - `runs.contextWindowTokens` as the host set it
 * @throws `OPTIONS_INVALID` for a field of the wrong type or out of range
 * @internal
 */
export function resolveLearningOptions(
  options: LearningOptions | undefined,
  available: boolean,
  contextWindowTokens: number | undefined,
): ResolvedLearningOptions | undefined {
  const invalid = (field: string, expected: string, got: unknown) =>
    new MediaAgentError('OPTIONS_INVALID', `option learning.${field} must be ${expected}; got ${shown(got)}`, {
      option: `learning.${field}`,
    });
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options)))
    throw new MediaAgentError('OPTIONS_INVALID', 'option learning must be an object', { option: 'learning' });
  const o = options ?? {};
  if (o.review !== undefined && typeof o.review !== 'boolean') throw invalid('review', 'a boolean', o.review);
  if (o.prompt !== undefined && typeof o.prompt !== 'function') throw invalid('prompt', 'a function', o.prompt);
  if (o.onReview !== undefined && typeof o.onReview !== 'function') throw invalid('onReview', 'a function', o.onReview);
  const maxModelCalls = o.maxModelCalls ?? 16;
  if (!(Number.isInteger(maxModelCalls) && maxModelCalls >= 1 && maxModelCalls <= 16))
    throw invalid('maxModelCalls', 'an integer from 1 to 16', maxModelCalls);
  const cancelWaitMs = o.cancelWaitMs ?? 2000;
  if (!(typeof cancelWaitMs === 'number' && cancelWaitMs >= 0 && cancelWaitMs <= MAX_CANCEL_WAIT_MS))
    throw invalid('cancelWaitMs', `a number of ms from 0 to ${MAX_CANCEL_WAIT_MS}`, cancelWaitMs);
  if (o.review === false || !available) return undefined;
  return { prompt: o.prompt, maxModelCalls, cancelWaitMs, onReview: o.onReview, contextWindowTokens };
}
