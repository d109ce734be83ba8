// Conversation normalizer: runs once before every provider request, so wire encoders only ever
// see a well-formed conversation (pi-mono's transform-messages idea: normalize at the boundary, once).
import type {
  AssistantMessage,
  ImagePart,
  ModelMessage,
  TextPart,
  ToolCallPart,
  ToolResultMessage,
  UserMessage,
} from './types';

/**
 * Text of the synthetic result given to a tool call that has none (the run was aborted or
 * crashed between the call and its result). Source: "Crash": a side effect with no
 * receipt is shown to the model as "outcome unknown — verify before retrying".
 *
 * @public
 */
export const UNKNOWN_OUTCOME_TEXT =
  'outcome unknown: no result was recorded for this call (the run was interrupted). Verify with a read before retrying.';

/**
 * Options of {@link normalizeConversation}.
 *
 * @public
 */
export interface NormalizeOptions {
  /** Whether the model accepts images; when false, image parts become a text note (default true). */
  supportsImages?: boolean;
}

/**
 * A conversation ready for a wire encoder.
 *
 * @public
 */
export interface NormalizedConversation {
  /** All system layers joined in order with a blank line (`''` when there are none). */
  system: string;
  /** User, assistant and tool messages; every tool call is followed by exactly one result. */
  messages: Array<UserMessage | AssistantMessage | ToolResultMessage>;
}

const imageNote: TextPart = { type: 'text', text: '[image omitted: this model does not accept images]' };

function stripImages<T extends string | Array<TextPart | ImagePart>>(content: T, supportsImages: boolean): T {
  if (supportsImages || typeof content === 'string') return content;
  return content.map((p) => (p.type === 'image' ? imageNote : p)) as T;
}

/**
 * Normalizes a conversation before a request.
 *
 * @remarks
 * Rules, in order:
 * 1. system messages are removed from the list and layered into one system prompt, in order;
 * 2. assistant messages with no content (a turn aborted before any output) are dropped;
 * 3. after an assistant message, its tool calls' results follow immediately, in call order,
 *    before any user message that arrived in between; a call with no result gets a synthetic
 *    result with status `unknown` ({@link UNKNOWN_OUTCOME_TEXT}); a second result for the same
 *    call and a result whose call is not in the preceding assistant message are dropped;
 * 4. images become a text note when `supportsImages` is false.
 *
 * @param messages - the conversation as stored by the runtime
 * @param options - model capabilities
 * @returns the system prompt and the normalized messages (inputs are not mutated)
 * @public
 */
export function normalizeConversation(
  messages: ReadonlyArray<ModelMessage>,
  options: NormalizeOptions = {},
): NormalizedConversation {
  const supportsImages = options.supportsImages ?? true;
  const system: string[] = [];
  const out: NormalizedConversation['messages'] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'system') {
      if (m.content.trim() !== '') system.push(m.content);
      continue;
    }
    if (m.role === 'tool') continue; // placed with its assistant message below; orphans are dropped
    if (m.role === 'user') {
      out.push({ role: 'user', content: stripImages(m.content, supportsImages) });
      continue;
    }
    if (m.content.length === 0) continue;
    out.push(m);
    const calls = m.content.filter((p): p is ToolCallPart => p.type === 'tool_call');
    if (calls.length === 0) continue;
    // Collect results up to the next assistant message; user messages in between go after them.
    const results = new Map<string, ToolResultMessage>();
    const between: UserMessage[] = [];
    let j = i + 1;
    for (; j < messages.length; j++) {
      const n = messages[j]!;
      if (n.role === 'assistant') break;
      if (n.role === 'tool') {
        if (calls.some((c) => c.id === n.toolCallId) && !results.has(n.toolCallId)) results.set(n.toolCallId, n);
      } else if (n.role === 'user') between.push({ role: 'user', content: stripImages(n.content, supportsImages) });
      else if (n.content.trim() !== '') system.push(n.content);
    }
    for (const call of calls) {
      const r = results.get(call.id);
      out.push(
        r
          ? { ...r, content: stripImages(r.content, supportsImages) }
          : { role: 'tool', toolCallId: call.id, name: call.name, status: 'unknown', content: UNKNOWN_OUTCOME_TEXT },
      );
    }
    out.push(...between);
    i = j - 1;
  }
  return { system: system.join('\n\n'), messages: out };
}
