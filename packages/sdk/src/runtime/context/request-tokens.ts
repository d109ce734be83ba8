// Token counts of requests, memoized per message, tool and system prompt (messages are never mutated once appended).
import { MESSAGE_OVERHEAD_TOKENS, type TokenCounter } from '../../models/token-counter';
import type { ModelMessage, ModelTool } from '../../models/types';

/** Per counter and model: tokens of message objects already counted (messages are never mutated once appended). */
const counted = new WeakMap<TokenCounter, Map<string, WeakMap<ModelMessage, number>>>();

/**
 * Token count of one message inside a request (its content plus the per-message overhead), memoized
 * per message object: the run driver never mutates a message once it is in the history, so re-counting
 * a 500-message history before each call is a lookup per message.
 * @internal
 */
export function messageTokens(counter: TokenCounter, m: ModelMessage, model: string | undefined): number {
  return memoizedTokens(counter, messageMemo(counter, model), m, model);
}

/** The memo of message counts of a counter and model. */
function messageMemo(counter: TokenCounter, model: string | undefined): WeakMap<ModelMessage, number> {
  let byModel = counted.get(counter);
  if (!byModel) counted.set(counter, (byModel = new Map()));
  let memo = byModel.get(model ?? '');
  if (!memo) byModel.set(model ?? '', (memo = new WeakMap()));
  return memo;
}

/**
 * The sum of {@link messageTokens} over `messages` (the memo looked up once for all of them).
 * @internal
 */
export function messagesTokens(
  counter: TokenCounter,
  messages: readonly ModelMessage[],
  model: string | undefined,
): number {
  const memo = messageMemo(counter, model);
  let total = 0;
  for (let i = 0; i < messages.length; i++) total += memoizedTokens(counter, memo, messages[i]!, model);
  return total;
}

/** {@link messageTokens} with its memo at hand. */
function memoizedTokens(
  counter: TokenCounter,
  memo: WeakMap<ModelMessage, number>,
  m: ModelMessage,
  model: string | undefined,
): number {
  let n = memo.get(m);
  if (n === undefined) {
    n = m.role === 'system' ? systemTokens(counter, m.content, model) : countOne(counter, m, model);
    memo.set(m, n);
  }
  return n;
}

/** Tokens of one message inside a request (its content plus the per-message overhead), counted afresh. */
const countOne = (counter: TokenCounter, m: ModelMessage, model: string | undefined): number =>
  counter.countRequest([m], [], model) - MESSAGE_OVERHEAD_TOKENS;

/** System prompts kept per counter and model (a host has a few; more are counted afresh after a reset). */
const SYSTEM_PROMPTS_KEPT = 32;

/** Per counter and model: tokens of system messages by their text. */
const systemCounted = new WeakMap<TokenCounter, Map<string, Map<string, number>>>();

/**
 * Token count of a system message by its text: the run loop builds a new system message object (with
 * the same prompt) for every model call, so the per-object memo misses; its count depends only on the
 * text.
 */
function systemTokens(counter: TokenCounter, content: string, model: string | undefined): number {
  let byModel = systemCounted.get(counter);
  if (!byModel) systemCounted.set(counter, (byModel = new Map()));
  let memo = byModel.get(model ?? '');
  if (!memo) byModel.set(model ?? '', (memo = new Map()));
  let n = memo.get(content);
  if (n === undefined) {
    n = countOne(counter, { role: 'system', content }, model);
    if (memo.size >= SYSTEM_PROMPTS_KEPT) memo.clear();
    memo.set(content, n);
  }
  return n;
}

/** Per counter and model: tokens of tool definitions already counted (a drive offers the same tool objects on every call). */
const toolsCounted = new WeakMap<TokenCounter, Map<string, WeakMap<ModelTool, number>>>();

/**
 * The runtime's estimate of a whole request as sent (every message, the system prompt included, and
 * every tool), memoized per message and per tool object like compaction's own counts, so estimating
 * each model call of a long run costs a lookup per message.
 * @param counter - the counter
 * @param messages - the request's messages, system prompt included
 * @param tools - the request's tools
 * @param model - model id (selects the encoding)
 * @returns estimated prompt tokens
 * @internal
 */
export function estimateRequestTokens(
  counter: TokenCounter,
  messages: readonly ModelMessage[],
  tools: readonly ModelTool[],
  model: string | undefined,
): number {
  let byModel = toolsCounted.get(counter);
  if (!byModel) toolsCounted.set(counter, (byModel = new Map()));
  let memo = byModel.get(model ?? '');
  if (!memo) byModel.set(model ?? '', (memo = new WeakMap()));
  let total = MESSAGE_OVERHEAD_TOKENS + messagesTokens(counter, messages, model);
  for (const t of tools) {
    let n = memo.get(t);
    if (n === undefined) {
      n = counter.countRequest([], [t], model) - MESSAGE_OVERHEAD_TOKENS;
      memo.set(t, n);
    }
    total += n;
  }
  return total;
}

/** The last fixed part counted per counter: the same system messages and tool definitions (by identity) count the same. */
const fixedCounted = new WeakMap<
  TokenCounter,
  { model: string | undefined; system: readonly ModelMessage[]; tools: readonly ModelTool[]; tokens: number }
>();

/**
 * Tokens of the fixed part of a request (system messages and tool definitions), memoized for the
 * last one counted: before each model call the run loop asks again for the same objects, and
 * counting them means serializing every tool schema.
 * @internal
 */
export function fixedPartTokens(
  counter: TokenCounter,
  system: readonly ModelMessage[],
  tools: readonly ModelTool[],
  model: string | undefined,
): number {
  const last = fixedCounted.get(counter);
  const same = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  if (last && last.model === model && same(last.system, system) && same(last.tools, tools)) return last.tokens;
  const tokens = counter.countRequest(system, tools, model);
  fixedCounted.set(counter, { model, system: [...system], tools: [...tools], tokens });
  return tokens;
}
