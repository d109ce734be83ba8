// Assistant messages of a Chat Completions body, per dialect: which messages get their reasoning
// back, in which wire shape (`reasoning_content`, OpenRouter `reasoning_details`, Mistral thinking
// parts), and the tool calls' signatures (Gemini `extra_content.google.thought_signature`).
// Sources per dialect: the TSDoc of OPENAI_DIALECTS (openai-dialects.ts).
import type { OpenAIDialect, ReasoningReplay } from './openai-dialects';
import type { ToolNameMap } from './tools';
import type { AssistantMessage, ModelMessage } from './types';

type Json = Record<string, unknown>;

/**
 * The assistant messages whose reasoning goes back under a replay rule (see `ReasoningReplay`).
 *
 * @remarks
 * A user turn is the run of messages between two user messages. `tool-calls` keeps every assistant
 * message of a user turn that made a tool call, and every assistant message after the last user
 * message; `current-turn` only the latter; `all` every assistant message; `none` nothing. Pure.
 *
 * @param messages - the normalized conversation (no system messages)
 * @param mode - the replay rule
 * @returns the indexes (into `messages`) of the assistant messages whose reasoning is sent back
 * @internal
 */
export function replayedReasoning(messages: ReadonlyArray<ModelMessage>, mode: ReasoningReplay): Set<number> {
  const out = new Set<number>();
  if (mode === 'none') return out;
  let turn: number[] = [];
  let toolCalls = false;
  const close = (current: boolean) => {
    if (mode === 'all' || current || (mode === 'tool-calls' && toolCalls)) for (const i of turn) out.add(i);
    turn = [];
    toolCalls = false;
  };
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'user') close(false);
    else if (m.role === 'assistant') {
      turn.push(i);
      if (m.content.some((p) => p.type === 'tool_call')) toolCalls = true;
    }
  }
  close(true); // the run after the last user message: the turn in progress
  return out;
}

/**
 * Encodes one assistant message as a Chat Completions message for a dialect.
 *
 * @remarks
 * Text parts join into `content` (`null` when empty and the message has tool calls). When
 * `replay` is set, reasoning goes back in the dialect's `reasoningWire`: `reasoning_content` (the
 * thinking text joined; empty when none was captured and the rule is `tool-calls`, whose servers
 * require the field), `reasoning_details` (the items of the thinking parts as received, when there
 * are any), or `thinking-parts` (`content` as Mistral's typed parts, in model order). Tool calls carry
 * their signature as `extra_content.google.thought_signature` when the dialect says so.
 *
 * @param m - the assistant message
 * @param dialect - the server family
 * @param names - wire names of the request's tools
 * @param replay - whether this message's reasoning goes back (see {@link replayedReasoning})
 * @returns the wire message
 * @internal
 */
export function encodeAssistantMessage(
  m: AssistantMessage,
  dialect: OpenAIDialect,
  names: ToolNameMap,
  replay: boolean,
): Json {
  const text = m.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
  const calls = m.content.flatMap((p) => {
    if (p.type !== 'tool_call') return [];
    const call: Json = {
      id: p.id,
      type: 'function',
      function: { name: names.toWire(p.name), arguments: JSON.stringify(p.input ?? {}) },
    };
    if (dialect.toolCallSignatures && p.signature !== undefined)
      call.extra_content = { google: { thought_signature: p.signature } };
    return [call];
  });
  const msg: Json = { role: 'assistant', content: text === '' && calls.length > 0 ? null : text };
  if (calls.length > 0) msg.tool_calls = calls;
  if (!replay) return msg;
  const wire = dialect.reasoningWire ?? 'reasoning_content';
  if (wire === 'reasoning_details') {
    const details = m.content.flatMap((p) => (p.type === 'thinking' ? (p.details ?? []) : []));
    if (details.length > 0) msg.reasoning_details = details;
  } else if (wire === 'thinking-parts') {
    if (m.content.some((p) => p.type === 'thinking' && p.thinking !== '')) {
      msg.content = m.content.flatMap((p): Json[] =>
        p.type === 'text' && p.text !== ''
          ? [{ type: 'text', text: p.text }]
          : p.type === 'thinking' && p.thinking !== ''
            ? [{ type: 'thinking', thinking: [{ type: 'text', text: p.thinking }] }]
            : [],
      );
    }
  } else {
    const reasoning = m.content.map((p) => (p.type === 'thinking' ? p.thinking : '')).join('');
    if (reasoning !== '' || dialect.reasoningReplay === 'tool-calls') msg.reasoning_content = reasoning;
  }
  return msg;
}
