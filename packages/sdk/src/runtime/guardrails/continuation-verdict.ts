// What the loop guard does with a final reply that announces an action but calls no tool.
import { continuationPromptFor, needsContinuation } from './continuation';

/**
 * What to do with a final reply (no tool calls) — see {@link LoopGuard.afterReply}.
 * - `none`: the reply is a normal answer; finish.
 * - `continue`: append `prompt` as a synthetic message (not archived as a user message, not a learning turn) and call the model again.
 * - `exhausted`: the reply announced an action but the prompts are spent; finish and mark the run partially complete.
 * @public
 */
export type ContinuationVerdict =
  | { action: 'none' }
  | { action: 'continue'; prompt: string; count: number }
  | { action: 'exhausted'; count: number };

/**
 * The verdict for a reply, given the continuation prompts already given in the run.
 * @param text - the reply text
 * @param calledTools - whether the reply also called tools
 * @param given - continuation prompts given so far
 * @param max - `maxContinuations`
 * @returns `continue` carries `count` = `given + 1` (the caller records it)
 * @internal
 */
export function continuationVerdict(
  text: string,
  calledTools: boolean,
  given: number,
  max: number,
): ContinuationVerdict {
  if (!needsContinuation(text, calledTools)) return { action: 'none' };
  if (given >= max) return { action: 'exhausted', count: given };
  return { action: 'continue', prompt: continuationPromptFor(text), count: given + 1 };
}
