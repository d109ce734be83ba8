// Content attributes in the shape of the GenAI semantic conventions
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/#inputs-and-outputs): a JSON array of
// messages, each `{ role, parts: [...] }`, parts of type `text`, `tool_call` and `tool_call_response`.
import { redactText, summarizeInput } from '../../capabilities/input-summary';
import type { ModelMessage } from '../../models/types';

/** One part of a message, as the conventions shape it. */
export type ContentPart =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: unknown };

/** One message, as the conventions shape it (`finish_reason` on output messages only). */
export interface ContentMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  parts: ContentPart[];
  finish_reason?: string;
}

/**
 * The byte budget (UTF-8 of the JSON text) of one content attribute. Messages are left out from the oldest
 * side until the rest fits; the newest message is always kept.
 */
export const CONTENT_BUDGET_BYTES = 16_384;

/** A value redacted the way the audit trail summarizes it (secret-looking fields and text, strings cut at 256 characters). */
export function redactedValue(value: unknown, redact: readonly string[] = []): unknown {
  return JSON.parse(summarizeInput(value, redact)) as unknown;
}

/** The longest text part kept, in characters (the rest is cut, the cut marked). */
export const MAX_TEXT_CHARS = 4096;

/** A message text with secret-looking parts redacted, cut at {@link MAX_TEXT_CHARS}. */
export function redactedText(text: string): string {
  const clean = redactText(text);
  return clean.length > MAX_TEXT_CHARS
    ? `${clean.slice(0, MAX_TEXT_CHARS)}…(+${clean.length - MAX_TEXT_CHARS} chars)`
    : clean;
}

/** A tool result: its JSON redacted field by field (as the audit trail does), or its text when it is not JSON. */
function toolResponse(text: string): unknown {
  try {
    return redactedValue(JSON.parse(text));
  } catch {
    return redactedText(text);
  }
}

function textParts(content: string | ReadonlyArray<{ type: string; text?: string }>): ContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', content: redactedText(content) }];
  return content
    .filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p) => ({ type: 'text' as const, content: redactedText(p.text!) }));
}

/**
 * A model message as the conventions shape it: text, tool calls (parsed arguments) and tool results;
 * never thinking, provider signatures or image data. Every value is redacted: texts by the secret
 * patterns (cut at {@link MAX_TEXT_CHARS}), arguments and JSON results field by field as the audit
 * summary does (sensitive field names, strings cut at 256 characters, arrays at 20 items).
 */
export function contentMessage(message: ModelMessage): ContentMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', parts: textParts(message.content) };
    case 'user':
      return { role: 'user', parts: textParts(message.content) };
    case 'tool': {
      const text =
        typeof message.content === 'string'
          ? message.content
          : message.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
      return {
        role: 'tool',
        parts: [{ type: 'tool_call_response', id: message.toolCallId, response: toolResponse(text) }],
      };
    }
    default: {
      const parts: ContentPart[] = [];
      for (const part of message.content) {
        if (part.type === 'text') parts.push({ type: 'text', content: redactedText(part.text) });
        else if (part.type === 'tool_call')
          parts.push({ type: 'tool_call', id: part.id, name: part.name, arguments: redactedValue(part.input) });
      }
      return { role: 'assistant', parts };
    }
  }
}

/**
 * The JSON text of `messages` within `budget` bytes: the oldest messages are left out first, the newest
 * is always kept.
 * @returns the text and how many messages were left out
 */
export function withinBudget(
  messages: readonly ContentMessage[],
  budget = CONTENT_BUDGET_BYTES,
): { json: string; dropped: number } {
  const sizes = messages.map((m) => Buffer.byteLength(JSON.stringify(m)));
  // The array's brackets and the commas between messages.
  let total = 2 + sizes.reduce((a, b) => a + b, 0) + Math.max(0, sizes.length - 1);
  let start = 0;
  while (total > budget && start < messages.length - 1) {
    total -= sizes[start]! + 1;
    start++;
  }
  return { json: JSON.stringify(messages.slice(start)), dropped: start };
}
