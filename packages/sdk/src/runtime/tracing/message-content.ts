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
 * The byte budget (UTF-8 of the JSON text) of one content attribute, never exceeded. Messages are left out
 * from the oldest side until the rest fits; the newest message is always kept, cut inside when it alone is
 * over the budget.
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

/** UTF-8 bytes of a value's JSON text. */
const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** The first `chars` characters of `text`, never ending inside a surrogate pair. */
function prefix(text: string, chars: number): string {
  const cut = text.slice(0, chars);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/** A part whose content (text, arguments or response) is replaced by `text`. */
function withContent(part: ContentPart, text: string): ContentPart {
  switch (part.type) {
    case 'text':
      return { ...part, content: text };
    case 'tool_call':
      return { ...part, arguments: text };
    default:
      return { ...part, response: text };
  }
}

/** The content of a part as text: a text part's text, else the JSON of its arguments or response. */
function contentText(part: ContentPart): string {
  if (part.type === 'text') return part.content;
  const value = part.type === 'tool_call' ? part.arguments : part.response;
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/**
 * One message cut to fit `budget` bytes of JSON text: its oldest parts are left out first (a leading text
 * part `…(+N earlier parts left out)` marks it), then the content of the last part is shortened (its text,
 * or its arguments or response as JSON text, ending `…(+N chars)`). When even that does not fit (huge ids
 * or names), the message keeps only a text part saying it was left out.
 */
function cutMessage(message: ContentMessage, budget: number): ContentMessage {
  const parts = message.parts;
  const shape = (kept: ContentPart[], left: number): ContentMessage => ({
    ...message,
    parts: left > 0 ? [{ type: 'text', content: `…(+${left} earlier parts left out)` }, ...kept] : kept,
  });
  // Oldest parts out first, the last part kept. Linear: each part's size is counted once and the kept parts'
  // total is a running sum (the marker's size is recounted with its count, a few bytes).
  const empty = bytesOf({ ...message, parts: [] });
  const sizes = parts.map((p) => bytesOf(p));
  let keptBytes = sizes.reduce((a, b) => a + b, 0);
  const size = (from: number): number => {
    const count = parts.length - from;
    const marker = from > 0 ? bytesOf(shape([], from).parts[0]) + (count > 0 ? 1 : 0) : 0;
    return empty + marker + keptBytes + Math.max(0, count - 1);
  };
  let from = 0;
  while (size(from) > budget && from < parts.length - 1) {
    keptBytes -= sizes[from]!;
    from++;
  }
  const candidate = shape(parts.slice(from), from);
  if (bytesOf(candidate) <= budget) return candidate;
  const last = parts[parts.length - 1];
  if (last) {
    // Shorten the last part's content: the longest prefix (binary search) whose message fits.
    const text = contentText(last);
    const cut = (chars: number): ContentMessage => {
      const kept = prefix(text, chars);
      return shape([withContent(last, `${kept}…(+${text.length - kept.length} chars)`)], from);
    };
    let lo = 0;
    let hi = text.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (bytesOf(cut(mid)) <= budget) lo = mid;
      else hi = mid - 1;
    }
    if (bytesOf(cut(lo)) <= budget) return cut(lo);
  }
  return { role: message.role, parts: [{ type: 'text', content: `…(message left out: ${bytesOf(message)} bytes)` }] };
}

/**
 * The JSON text of `messages` within `budget` bytes, never over it: the oldest messages are left out first;
 * the newest is always kept, and when it alone is over the budget it is cut inside (its oldest parts left
 * out, then its last part's content shortened, each cut marked in the text).
 * @returns the text and how many messages were left out
 */
export function withinBudget(
  messages: readonly ContentMessage[],
  budget = CONTENT_BUDGET_BYTES,
): { json: string; dropped: number } {
  const sizes = messages.map((m) => bytesOf(m));
  // The array's brackets and the commas between messages.
  let total = 2 + sizes.reduce((a, b) => a + b, 0) + Math.max(0, sizes.length - 1);
  let start = 0;
  while (total > budget && start < messages.length - 1) {
    total -= sizes[start]! + 1;
    start++;
  }
  if (total <= budget) return { json: JSON.stringify(messages.slice(start)), dropped: start };
  return { json: JSON.stringify([cutMessage(messages[start]!, budget - 2)]), dropped: start };
}
