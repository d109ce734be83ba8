// Anthropic Messages wire pieces for thinking-block tests: a turn streamed the way the API streams it
// (content_block_start / deltas / content_block_stop per block), and the check the API makes on the next
// request: every thinking and redacted_thinking block of an assistant turn comes back unchanged and in
// place, or the request is refused with a 400.
// Wire format: https://docs.anthropic.com/en/api/messages-streaming; the rule:
// https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks
import type { RecordedRequest, ReplayEvent, ReplayResponse } from '../../src/models/replay-server';
import type { AssistantMessage, ModelMessage, ModelTool } from '../../src/models/types';

/** One content block of an assistant turn, as the API returns it (and expects it back). */
export type WireBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'text'; text: string };

const event = (data: Record<string, unknown>): ReplayEvent => ({
  event: data.type as string,
  data: JSON.stringify(data),
});

/** Splits a string in two (both halves non-empty when it has two characters or more). */
function halves(s: string): string[] {
  const at = Math.ceil(s.length / 2);
  return s.length < 2 ? [s] : [s.slice(0, at), s.slice(at)];
}

/**
 * The SSE events of one assistant turn made of `blocks`, as the Messages API streams them: thinking text in
 * two `thinking_delta`s then one `signature_delta`, redacted thinking whole in its `content_block_start`,
 * tool input in two `input_json_delta`s, text in `text_delta`s.
 */
export function anthropicTurn(blocks: readonly WireBlock[], stopReason = 'tool_use'): ReplayEvent[] {
  const out: ReplayEvent[] = [
    event({
      type: 'message_start',
      message: {
        id: 'msg_01ThinkingBlocks',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 40, output_tokens: 1 },
      },
    }),
  ];
  blocks.forEach((b, index) => {
    const delta = (d: Record<string, unknown>) => out.push(event({ type: 'content_block_delta', index, delta: d }));
    if (b.type === 'thinking') {
      out.push(
        event({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }),
      );
      for (const piece of halves(b.thinking)) delta({ type: 'thinking_delta', thinking: piece });
      delta({ type: 'signature_delta', signature: b.signature });
    } else if (b.type === 'redacted_thinking') {
      out.push(
        event({ type: 'content_block_start', index, content_block: { type: 'redacted_thinking', data: b.data } }),
      );
    } else if (b.type === 'tool_use') {
      out.push(
        event({
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
        }),
      );
      for (const piece of halves(JSON.stringify(b.input))) delta({ type: 'input_json_delta', partial_json: piece });
    } else {
      out.push(event({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      for (const piece of halves(b.text)) delta({ type: 'text_delta', text: piece });
    }
    out.push(event({ type: 'content_block_stop', index }));
  });
  out.push(
    event({
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 90 },
    }),
    event({ type: 'message_stop' }),
  );
  return out;
}

/** A final answer turn: one text block, `end_turn`. */
export function anthropicText(text: string): ReplayResponse {
  return { events: anthropicTurn([{ type: 'text', text }], 'end_turn') };
}

/** A 400 with the body the Messages API sends for an invalid request. */
function refusal(message: string): ReplayResponse {
  return {
    status: 400,
    body: JSON.stringify({
      type: 'error',
      error: { type: 'invalid_request_error', message },
      request_id: 'req_011CThinkingBlocks',
    }),
  };
}

const isThinking = (b: { type?: unknown }) => b.type === 'thinking' || b.type === 'redacted_thinking';

/**
 * What the API answers when the assistant message at `messageIndex` of a request does not carry the
 * thinking and redacted_thinking blocks of `original` exactly: `undefined` when they are all there, each
 * byte-identical (its JSON text) and in the same place among the turn's thinking and tool_use blocks;
 * else a 400 worded as the API words it ("Invalid `signature` in `thinking` block" for a block whose text or
 * signature changed, "cannot be modified" for a block missing, added, merged or moved).
 * @param body - the request body as the server received it
 * @param messageIndex - index in `messages` of the assistant turn that answered with `original`
 * @param original - the blocks the turn was streamed with
 */
export function refuseAlteredThinking(
  body: unknown,
  messageIndex: number,
  original: readonly WireBlock[],
): ReplayResponse | undefined {
  const messages = (body as { messages?: Array<{ role: string; content: Array<Record<string, unknown>> }> }).messages;
  const sent = messages?.[messageIndex];
  const modified = (at: number) =>
    refusal(
      `messages.${messageIndex}.content.${at}: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`,
    );
  if (sent?.role !== 'assistant' || !Array.isArray(sent.content)) return modified(0);
  // Text blocks may be trimmed or dropped by a client; thinking and tool_use blocks keep their order.
  const kept = sent.content.map((b, at) => ({ b, at })).filter(({ b }) => b.type !== 'text');
  const expected = original.filter((b) => b.type !== 'text');
  for (let i = 0; i < Math.max(kept.length, expected.length); i++) {
    const got = kept[i];
    const want = expected[i];
    const at = got?.at ?? sent.content.length;
    if (!got || !want || got.b.type !== want.type) {
      if ((got && isThinking(got.b)) || (want && isThinking(want))) return modified(at);
      continue;
    }
    if (isThinking(want) && JSON.stringify(got.b) !== JSON.stringify(want)) {
      return want.type === 'thinking'
        ? refusal(`messages.${messageIndex}.content.${at}: Invalid \`signature\` in \`thinking\` block`)
        : modified(at);
    }
  }
  return undefined;
}

/** The read tool the thinking-block tests offer (its wire name is `inventory_query`). */
export const inventoryQueryTool: ModelTool = {
  name: 'inventory.query',
  description: 'Query the library',
  inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
};

/** A thinking block with its signature. */
export const thinkingBlock = (thinking: string, signature: string): WireBlock => ({
  type: 'thinking',
  thinking,
  signature,
});

/** The redacted_thinking block the thinking-block tests stream. */
export const redactedBlock: WireBlock = {
  type: 'redacted_thinking',
  data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vCRiLy9Sh/3aJ+zxVRxTb7tQ',
};

/** A call of {@link inventoryQueryTool} (wire name `inventory_query`) for `title`. */
export const queryCall = (id: string, title: string): WireBlock => ({
  type: 'tool_use',
  id,
  name: 'inventory_query',
  input: { title },
});

/** The question the thinking-block tests ask. */
export const duneQuestion: ModelMessage = { role: 'user', content: 'Is Dune in the library?' };

/**
 * A server's answers: `events` first, then a final text for a continuation that carries the `original` blocks
 * back intact in its assistant turn (messages[1]), else the API's 400.
 */
export function continuationResponder(events: ReplayEvent[], original: WireBlock[]) {
  return (req: RecordedRequest, index: number): ReplayResponse =>
    index === 0
      ? { events }
      : (refuseAlteredThinking(req.json, 1, original) ?? anthropicText('Dune is in the library.'));
}

/** An `ok` tool result (`{"present":true}`) for every tool call of `m`. */
export const presentResultsFor = (m: AssistantMessage): ModelMessage[] =>
  m.content.flatMap((p) =>
    p.type === 'tool_call'
      ? [{ role: 'tool' as const, toolCallId: p.id, name: p.name, status: 'ok' as const, content: '{"present":true}' }]
      : [],
  );
