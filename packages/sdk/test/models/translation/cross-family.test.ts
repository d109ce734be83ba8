// A recorded Anthropic conversation with signed thinking and a tool call, continued on an OpenAI-compatible server
// (openai, deepseek, mistral) and back on Anthropic, through the runtime's turn assembly (origins stamped) and
// JSON storage, against servers that validate like the real APIs (strict-wire.ts): every request is accepted.
import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../../src/models/anthropic';
import { OpenAICompatibleProvider } from '../../../src/models/openai-compatible';
import { WireReplayServer } from '../../../src/models/replay-server';
import type { AssistantMessage, ModelMessage, ModelProvider, ThinkingLevel } from '../../../src/models/types';
import { runModelTurn } from '../../../src/runtime/loop/model-turn';
import { fastRetry, fixture, replayServers } from '../helpers';
import { duneQuestion, inventoryQueryTool, presentResultsFor } from '../thinking-wire';
import { chatChunk, StrictAnthropic, StrictChat, type StrictChatFlavor } from './strict-wire';

const { track } = replayServers();

/** The thinking text and signature of a recorded Claude turn (claude-sonnet-4-5, test/fixtures/provider-streams). */
function recordedThinking(): { thinking: string; signature: string } {
  let thinking = '';
  let signature = '';
  for (const line of fixture('anthropic-clear-thinking.1.chunks.txt').split('\n')) {
    if (line.trim() === '') continue;
    const e = JSON.parse(line) as { type: string; delta?: { type: string; thinking?: string; signature?: string } };
    if (e.delta?.type === 'thinking_delta') thinking += e.delta.thinking;
    if (e.delta?.type === 'signature_delta') signature = e.delta.signature!;
  }
  return { thinking, signature };
}

const CLAUDE = 'claude-sonnet-4-5';
const MODELS: Record<StrictChatFlavor, string> = {
  openai: 'gpt-4.1',
  deepseek: 'deepseek-reasoner',
  mistral: 'magistral-medium-latest',
};
const DEEPSEEK_REASONING = 'The library said yes; confirm with a second query for the sequel.';

async function turn(
  provider: ModelProvider,
  model: string,
  thinking: ThinkingLevel,
  messages: readonly ModelMessage[],
  callPrefix: string,
): Promise<AssistantMessage> {
  const result = await runModelTurn(
    { provider, model, thinking, maxTokens: undefined, systemPrompt: undefined, maxInputBytes: 100_000 },
    { messages, tools: [inventoryQueryTool], callPrefix, signal: new AbortController().signal },
    { text: () => {}, warning: () => {} },
  );
  expect(result.error).toBeUndefined();
  // Stored as JSON text by the runtime: what survives that is what goes back.
  return JSON.parse(JSON.stringify(result.message)) as AssistantMessage;
}

/** The chat server's tool-call answer in each flavor's wire shape. */
function chatToolCall(flavor: StrictChatFlavor) {
  const call = {
    index: 0,
    id: flavor === 'mistral' ? 'gSIMJiOkT' : 'call_Xy7bQ2pLmN4vR8sT1uW3zA5c',
    type: 'function',
    function: { name: 'inventory_query', arguments: '{"title":"Dune Messiah"}' },
  };
  return [
    ...(flavor === 'deepseek'
      ? [chatChunk({ role: 'assistant', content: null, reasoning_content: DEEPSEEK_REASONING })]
      : []),
    chatChunk({ tool_calls: [call] }),
    chatChunk({}, 'tool_calls'),
  ];
}

describe('a conversation that switches provider family and back', () => {
  it.each(['openai', 'deepseek', 'mistral'] as const)(
    'Anthropic (signed thinking, tool call) → %s → Anthropic → the same server again: every request accepted, thinking only where it came from',
    async (flavor) => {
      const recorded = recordedThinking();
      expect(recorded.thinking.length).toBeGreaterThan(20);
      expect(recorded.signature.length).toBeGreaterThan(100);
      const claude = new StrictAnthropic([
        {
          blocks: [
            { type: 'thinking', thinking: recorded.thinking, signature: recorded.signature },
            {
              type: 'tool_use',
              id: 'toolu_01D7FLrfh4GYq7yT1ULFeyMV',
              name: 'inventory_query',
              input: { title: 'Dune' },
            },
          ],
          stop: 'tool_use',
        },
        { blocks: [{ type: 'text', text: 'Dune and Dune Messiah are in the library.' }] },
        {
          blocks: [
            { type: 'thinking', thinking: 'Answer the thanks briefly.' },
            { type: 'text', text: 'You are welcome.' },
          ],
        },
      ]);
      const chat = new StrictChat(flavor, [
        chatToolCall(flavor),
        [chatChunk({ role: 'assistant', content: 'Both are there.' }), chatChunk({}, 'stop')],
      ]);
      const a = track(await WireReplayServer.start(claude.respond));
      const c = track(await WireReplayServer.start(chat.respond));
      const anthropic = new AnthropicProvider({ apiKey: 'sk-ant-strict-0123456789', baseUrl: a.url, retry: fastRetry });
      const compatible = new OpenAICompatibleProvider({
        apiKey: 'sk-strict-0123456789',
        baseUrl: c.url,
        dialect: flavor,
        retry: fastRetry,
      });

      // 1. Claude thinks (signed) and calls the tool.
      const m1 = await turn(anthropic, CLAUDE, 'medium', [duneQuestion], 'call_1');
      expect(m1.content[0]).toMatchObject({
        type: 'thinking',
        signature: recorded.signature,
        origin: { provider: 'anthropic', model: CLAUDE },
      });
      const conversation: ModelMessage[] = [duneQuestion, m1, ...presentResultsFor(m1)];

      // 2. The OpenAI-compatible server continues the tool loop: no Anthropic thinking or signature reaches it.
      const m2 = await turn(compatible, MODELS[flavor], 'medium', conversation, 'call_3');
      const toChat = JSON.stringify(c.requests[0]!.json);
      expect(toChat).not.toContain(recorded.signature);
      expect(toChat).not.toContain(recorded.thinking.slice(0, 40));
      expect(m2.content.some((p) => p.type === 'tool_call' && p.id === 'call_3_0')).toBe(true);
      conversation.push(m2, ...presentResultsFor(m2));

      // 3. Back on Claude inside the tool loop the other family continued: Claude's own block goes back,
      //    thinking is left off for this request (the loop's last turn has no thinking block to start with).
      const m3 = await turn(anthropic, CLAUDE, 'medium', conversation, 'call_5');
      const back = a.requests[1]!.json as Record<string, unknown>;
      expect(back).not.toHaveProperty('thinking');
      expect(JSON.stringify(back)).toContain(recorded.signature);
      expect(JSON.stringify(back)).not.toContain(DEEPSEEK_REASONING);
      conversation.push(m3, { role: 'user', content: 'Thanks!' });

      // 4. A new user turn on Claude: thinking is on again.
      const m4 = await turn(anthropic, CLAUDE, 'medium', conversation, 'call_7');
      expect(a.requests[2]!.json).toMatchObject({ thinking: { type: 'enabled' } });
      conversation.push(m4, { role: 'user', content: 'And on the other server?' });

      // 5. The other family again: its own reasoning goes back under its dialect's rule, Claude's never.
      await turn(compatible, MODELS[flavor], 'medium', conversation, 'call_9');
      const again = JSON.stringify(c.requests[1]!.json);
      expect(again).not.toContain('Answer the thanks briefly.');
      expect(again).not.toContain(recorded.signature);
      if (flavor === 'deepseek') expect(again).toContain(DEEPSEEK_REASONING);

      expect(claude.refusals).toEqual([]);
      expect(chat.refusals).toEqual([]);
      expect(a.requests).toHaveLength(3);
      expect(c.requests).toHaveLength(2);
    },
  );
});
