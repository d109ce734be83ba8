// Tool call ids as each target accepts them, remapped consistently within one request so that every result
// still names its call. Peer reports: Mistral answers 400 "Tool call id was call_0fypS1hVX but must be a-z, A-Z,
// 0-9, with a length of 9" (langchain-ai/langchain#24668, anomalyco/opencode#1680); OpenAI answers 400 "Invalid
// 'messages[2].tool_calls[0].id': string too long. Expected a string with maximum length 40" (openclaw/openclaw#875,
// vercel/ai#8132); Anthropic accepts only `^[a-zA-Z0-9_-]+$` in `tool_use.id`.
import { createHash } from 'node:crypto';
import type { AssistantMessage, ModelMessage, ToolResultMessage, UserMessage } from '../types';

/**
 * Which ids a target accepts for tool calls and the results that answer them.
 *
 * - `anthropic`: `^[a-zA-Z0-9_-]+$` (Messages API `tool_use.id`);
 * - `openai`: at most 40 characters (Chat Completions `tool_calls[].id`; the default for OpenAI-compatible dialects);
 * - `mistral`: exactly 9 characters from `a-z`, `A-Z`, `0-9` (Mistral API; also Mistral chat templates on local servers).
 *
 * @internal
 */
export type ToolCallIdRule = 'anthropic' | 'openai' | 'mistral';

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * Whether `id` is accepted under `rule`. Pure.
 * @param id - a tool call id
 * @param rule - the target's rule
 * @internal
 */
export function isValidToolCallId(id: string, rule: ToolCallIdRule): boolean {
  if (rule === 'anthropic') return /^[a-zA-Z0-9_-]+$/.test(id);
  if (rule === 'mistral') return /^[a-zA-Z0-9]{9}$/.test(id);
  return id.length > 0 && id.length <= 40;
}

/** `length` characters of [a-zA-Z0-9] derived from the SHA-256 of `text`. */
function alnumDigest(text: string, length: number): string {
  const bytes = createHash('sha256').update(text).digest();
  let out = '';
  for (let i = 0; out.length < length; i++) out += ALNUM[bytes[i % bytes.length]! % ALNUM.length];
  return out;
}

/** The candidate replacement of `id` under `rule` (attempt 0 first, then 1, 2 … on collision). */
function candidate(id: string, rule: ToolCallIdRule, attempt: number): string {
  if (rule === 'mistral') return alnumDigest(`${id}\u0000${attempt}`, 9);
  const suffix = attempt === 0 ? '' : `_${attempt}`;
  if (rule === 'anthropic') {
    const base = id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'call';
    return `${base}${suffix}`;
  }
  if (attempt === 0 && id.length > 0 && id.length <= 40) return id;
  return `${id.slice(0, 22)}_${alnumDigest(`${id}\u0000${attempt}`, 17)}`;
}

/**
 * The wire id of every tool call id in a conversation under `rule`: ids the rule accepts map to themselves;
 * each other id gets a replacement the rule accepts (`anthropic`: invalid characters become `_`; `openai`: the
 * first 22 characters, `_` and 17 characters derived from the whole id; `mistral`: 9 characters derived from the
 * id), distinct from every other id of the conversation. Deterministic: the same conversation maps the same way
 * on every request (prompt caches stay warm). Pure.
 *
 * @param ids - the conversation's tool call ids, in order (repeats allowed)
 * @param rule - the target's rule
 * @returns original id → wire id
 * @internal
 */
export function toolCallIdMap(ids: Iterable<string>, rule: ToolCallIdRule): Map<string, string> {
  const all = [...new Set(ids)];
  const map = new Map<string, string>();
  const used = new Set<string>();
  for (const id of all) {
    if (isValidToolCallId(id, rule)) {
      map.set(id, id);
      used.add(id);
    }
  }
  for (const id of all) {
    if (map.has(id)) continue;
    let attempt = 0;
    let wire = candidate(id, rule, attempt);
    while (used.has(wire) || !isValidToolCallId(wire, rule)) wire = candidate(id, rule, ++attempt);
    map.set(id, wire);
    used.add(wire);
  }
  return map;
}

/**
 * Rewrites the tool call ids of a conversation for `rule` (see {@link toolCallIdMap}): each call and each
 * result that names it get the same wire id, so the pairs stay intact. Only ids the rule refuses change.
 * Pure: the input is not changed; messages with nothing to rewrite are returned as they are.
 *
 * @param messages - the normalized conversation (every call followed by its result)
 * @param rule - the target's rule
 * @returns the conversation with wire ids
 * @internal
 */
export function remapToolCallIds<M extends UserMessage | AssistantMessage | ToolResultMessage | ModelMessage>(
  messages: readonly M[],
  rule: ToolCallIdRule,
): M[] {
  const ids: string[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') for (const p of m.content) if (p.type === 'tool_call') ids.push(p.id);
    if (m.role === 'tool') ids.push(m.toolCallId);
  }
  const map = toolCallIdMap(ids, rule);
  if ([...map].every(([from, to]) => from === to)) return [...messages];
  return messages.map((m) => {
    if (m.role === 'tool') {
      const to = map.get(m.toolCallId)!;
      return to === m.toolCallId ? m : { ...m, toolCallId: to };
    }
    if (m.role !== 'assistant') return m;
    if (!m.content.some((p) => p.type === 'tool_call' && map.get(p.id) !== p.id)) return m;
    return {
      ...m,
      content: m.content.map((p) =>
        p.type === 'tool_call' && map.get(p.id) !== p.id ? { ...p, id: map.get(p.id)! } : p,
      ),
    };
  });
}
