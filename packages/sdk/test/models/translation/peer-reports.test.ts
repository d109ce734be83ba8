// Peer projects' bug reports about conversations that change provider or model, each replayed against a local
// server that validates like the real API (strict-wire.ts). Every request must be accepted.
import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../../src/models/anthropic';
import { OpenAICompatibleProvider } from '../../../src/models/openai-compatible';
import { WireReplayServer } from '../../../src/models/replay-server';
import type { ModelMessage, ModelRequest } from '../../../src/models/types';
import { drain, fastRetry, ofType, replayServers } from '../helpers';
import { inventoryQueryTool } from '../thinking-wire';
import { chatChunk, signatureFor, StrictAnthropic, StrictChat, type StrictChatFlavor } from './strict-wire';

const { track } = replayServers();

const anthropicOn = async (server: StrictAnthropic) => {
  const s = track(await WireReplayServer.start(server.respond));
  return {
    s,
    provider: new AnthropicProvider({ apiKey: 'sk-ant-strict-0123456789', baseUrl: s.url, retry: fastRetry }),
  };
};
const chatOn = async (server: StrictChat, dialect: StrictChatFlavor) => {
  const s = track(await WireReplayServer.start(server.respond));
  return {
    s,
    provider: new OpenAICompatibleProvider({
      apiKey: 'sk-strict-0123456789',
      baseUrl: s.url,
      dialect,
      retry: fastRetry,
    }),
  };
};
const finalText = (text: string) => ({ blocks: [{ type: 'text' as const, text }] });
const chatText = (text: string) => [chatChunk({ role: 'assistant', content: text }), chatChunk({}, 'stop')];

const question: ModelMessage = { role: 'user', content: 'Is Dune in the library?' };
const callAndResult = (id: string): ModelMessage[] => [
  { role: 'assistant', content: [{ type: 'tool_call', id, name: 'inventory.query', input: { title: 'Dune' } }] },
  { role: 'tool', toolCallId: id, name: 'inventory.query', status: 'ok', content: '{"present":true}' },
];

describe('peer reports: a conversation that changes provider or model', () => {
  it('NousResearch/hermes-agent#24401: a thinking block an Anthropic-compatible relay signed for its own model (MiniMax) is not replayed to Claude', async () => {
    const server = new StrictAnthropic([finalText('Yes, Dune is there.')]);
    const { s, provider } = await anthropicOn(server);
    const request: ModelRequest = {
      model: 'claude-opus-4-7',
      thinking: 'medium',
      tools: [inventoryQueryTool],
      messages: [
        question,
        {
          role: 'assistant',
          content: [
            {
              type: 'thinking',
              thinking: 'MiniMax reasoning about the library.',
              signature: 'minimax-signature-0001',
              origin: { provider: 'anthropic', model: 'MiniMax-M2' },
            },
            { type: 'text', text: 'Let me check.' },
          ],
        },
        { role: 'user', content: 'Please check again.' },
      ],
    };
    const events = await drain(provider.stream(request));
    expect(server.refusals).toEqual([]);
    expect(ofType(events, 'error')).toEqual([]);
    expect(JSON.stringify(s.requests[0]!.json)).not.toContain('minimax-signature-0001');
  });

  it('vybestack/llxprt-code#2335: switching Claude model (opus → sonnet → opus) sends each signed block only to the model that signed it', async () => {
    const opusThinking = 'Check the library before answering.';
    const server = new StrictAnthropic([finalText('Sonnet: yes.'), finalText('Opus: yes.')]);
    server.issue('claude-opus-4-1', opusThinking, signatureFor('claude-opus-4-1', opusThinking));
    const { s, provider } = await anthropicOn(server);
    const messages: ModelMessage[] = [
      question,
      {
        role: 'assistant',
        content: [
          {
            type: 'thinking',
            thinking: opusThinking,
            signature: signatureFor('claude-opus-4-1', opusThinking),
            origin: { provider: 'anthropic', model: 'claude-opus-4-1' },
          },
          { type: 'text', text: 'It is there.' },
        ],
      },
      { role: 'user', content: 'Sure?' },
    ];
    await drain(provider.stream({ model: 'claude-sonnet-4-5', thinking: 'low', messages }));
    await drain(provider.stream({ model: 'claude-opus-4-1', thinking: 'low', messages }));
    expect(server.refusals).toEqual([]);
    const sent = s.requests.map((r) => JSON.stringify(r.json));
    expect(sent[0]).not.toContain(opusThinking);
    expect(sent[1]).toContain(opusThinking);
  });

  it('anomalyco/opencode#3077, OpenRouterTeam/ai-sdk-provider#162: a tool loop another family began continues on Claude with thinking on (the request goes without `thinking`)', async () => {
    const server = new StrictAnthropic([finalText('Dune is in the library.'), finalText('Done.')]);
    const { s, provider } = await anthropicOn(server);
    const loop: ModelMessage[] = [
      question,
      {
        role: 'assistant',
        content: [
          {
            type: 'thinking',
            thinking: 'deepseek reasoning',
            origin: { provider: 'openai-compatible:deepseek', model: 'deepseek-reasoner' },
          },
          {
            type: 'tool_call',
            id: 'call_1_0',
            name: 'inventory.query',
            input: { title: 'Dune' },
          },
        ],
      },
      { role: 'tool', toolCallId: 'call_1_0', name: 'inventory.query', status: 'ok', content: '{"present":true}' },
    ];
    const first = await drain(
      provider.stream({ model: 'claude-sonnet-4-5', thinking: 'medium', tools: [inventoryQueryTool], messages: loop }),
    );
    expect(ofType(first, 'error')).toEqual([]);
    expect(s.requests[0]!.json).not.toHaveProperty('thinking');
    expect(ofType(first, 'warning').map((e) => [e.warning.code, e.warning.details])).toEqual([
      ['PROVIDER_THINKING_SUSPENDED', { provider: 'anthropic', model: 'claude-sonnet-4-5', thinking: 'medium' }],
    ]);
    // The next user turn starts a new loop: thinking is on again.
    const next: ModelMessage[] = [
      ...loop,
      { role: 'assistant', content: [{ type: 'text', text: 'Dune is in the library.' }] },
      { role: 'user', content: 'Thanks' },
    ];
    await drain(
      provider.stream({ model: 'claude-sonnet-4-5', thinking: 'medium', tools: [inventoryQueryTool], messages: next }),
    );
    expect(server.refusals).toEqual([]);
    expect(s.requests[1]!.json).toMatchObject({ thinking: { type: 'enabled' } });
  });

  it('langchain-ai/langchain#24668, anomalyco/opencode#1680: the runtime ids (call_3_0) go to Mistral as 9 alphanumerics, each result still naming its call', async () => {
    const server = new StrictChat('mistral', [chatText('Dune is in the library.')]);
    const { s, provider } = await chatOn(server, 'mistral');
    const events = await drain(
      provider.stream({
        model: 'mistral-large-latest',
        tools: [inventoryQueryTool],
        messages: [question, ...callAndResult('call_3_0'), ...callAndResult('call_3_1')],
      }),
    );
    expect(server.refusals).toEqual([]);
    expect(ofType(events, 'error')).toEqual([]);
    const sent = (
      s.requests[0]!.json as {
        messages: Array<{ role: string; tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
      }
    ).messages;
    const callIds = sent.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
    const resultIds = sent.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    expect(callIds).toHaveLength(2);
    expect(new Set(callIds).size).toBe(2);
    for (const id of callIds) expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(resultIds).toEqual(callIds);
  });

  it('openclaw/openclaw#875, vercel/ai#8132: a tool call id over 40 characters goes to OpenAI shortened, its result following it', async () => {
    const long = 'ws_689e2d4880a0819d98acca37694989b00b15d90494fc6b87_0123456789_abcdefghijklmnopqrstuv';
    const server = new StrictChat('openai', [chatText('Dune is in the library.')]);
    const { s, provider } = await chatOn(server, 'openai');
    await drain(
      provider.stream({ model: 'gpt-4.1', tools: [inventoryQueryTool], messages: [question, ...callAndResult(long)] }),
    );
    expect(server.refusals).toEqual([]);
    const sent = (
      s.requests[0]!.json as { messages: Array<{ tool_calls?: Array<{ id: string }>; tool_call_id?: string }> }
    ).messages;
    const id = sent[1]!.tool_calls![0]!.id;
    expect(id.length).toBeLessThanOrEqual(40);
    expect(sent[2]!.tool_call_id).toBe(id);
  });

  it("can1357/oh-my-pi#7241: another family's reasoning never reaches Claude, not even as text", async () => {
    const server = new StrictAnthropic([finalText('Yes.')]);
    const { s, provider } = await anthropicOn(server);
    await drain(
      provider.stream({
        model: 'claude-sonnet-4-5',
        messages: [
          question,
          {
            role: 'assistant',
            content: [
              {
                type: 'thinking',
                thinking: 'GPT REASONING SUMMARY',
                origin: { provider: 'openai-compatible:openai', model: 'gpt-5' },
              },
              { type: 'text', text: 'It is there.' },
            ],
          },
          { role: 'user', content: 'Sure?' },
        ],
      }),
    );
    expect(server.refusals).toEqual([]);
    expect(JSON.stringify(s.requests[0]!.json)).not.toContain('GPT REASONING SUMMARY');
    expect(JSON.stringify(s.requests[0]!.json)).toContain('It is there.');
  });
});
