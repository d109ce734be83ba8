// When a background learning review is due: counters kept per conversation.
import type { ModelTool } from '../models/types';

/** User turns between memory reviews, and tool-calling model responses between skill reviews. @public */
export const LEARNING_INTERVAL = 10;

/** The learning counters of one conversation. @public */
export interface LearningCounters {
  /** Genuine user turns since the last memory review, modulo {@link LEARNING_INTERVAL}. */
  readonly userTurns: number;
  /** Model responses that called tools since the last skill review (or `skill_manage` call). */
  readonly toolResponses: number;
  /** A memory review is due (carried over until a delivered turn launches it). */
  readonly memoryDue: boolean;
  /** A skill review is due (carried over until a delivered turn launches it). */
  readonly skillDue: boolean;
}

/**
 * Counters of a new conversation, or of one restored with `userMessages` genuine user messages.
 * @public
 */
export function initialCounters(userMessages = 0): LearningCounters {
  return { userTurns: userMessages % LEARNING_INTERVAL, toolResponses: 0, memoryDue: false, skillDue: false };
}

/**
 * A genuine user turn (never a continuation nudge, tool observation or injected scaffolding): every 10th makes a memory review due.
 * @public
 */
export function countUserTurn(c: LearningCounters): LearningCounters {
  const userTurns = (c.userTurns + 1) % LEARNING_INTERVAL;
  return { ...c, userTurns, memoryDue: c.memoryDue || userTurns === 0 };
}

/**
 * One model response: one that called tools counts once however many calls it made; one that called
 * `skill_manage` resets the count (the model just maintained its skills). At 10 a skill review is due.
 * @public
 */
export function countModelResponse(
  c: LearningCounters,
  response: { toolCalls: number; calledSkillManage: boolean },
): LearningCounters {
  if (response.calledSkillManage) return { ...c, toolResponses: 0 };
  if (response.toolCalls === 0) return c;
  const toolResponses = c.toolResponses + 1;
  return { ...c, toolResponses, skillDue: c.skillDue || toolResponses >= LEARNING_INTERVAL };
}

/** How a turn ended, and the conditions a review needs. @public */
export interface TurnEnd {
  /** `delivered`: the final reply was delivered and stored; anything else starts no review. */
  readonly outcome: 'delivered' | 'cancelled' | 'failed' | 'stopped';
  /** An authenticated interactive conversation (not scheduled, internal or a subagent). */
  readonly interactive: boolean;
  /** A review of this conversation is still running (reviews never stack). */
  readonly reviewRunning: boolean;
  /** The request carried provider-native or hosted tools, which the dispatch whitelist cannot constrain. */
  readonly nativeTools: boolean;
}

/** What to do after a turn: which review to launch (if any) and the counters from now on. @public */
export interface ReviewDecision {
  /** Which review to start now (memory, skills or both), or undefined for none. */
  readonly launch: { readonly memory: boolean; readonly skills: boolean } | undefined;
  /** The counters after this turn (a launched review resets its own). */
  readonly counters: LearningCounters;
}

/**
 * Decides the review after a turn. A due review waits (is carried over) while turns are cancelled or
 * fail, while the conversation is not interactive and while a review runs; a request with
 * provider-native tools skips it. Launching clears the due flags (and the skill count).
 * @example
 * ```ts
 * let counters = countUserTurn(initialCounters());
 * const { launch, counters: next } = reviewAfterTurn(counters, { outcome: 'delivered', interactive: true, reviewRunning: false, nativeTools: false });
 * ```
 * @public
 */
export function reviewAfterTurn(c: LearningCounters, end: TurnEnd): ReviewDecision {
  if (!c.memoryDue && !c.skillDue) return { launch: undefined, counters: c };
  if (end.outcome !== 'delivered' || !end.interactive || end.reviewRunning) return { launch: undefined, counters: c };
  const cleared = { ...c, memoryDue: false, skillDue: false, toolResponses: c.skillDue ? 0 : c.toolResponses };
  if (end.nativeTools) return { launch: undefined, counters: cleared };
  return { launch: { memory: c.memoryDue, skills: c.skillDue }, counters: cleared };
}

/**
 * The input-token budget of a review run: min(600 000, 75 % of the context window), 120 000 when the
 * window is unknown.
 * @public
 */
export function reviewInputBudget(contextWindowTokens?: number): number {
  if (contextWindowTokens === undefined || !Number.isFinite(contextWindowTokens) || contextWindowTokens <= 0)
    return 120_000;
  return Math.min(600_000, Math.floor(contextWindowTokens * 0.75));
}

/**
 * The tools of a request that are not plain client-side functions: provider-native (hosted) tools (a
 * `type` other than `'function'`), tools without an object input schema, and a structured-output
 * setting (`responseFormat` / `response_format` on a custom request). A background review of such a
 * request is skipped: its dispatch whitelist could not constrain what they do.
 * @param request - the conversation's final request
 * @returns their names (empty: every tool is a plain function)
 * @example
 * ```ts
 * unconstrainedTools({ tools: [{ type: 'web_search_20250305', name: 'web_search', description: '', inputSchema: {} }] }); // ['web_search']
 * ```
 * @public
 */
export function unconstrainedTools(request: { readonly tools?: readonly ModelTool[] | undefined }): string[] {
  const found: string[] = [];
  for (const tool of request.tools ?? []) {
    const schema = (tool as { inputSchema?: unknown }).inputSchema;
    const type = (tool as { type?: unknown }).type;
    if ((type !== undefined && type !== 'function') || typeof schema !== 'object' || schema === null)
      found.push(String((tool as { name?: unknown }).name));
  }
  for (const key of ['responseFormat', 'response_format'])
    if ((request as Record<string, unknown>)[key] !== undefined) found.push(key);
  return found;
}
