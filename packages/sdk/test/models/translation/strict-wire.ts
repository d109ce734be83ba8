// Local servers that validate a request the way the real APIs do before they answer, for the tests of a switch
// of provider family: a 400 worded as the API words it, else the scripted answer.
//
// Anthropic Messages (https://docs.anthropic.com/en/api/messages, "Extended thinking"):
// - a thinking block must carry a signature this server issued, for the same model and the same text
//   ("Invalid `signature` in `thinking` block"; signatures are bound to the model that made them);
// - `tool_use.id` matches `^[a-zA-Z0-9_-]+$`;
// - every `tool_use` is answered by a `tool_result` in the next (user) message, and every `tool_result` answers a
//   `tool_use` of the message before it;
// - roles alternate, starting with `user`;
// - with `thinking` enabled, the assistant message before the last tool results starts with a thinking block.
// Chat Completions (OpenAI; DeepSeek; Mistral):
// - ids: at most 40 characters (OpenAI), exactly 9 of [a-zA-Z0-9] (Mistral);
// - every assistant `tool_calls` is followed by one `tool` message per id, and every `tool` message answers one;
// - assistant messages have only the fields the server knows (Anthropic's `signature`, `thinking` blocks or
//   another dialect's `reasoning_details` are refused as unknown fields); DeepSeek in thinking mode requires
//   `reasoning_content` on assistant messages with tool calls.
import { createHash } from 'node:crypto';
import type { RecordedRequest, ReplayEvent, ReplayResponse } from '../../../src/models/replay-server';
import { anthropicTurn, type WireBlock } from '../thinking-wire';

type Json = Record<string, unknown>;
/** A block of a scripted answer: a thinking block's signature is issued by the server unless given. */
export type ScriptBlock =
  | Exclude<WireBlock, { type: 'thinking' }>
  | { type: 'thinking'; thinking: string; signature?: string };
type Message = { role: string; content?: unknown; tool_calls?: Json[]; tool_call_id?: string } & Json;

function anthropicRefusal(message: string): ReplayResponse {
  return {
    status: 400,
    body: JSON.stringify({
      type: 'error',
      error: { type: 'invalid_request_error', message },
      request_id: 'req_strict',
    }),
  };
}

/** The signature this server gives a thinking block of `model`: bound to the model and the text. */
export function signatureFor(model: string, thinking: string): string {
  return `Ev${createHash('sha256').update(`${model}\u0000${thinking}`).digest('base64')}`;
}

/**
 * A strict Anthropic Messages server: each request is checked (see the file header); a valid one gets the next
 * turn of `turns`, its thinking blocks signed for the request's model (signatures this server issued are the
 * only ones it accepts back). `issued` may be seeded with signatures a recorded conversation carries.
 */
export class StrictAnthropic {
  /** signature → the model and text it was issued for. */
  readonly issued = new Map<string, { model: string; thinking: string }>();
  /** Every refusal's message, in order. */
  readonly refusals: string[] = [];
  #next = 0;

  /** @param turns - the content blocks of each answer, in order (thinking blocks get their signature here) */
  constructor(readonly turns: ReadonlyArray<{ blocks: ScriptBlock[]; stop?: string }>) {}

  /** Marks a signature as issued by this server (a recorded turn's). */
  issue(model: string, thinking: string, signature: string): void {
    this.issued.set(signature, { model, thinking });
  }

  /** The responder for `WireReplayServer.start`. */
  readonly respond = (req: RecordedRequest): ReplayResponse => {
    const body = req.json as { model: string; messages: Message[]; thinking?: Json };
    const problem = this.check(body);
    if (problem !== undefined) {
      this.refusals.push(problem);
      return anthropicRefusal(problem);
    }
    const turn = this.turns[this.#next++];
    if (!turn) return anthropicRefusal('strict server: no scripted turn left');
    const blocks = turn.blocks.map((b): WireBlock => {
      if (b.type !== 'thinking') return b;
      const thinking = b.thinking;
      const signature = b.signature ?? signatureFor(body.model, thinking);
      this.issue(body.model, thinking, signature);
      return { type: 'thinking', thinking, signature };
    });
    return { events: anthropicTurn(blocks, turn.stop ?? 'end_turn') };
  };

  /** What the API would refuse in `body`, if anything. */
  check(body: { model: string; messages: Message[]; thinking?: Json }): string | undefined {
    const messages = body.messages;
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      const want = i % 2 === 0 ? 'user' : 'assistant';
      if (m.role !== want)
        return `messages: roles must alternate between "user" and "assistant", but found multiple "${m.role}" roles in a row`;
      const blocks = (Array.isArray(m.content) ? m.content : [{ type: 'text', text: m.content }]) as Json[];
      for (let j = 0; j < blocks.length; j++) {
        const b = blocks[j]!;
        if (b.type === 'thinking') {
          const issued = this.issued.get(b.signature as string);
          if (!issued || issued.model !== body.model || issued.thinking !== b.thinking)
            return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
        }
        if (b.type === 'tool_use' && !/^[a-zA-Z0-9_-]+$/.test(b.id as string))
          return `messages.${i}.content.${j}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
        if (b.type === 'tool_result') {
          const prev = messages[i - 1];
          const calls = ((prev?.content as Json[] | undefined) ?? []).filter((c) => c.type === 'tool_use');
          if (!calls.some((c) => c.id === b.tool_use_id))
            return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
      }
      if (m.role === 'assistant') {
        const ids = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
        const answered = new Set(
          ((messages[i + 1]?.content as Json[] | undefined) ?? [])
            .filter((b) => b.type === 'tool_result')
            .map((b) => b.tool_use_id as string),
        );
        const missing = ids.filter((id) => !answered.has(id));
        if (ids.length > 0 && missing.length > 0)
          return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    }
    const last = messages[messages.length - 1];
    if (messages.length % 2 === 0) return 'messages: the last message must have the "user" role';
    const lastBlocks = (Array.isArray(last?.content) ? last.content : []) as Json[];
    if (body.thinking && lastBlocks.some((b) => b.type === 'tool_result')) {
      const first = ((messages[messages.length - 2]?.content as Json[] | undefined) ?? [])[0];
      if (first?.type !== 'thinking' && first?.type !== 'redacted_thinking')
        return `messages.${messages.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`;
    }
    return undefined;
  }
}

/** The Chat Completions server families the strict OpenAI-compatible server imitates. */
export type StrictChatFlavor = 'openai' | 'deepseek' | 'mistral';

function chatRefusal(flavor: StrictChatFlavor, message: string): ReplayResponse {
  if (flavor === 'mistral')
    return {
      status: 400,
      body: JSON.stringify({
        object: 'error',
        message,
        type: 'invalid_request_message_order',
        param: null,
        code: '3230',
      }),
    };
  return {
    status: 400,
    body: JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code: 'invalid_value' } }),
  };
}

const ASSISTANT_FIELDS: Record<StrictChatFlavor, readonly string[]> = {
  openai: ['role', 'content', 'tool_calls', 'name', 'refusal'],
  deepseek: ['role', 'content', 'tool_calls', 'name', 'reasoning_content', 'prefix'],
  mistral: ['role', 'content', 'tool_calls', 'prefix'],
};

/** What a Chat Completions server of `flavor` would refuse in `body`, if anything. */
export function chatProblem(
  flavor: StrictChatFlavor,
  body: { messages: Message[]; thinking?: Json },
): string | undefined {
  const messages = body.messages;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'assistant') {
      const extra = Object.keys(m).filter((k) => !ASSISTANT_FIELDS[flavor].includes(k));
      if (extra.length > 0)
        return flavor === 'openai'
          ? `Unrecognized request argument supplied: messages[${i}].${extra[0]}`
          : `messages.${i}.${extra[0]}: Extra inputs are not permitted`;
      if (Array.isArray(m.content)) {
        for (const part of m.content as Json[])
          if (part.type !== 'text' && !(flavor === 'mistral' && part.type === 'thinking'))
            return `Invalid value for 'messages[${i}].content': unknown content part type '${String(part.type)}'`;
      }
      const calls = m.tool_calls ?? [];
      for (const [j, c] of calls.entries()) {
        const id = String(c.id);
        if (flavor === 'mistral' && !/^[a-zA-Z0-9]{9}$/.test(id))
          return `Tool call id was ${id} but must be a-z, A-Z, 0-9, with a length of 9.`;
        if (flavor !== 'mistral' && id.length > 40)
          return `Invalid 'messages[${i}].tool_calls[${j}].id': string too long. Expected a string with maximum length 40, but got a string with length ${id.length} instead.`;
        if ('extra_content' in c)
          return `messages[${i}].tool_calls[${j}].extra_content: Extra inputs are not permitted`;
      }
      if (flavor === 'deepseek' && body.thinking && calls.length > 0 && typeof m.reasoning_content !== 'string')
        return 'The reasoning_content in the thinking mode must be passed back to the API.';
      const ids = calls.map((c) => String(c.id));
      const answered = new Set<string>();
      for (let k = i + 1; k < messages.length && messages[k]!.role === 'tool'; k++)
        answered.add(String(messages[k]!.tool_call_id));
      const missing = ids.filter((id) => !answered.has(id));
      if (missing.length > 0)
        return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`;
    }
    if (m.role === 'tool') {
      let k = i - 1;
      while (k >= 0 && messages[k]!.role === 'tool') k--;
      const owner = messages[k];
      if (owner?.role !== 'assistant' || !(owner.tool_calls ?? []).some((c) => c.id === m.tool_call_id))
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
    }
  }
  return undefined;
}

/** One Chat Completions stream chunk. */
export const chatChunk = (delta: Json, finish: string | null = null): ReplayEvent => ({
  data: JSON.stringify({
    id: 'chatcmpl-strict',
    object: 'chat.completion.chunk',
    created: 1770000000,
    model: 'strict-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  }),
});

/**
 * A strict Chat Completions server: each request is checked with {@link chatProblem}; a valid one gets the next
 * of `answers` (SSE events, `[DONE]` appended).
 */
export class StrictChat {
  /** Every refusal's message, in order. */
  readonly refusals: string[] = [];
  #next = 0;

  /** @param flavor - the server family imitated; @param answers - the events of each answer */
  constructor(
    readonly flavor: StrictChatFlavor,
    readonly answers: ReadonlyArray<ReplayEvent[]>,
  ) {}

  /** The responder for `WireReplayServer.start`. */
  readonly respond = (req: RecordedRequest): ReplayResponse => {
    const problem = chatProblem(this.flavor, req.json as { messages: Message[]; thinking?: Json });
    if (problem !== undefined) {
      this.refusals.push(problem);
      return chatRefusal(this.flavor, problem);
    }
    const answer = this.answers[this.#next++];
    if (!answer) return chatRefusal(this.flavor, 'strict server: no scripted answer left');
    return { events: [...answer, { data: '[DONE]' }] };
  };
}
