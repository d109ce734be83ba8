// Anthropic thinking blocks streamed in shapes other than the API's usual order (a signature in
// `content_block_start`, an empty `signature_delta`, a `signature_delta` before the text), over real HTTP
// against a local server that refuses the next request the way the API does when a block was altered, moved
// or lost. The rule: every thinking block goes back unchanged, with its signature
// (https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks).
import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/models/anthropic';
import { collectStream } from '../../src/models/complete';
import { WireReplayServer, type RecordedRequest, type ReplayEvent } from '../../src/models/replay-server';
import type { AssistantMessage, ModelTool } from '../../src/models/types';
import { drain, fastRetry, ofType, replayServers } from './helpers';
import {
  anthropicText,
  anthropicTurn,
  continuationResponder,
  duneQuestion,
  inventoryQueryTool,
  presentResultsFor,
  queryCall,
  type WireBlock,
} from './thinking-wire';

const KEY = 'sk-ant-test-0123456789abcdef';
const { track } = replayServers();

const tools: ModelTool[] = [inventoryQueryTool];
const user = duneQuestion;
const call = queryCall('toolu_01Query', 'Dune');
const SIG_A =
  'EqQBCkYIBRgCIkBlz3m0Q1Zx9pJ5vX2m7kq8wRr1cHh0yT6sD4aN3fB2gE5iL9uV0oP8jK7mC6xZ1bA3nS4dQ2wE5rT6yU7iI8oEgxEdgeSigA';
const SIG_B =
  'EpUBCkYIBRgCIkCsecond9Kq2xW8vN3mB5lJ7hG1fD4sA6pO0iU9yT2rE8wQ3zX5cV7bN1mL4kJ6hG8fD0sA2pO4iU6yT8rE0wQEgxEdgeSigB';

const wire = (data: Record<string, unknown>): ReplayEvent => ({
  event: data.type as string,
  data: JSON.stringify(data),
});
const start = (index: number, content_block: Record<string, unknown>) =>
  wire({ type: 'content_block_start', index, content_block });
const delta = (index: number, d: Record<string, unknown>) => wire({ type: 'content_block_delta', index, delta: d });
const stop = (index: number) => wire({ type: 'content_block_stop', index });

/**
 * A turn whose first blocks are streamed as `blockEvents` (indexes 0…n-1, written by the test) and whose
 * last block is the tool call `call` at index `callIndex`, streamed the API's way.
 */
function turnWith(blockEvents: ReplayEvent[], callIndex: number): ReplayEvent[] {
  const framing = anthropicTurn([], 'tool_use'); // message_start, message_delta, message_stop
  const toolEvents = anthropicTurn([call])
    .slice(1, -2)
    .map((e) => {
      const data = JSON.parse(e.data) as Record<string, unknown>;
      return wire({ ...data, index: callIndex });
    });
  return [framing[0]!, ...blockEvents, ...toolEvents, ...framing.slice(1)];
}

/**
 * A server that streams `events`, then answers the continuation with a final text when it carries the
 * `original` blocks back intact (else the API's 400).
 */
async function serve(events: ReplayEvent[], original: WireBlock[]): Promise<WireReplayServer> {
  return track(await WireReplayServer.start(continuationResponder(events, original)));
}

const provider = (s: WireReplayServer) => new AnthropicProvider({ apiKey: KEY, baseUrl: s.url, retry: fastRetry });
const resultsFor = presentResultsFor;
/** The assistant blocks of the continuation request. */
const sentBlocks = (s: WireReplayServer): Array<Record<string, unknown>> =>
  (s.requests[1]!.json as { messages: Array<{ content: Array<Record<string, unknown>> }> }).messages[1]!.content;

/** Streams the turn, sends it back with the tool result, and returns the turn and the continuation. */
async function roundTrip(s: WireReplayServer) {
  const p = provider(s);
  const events = await drain(p.stream({ model: 'claude-sonnet-4-5', messages: [user], tools }));
  const turn = await collectStream(
    (async function* () {
      yield* events;
    })(),
  );
  const next = await drain(
    p.stream({ model: 'claude-sonnet-4-5', messages: [user, turn.message, ...resultsFor(turn.message)], tools }),
  );
  return { events, turn, next };
}

describe('Anthropic thinking blocks in unusual stream shapes', () => {
  // Gateways that replay a non-streamed response send each block whole in content_block_start.
  it('keeps the text and signature a content_block_start carries when no delta follows, and sends them back', async () => {
    const block: WireBlock = { type: 'thinking', thinking: 'whole', signature: 'SIGW' };
    const s = await serve(
      turnWith([start(0, { type: 'thinking', thinking: 'whole', signature: 'SIGW' }), stop(0)], 1),
      [block, call],
    );
    const { turn, next } = await roundTrip(s);
    expect(turn.message.content.map((c) => c.type)).toEqual(['thinking', 'tool_call']);
    expect(turn.message.content[0]).toEqual({ type: 'thinking', thinking: 'whole', signature: 'SIGW' });
    expect(JSON.stringify(sentBlocks(s)[0])).toBe(JSON.stringify(block));
    expect(ofType(next, 'error')).toEqual([]);
    expect(
      ofType(next, 'text_delta')
        .map((e) => e.text)
        .join(''),
    ).toBe('Dune is in the library.');
  });

  it('a start block’s text continued by thinking_deltas and signed by a signature_delta is one part', async () => {
    const block: WireBlock = { type: 'thinking', thinking: 'whole and more', signature: SIG_A };
    const s = await serve(
      turnWith(
        [
          start(0, { type: 'thinking', thinking: 'whole', signature: '' }),
          delta(0, { type: 'thinking_delta', thinking: ' and more' }),
          delta(0, { type: 'signature_delta', signature: SIG_A }),
          stop(0),
        ],
        1,
      ),
      [block, call],
    );
    const { turn, next } = await roundTrip(s);
    expect(turn.message.content[0]).toEqual({ type: 'thinking', thinking: 'whole and more', signature: SIG_A });
    expect(ofType(next, 'error')).toEqual([]);
  });

  it.each([
    ['an empty signature_delta', [delta(0, { type: 'signature_delta', signature: '' })]],
    ['no signature_delta at all', []],
  ])(
    'a thinking block with %s is reported (PROVIDER_THINKING_UNSIGNED), kept unsigned, and never sent with an empty signature',
    async (_name, signatureEvents) => {
      const s = await WireReplayServer.start((_req: RecordedRequest, index: number) =>
        index === 0
          ? {
              events: turnWith(
                [
                  start(0, { type: 'thinking', thinking: '', signature: '' }),
                  delta(0, { type: 'thinking_delta', thinking: 'Unsigned ' }),
                  delta(0, { type: 'thinking_delta', thinking: 'thought.' }),
                  ...signatureEvents,
                  stop(0),
                ],
                1,
              ),
            }
          : anthropicText('Dune is in the library.'),
      );
      track(s);
      const { events, turn } = await roundTrip(s);
      expect(ofType(events, 'warning').map((e) => e.warning)).toEqual([
        {
          code: 'PROVIDER_THINKING_UNSIGNED',
          message: expect.stringContaining('without a signature'),
          details: { provider: 'anthropic', index: 0, thinkingChars: 'Unsigned thought.'.length },
        },
      ]);
      // The warning comes when the block ends, before the tool call.
      expect(events.findIndex((e) => e.type === 'warning')).toBeLessThan(
        events.findIndex((e) => e.type === 'tool_call_start'),
      );
      expect(turn.message.content).toEqual([
        { type: 'thinking', thinking: 'Unsigned thought.' },
        expect.objectContaining({ type: 'tool_call', id: 'toolu_01Query' }),
      ]);
      const sent = sentBlocks(s);
      expect(sent.map((b) => b.type)).toEqual(['tool_use']);
      expect(JSON.stringify(s.requests[1]!.json)).not.toContain('"signature":""');
    },
  );

  it('a signed block raises no warning', async () => {
    const block: WireBlock = { type: 'thinking', thinking: 'Signed thought.', signature: SIG_A };
    const s = await serve(anthropicTurn([block, call]), [block, call]);
    const { events } = await roundTrip(s);
    expect(ofType(events, 'warning')).toEqual([]);
  });

  it('a signature_delta before the thinking_deltas still gives one part per block, sent back byte-identical', async () => {
    const a: WireBlock = { type: 'thinking', thinking: 'late text', signature: SIG_A };
    const b: WireBlock = { type: 'thinking', thinking: 'second block', signature: SIG_B };
    const s = await serve(
      turnWith(
        [
          start(0, { type: 'thinking', thinking: '', signature: '' }),
          delta(0, { type: 'signature_delta', signature: SIG_A }),
          delta(0, { type: 'thinking_delta', thinking: 'late ' }),
          delta(0, { type: 'thinking_delta', thinking: 'text' }),
          stop(0),
          start(1, { type: 'thinking', thinking: '', signature: '' }),
          delta(1, { type: 'signature_delta', signature: SIG_B }),
          delta(1, { type: 'thinking_delta', thinking: 'second block' }),
          stop(1),
        ],
        2,
      ),
      [a, b, call],
    );
    const { turn, next } = await roundTrip(s);
    expect(turn.message.content.slice(0, 2)).toEqual([
      { type: 'thinking', thinking: 'late text', signature: SIG_A },
      { type: 'thinking', thinking: 'second block', signature: SIG_B },
    ]);
    expect(turn.message.content).toHaveLength(3);
    expect(
      sentBlocks(s)
        .slice(0, 2)
        .map((x) => JSON.stringify(x)),
    ).toEqual([a, b].map((x) => JSON.stringify(x)));
    expect(ofType(next, 'error')).toEqual([]);
  });

  it('a signature_delta between two thinking_deltas of one block keeps the block one part', async () => {
    const a: WireBlock = { type: 'thinking', thinking: 'first half, second half', signature: SIG_A };
    const s = await serve(
      turnWith(
        [
          start(0, { type: 'thinking', thinking: '', signature: '' }),
          delta(0, { type: 'thinking_delta', thinking: 'first half, ' }),
          delta(0, { type: 'signature_delta', signature: SIG_A }),
          delta(0, { type: 'thinking_delta', thinking: 'second half' }),
          stop(0),
        ],
        1,
      ),
      [a, call],
    );
    const { events, turn, next } = await roundTrip(s);
    // The signature is emitted once, as the block's last delta.
    expect(ofType(events, 'thinking_delta')).toEqual([
      { type: 'thinking_delta', thinking: 'first half, ', start: true },
      { type: 'thinking_delta', thinking: 'second half' },
      { type: 'thinking_delta', thinking: '', signature: SIG_A },
    ]);
    expect(turn.message.content[0]).toEqual({
      type: 'thinking',
      thinking: 'first half, second half',
      signature: SIG_A,
    });
    expect(ofType(next, 'error')).toEqual([]);
  });

  it('the test server refuses a block that comes back split (the check can fail)', async () => {
    const a: WireBlock = { type: 'thinking', thinking: 'late text', signature: SIG_A };
    const s = await serve(anthropicTurn([a, call]), [a, call]);
    const split: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: '', signature: SIG_A },
        { type: 'thinking', thinking: 'late text' },
        { type: 'tool_call', id: 'toolu_01Query', name: 'inventory.query', input: { title: 'Dune' } },
      ],
    };
    await drain(provider(s).stream({ model: 'claude-sonnet-4-5', messages: [user], tools }));
    const events = await drain(
      provider(s).stream({ model: 'claude-sonnet-4-5', messages: [user, split, ...resultsFor(split)], tools }),
    );
    expect(ofType(events, 'error')[0]?.error).toMatchObject({
      code: 'PROVIDER_HTTP',
      message: expect.stringContaining('messages.1.content.0: Invalid `signature` in `thinking` block'),
    });
  });
});
