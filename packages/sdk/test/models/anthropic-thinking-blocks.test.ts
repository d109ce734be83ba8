// Anthropic thinking and redacted_thinking blocks: each is its own part, in stream order, and goes back
// to the API byte-identical, over real HTTP against a local server that refuses the next request the way
// the API does when a block was merged, altered, moved or lost.
import { describe, expect, it } from 'vitest';
import { AnthropicProvider, buildAnthropicBody } from '../../src/models/anthropic';
import { collectStream } from '../../src/models/complete';
import { WireReplayServer } from '../../src/models/replay-server';
import { RequestTools } from '../../src/models/tools';
import type { AssistantMessage, ModelMessage, ModelTool } from '../../src/models/types';
import { compact } from '../../src/runtime/context/compaction';
import { TiktokenCounter } from '../../src/models/token-counter';
import { drain, fastRetry, ofType, replayServers } from './helpers';
import {
  anthropicTurn,
  continuationResponder,
  duneQuestion,
  inventoryQueryTool,
  presentResultsFor,
  queryCall,
  redactedBlock,
  refuseAlteredThinking,
  thinkingBlock,
  type WireBlock,
} from './thinking-wire';

const KEY = 'sk-ant-test-0123456789abcdef';
const { track } = replayServers();

const tools: ModelTool[] = [inventoryQueryTool];

const first = thinkingBlock(
  'The user wants Dune. I should check the library first.',
  'EqQBCkYIBRgCIkBlz3m0Q1Zx9pJ5vX2m7kq8wRr1cHh0yT6sD4aN3fB2gE5iL9uV0oP8jK7mC6xZ1bA3nS4dQ2wE5rT6yU7iI8oEgxFirstBlockSig',
);
const second = thinkingBlock(
  'Also Dune: Part Two may be meant; one query covers both.',
  'EpUBCkYIBRgCIkCsecond9Kq2xW8vN3mB5lJ7hG1fD4sA6pO0iU9yT2rE8wQ3zX5cV7bN1mL4kJ6hG8fD0sA2pO4iU6yT8rE0wQEgxSecondSig',
);
const redacted = redactedBlock;
const call = queryCall('toolu_01Query', 'Dune');
const third = thinkingBlock(
  'Dune is there. Now Part Two.',
  'ErcBCkYIBRgCIkAthird1Qz3xW5vN7mB9lJ1hG3fD5sA7pO9iU1yT3rE5wQ7zX9cV1bN3mL5kJ7hG9fD1sA3pO5iU7yT9rE1wQEgxThirdSig',
);
const call2 = queryCall('toolu_02Query', 'Dune: Part Two');

/** A server that streams `blocks`, then answers a request that sends them back intact with a final text. */
async function serveTurn(blocks: WireBlock[]): Promise<WireReplayServer> {
  return track(await WireReplayServer.start(continuationResponder(anthropicTurn(blocks), blocks)));
}
const provider = (s: WireReplayServer) => new AnthropicProvider({ apiKey: KEY, baseUrl: s.url, retry: fastRetry });
const user = duneQuestion;
const resultsFor = presentResultsFor;

describe('Anthropic thinking blocks stay separate and byte-exact', () => {
  // simonw/llm-anthropic#81: consecutive thinking blocks merged into one part (text concatenated, the last
  // signature kept) and redacted_thinking lost, so the continuation was refused with a 400.
  it('marks where every thinking and redacted_thinking block starts, so no two blocks merge', async () => {
    const s = await serveTurn([first, second, redacted, call]);
    const events = await drain(provider(s).stream({ model: 'claude-sonnet-4-5', messages: [user], tools }));
    const thinking = ofType(events, 'thinking_delta');
    // Each block's first delta (its first half of text; the redacted block's one delta) and nothing else.
    expect(thinking.map((e) => (e.start ? (e.redacted ?? e.thinking) : '-'))).toEqual([
      'The user wants Dune. I shou',
      '-',
      '-',
      'Also Dune: Part Two may be m',
      '-',
      '-',
      (redacted as { data: string }).data,
    ]);
    expect(thinking.filter((e) => e.signature !== undefined).map((e) => e.signature)).toEqual([
      (first as { signature: string }).signature,
      (second as { signature: string }).signature,
    ]);
  });

  it('collects two thinking blocks, a redacted_thinking block and a tool call as four parts, and sends each back byte-identical', async () => {
    const s = await serveTurn([first, second, redacted, call]);
    const p = provider(s);
    const turn = await collectStream(p.stream({ model: 'claude-sonnet-4-5', messages: [user], tools }));
    expect(turn.message.content.map((c) => c.type)).toEqual(['thinking', 'thinking', 'thinking', 'tool_call']);
    expect(turn.message.content.slice(0, 3)).toEqual([
      {
        type: 'thinking',
        thinking: (first as { thinking: string }).thinking,
        signature: (first as { signature: string }).signature,
      },
      {
        type: 'thinking',
        thinking: (second as { thinking: string }).thinking,
        signature: (second as { signature: string }).signature,
      },
      { type: 'thinking', thinking: '', redacted: (redacted as { data: string }).data },
    ]);
    const next = await collectStream(
      p.stream({ model: 'claude-sonnet-4-5', messages: [user, turn.message, ...resultsFor(turn.message)], tools }),
    );
    expect(s.requests).toHaveLength(2);
    const sent = (s.requests[1]!.json as { messages: Array<{ content: unknown[] }> }).messages[1]!.content;
    expect(sent.slice(0, 3).map((b) => JSON.stringify(b))).toEqual(
      [first, second, redacted].map((b) => JSON.stringify(b)),
    );
    expect(next.message.content).toEqual([{ type: 'text', text: 'Dune is in the library.' }]);
  });

  // NousResearch/hermes-agent#35975: interleaved thinking (thinking, tool_use, thinking, tool_use) rebuilt as
  // [all thinking][all tool_use] was refused ("blocks ... cannot be modified").
  it('keeps interleaved thinking between tool calls in place (beta interleaved-thinking-2025-05-14)', async () => {
    const blocks = [first, call, third, call2];
    const s = await serveTurn(blocks);
    const p = new AnthropicProvider({
      apiKey: KEY,
      baseUrl: s.url,
      retry: fastRetry,
      betas: ['interleaved-thinking-2025-05-14'],
    });
    const turn = await collectStream(p.stream({ model: 'claude-sonnet-4-5', messages: [user], tools }));
    expect(turn.message.content.map((c) => c.type)).toEqual(['thinking', 'tool_call', 'thinking', 'tool_call']);
    const next = await collectStream(
      p.stream({ model: 'claude-sonnet-4-5', messages: [user, turn.message, ...resultsFor(turn.message)], tools }),
    );
    expect(s.requests[0]!.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
    expect(next.stopReason).toBe('end_turn');
  });

  it('the test server refuses a merged pair of thinking blocks with the API’s error (the check can fail)', async () => {
    const s = await serveTurn([first, second, call]);
    const merged: AssistantMessage = {
      role: 'assistant',
      content: [
        {
          type: 'thinking',
          thinking: `${(first as { thinking: string }).thinking}${(second as { thinking: string }).thinking}`,
          signature: (second as { signature: string }).signature,
        },
        { type: 'tool_call', id: 'toolu_01Query', name: 'inventory.query', input: { title: 'Dune' } },
      ],
    };
    await drain(provider(s).stream({ model: 'claude-sonnet-4-5', messages: [user], tools }));
    const events = await drain(
      provider(s).stream({ model: 'claude-sonnet-4-5', messages: [user, merged, ...resultsFor(merged)], tools }),
    );
    expect(ofType(events, 'error')[0]?.error).toMatchObject({
      code: 'PROVIDER_HTTP',
      message: expect.stringContaining('messages.1.content.0: Invalid `signature` in `thinking` block'),
    });
  });

  it('a compacted conversation keeps the latest turn’s blocks as they were, and sends them back byte-identical', async () => {
    const blocks = [first, second, redacted, call];
    const s = await serveTurn(blocks);
    const p = provider(s);
    const filler = Array.from({ length: 150 }, (_, k) => `word${k}`).join(' ');
    const older: ModelMessage[] = [];
    for (let i = 0; i < 6; i++)
      older.push(
        { role: 'user', content: `earlier question ${i} ${filler}` },
        { role: 'assistant', content: [{ type: 'text', text: `earlier answer ${i} ${filler}` }] },
      );
    const turn = await collectStream(p.stream({ model: 'claude-sonnet-4-5', messages: [user], tools }));
    const history: ModelMessage[] = [...older, user, turn.message, ...resultsFor(turn.message)];
    const compacted = await compact(history, {
      counter: new TiktokenCounter(),
      model: 'claude-sonnet-4-5',
      contextWindowTokens: 2_000,
      summarize: async () => 'The user asked earlier questions; all were answered.',
    });
    expect(compacted.summarySource).toBe('model');
    const kept = compacted.messages.find(
      (m): m is AssistantMessage => m.role === 'assistant' && m.content.some((c) => c.type === 'thinking'),
    );
    expect(kept?.content).toEqual(turn.message.content);
    // Sent after the summary message: the assistant turn is messages[1] of the next request.
    const body = buildAnthropicBody(
      { model: 'claude-sonnet-4-5', messages: compacted.messages, tools },
      { apiKey: KEY },
      new RequestTools(tools),
    ) as { messages: Array<{ role: string; content: Array<{ type: string }> }> };
    const at = body.messages.findIndex((m) => m.role === 'assistant' && m.content.some((b) => b.type === 'thinking'));
    expect(at).toBeGreaterThan(0);
    expect(refuseAlteredThinking(body, at, blocks)).toBeUndefined();
  });
});
