// The built-in dialect records (documented base URL, output-limit field, thinking parameters, replay
// rule), the replay rule as a pure function, and the provider metadata (OpenRouter reasoning_details,
// Gemini thought signatures) surviving the runtime's turn assembly and JSON storage.
import { describe, expect, it } from 'vitest';
import { joinApiUrl } from '../../src/models/http';
import { replayedReasoning } from '../../src/models/openai-assistant';
import { OpenAICompatibleProvider } from '../../src/models/openai-compatible';
import { OPENAI_DIALECTS, type OpenAIDialectName } from '../../src/models/openai-dialects';
import { WireReplayServer } from '../../src/models/replay-server';
import type { AssistantMessage, ModelMessage, ModelTool } from '../../src/models/types';
import { runModelTurn } from '../../src/runtime/loop/model-turn';
import { replayServers } from './helpers';

const { track } = replayServers();

const records: Array<{
  dialect: OpenAIDialectName;
  url: string;
  maxTokensField: string;
  thinking: Record<string, unknown>;
  replay: string;
}> = [
  {
    dialect: 'deepseek',
    url: 'https://api.deepseek.com/v1/chat/completions',
    maxTokensField: 'max_tokens',
    thinking: { thinking: { type: 'enabled' } },
    replay: 'tool-calls',
  },
  {
    dialect: 'kimi',
    url: 'https://api.moonshot.ai/v1/chat/completions',
    maxTokensField: 'max_tokens',
    thinking: { thinking: { type: 'enabled' } },
    replay: 'tool-calls',
  },
  {
    dialect: 'glm',
    url: 'https://api.z.ai/api/paas/v4/chat/completions',
    maxTokensField: 'max_tokens',
    thinking: { thinking: { type: 'enabled', clear_thinking: false } },
    replay: 'all',
  },
  {
    dialect: 'qwen',
    url: 'https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions',
    maxTokensField: 'max_tokens',
    thinking: { enable_thinking: true, thinking_budget: 8192 },
    replay: 'none',
  },
  {
    dialect: 'openrouter',
    url: 'https://openrouter.ai/api/v1/chat/completions',
    maxTokensField: 'max_tokens',
    thinking: { reasoning: { effort: 'medium' } },
    replay: 'all',
  },
  {
    dialect: 'mistral',
    url: 'https://api.mistral.ai/v1/chat/completions',
    maxTokensField: 'max_tokens',
    thinking: { reasoning_effort: 'medium' },
    replay: 'all',
  },
  {
    dialect: 'gemini',
    url: 'https://generativelanguage.googleapis.com/v1beta/openai/chat/completions',
    maxTokensField: 'max_tokens',
    thinking: { reasoning_effort: 'medium' },
    replay: 'none',
  },
  {
    dialect: 'groq',
    url: 'https://api.groq.com/openai/v1/chat/completions',
    maxTokensField: 'max_completion_tokens',
    thinking: { reasoning_effort: 'medium', include_reasoning: true },
    replay: 'none',
  },
  {
    dialect: 'xai',
    url: 'https://api.x.ai/v1/chat/completions',
    maxTokensField: 'max_tokens',
    thinking: { reasoning_effort: 'high' },
    replay: 'none',
  },
  {
    dialect: 'siliconflow',
    url: 'https://api.siliconflow.cn/v1/chat/completions',
    maxTokensField: 'max_tokens',
    thinking: { enable_thinking: true, thinking_budget: 8192 },
    replay: 'none',
  },
];

describe('built-in dialect records', () => {
  it.each(records)(
    '$dialect: documented endpoint, output-limit field, thinking parameters and replay rule',
    ({ dialect, url, maxTokensField, thinking, replay }) => {
      const d = OPENAI_DIALECTS[dialect];
      expect(joinApiUrl(d.defaultBaseUrl, 'chat/completions')).toBe(url);
      expect(d.maxTokensField).toBe(maxTokensField);
      expect(d.thinkingParams('medium')).toEqual(thinking);
      expect(d.reasoningReplay).toBe(replay);
      const body = new OpenAICompatibleProvider({ dialect }).buildBody({
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }],
        maxTokens: 100,
        thinking: 'medium',
      });
      expect(body).toMatchObject({ [maxTokensField]: 100, ...thinking });
    },
  );

  it('xAI sends only the efforts its Chat Completions documents (low, high)', () => {
    expect(['low', 'medium', 'high'].map((l) => OPENAI_DIALECTS.xai.thinkingParams(l as 'low'))).toEqual([
      { reasoning_effort: 'low' },
      { reasoning_effort: 'high' },
      { reasoning_effort: 'high' },
    ]);
  });
});

describe('replayedReasoning (which assistant messages get their reasoning back)', () => {
  const u = (text: string): ModelMessage => ({ role: 'user', content: text });
  const a = (call = false): ModelMessage => ({
    role: 'assistant',
    content: call ? [{ type: 'tool_call', id: 'c', name: 't', input: {} }] : [{ type: 'text', text: 'x' }],
  });
  const r: ModelMessage = { role: 'tool', toolCallId: 'c', name: 't', status: 'ok', content: '{}' };
  // 0 user, 1 assistant (call), 2 tool, 3 assistant, 4 user, 5 assistant, 6 user, 7 assistant (call), 8 tool
  const conversation = [u('1'), a(true), r, a(), u('2'), a(), u('3'), a(true), r];

  it.each([
    ['none', []],
    ['current-turn', [7]],
    ['tool-calls', [1, 3, 7]],
    ['all', [1, 3, 5, 7]],
  ] as const)('%s → %j', (mode, expected) => {
    expect([...replayedReasoning(conversation, mode)].sort((x, y) => x - y)).toEqual(expected);
  });

  it('a conversation without user messages is one turn in progress', () => {
    expect([...replayedReasoning([a(), a()], 'current-turn')]).toEqual([0, 1]);
  });
});

describe('provider metadata through the runtime turn assembly and JSON storage', () => {
  const lookup: ModelTool = { name: 'catalog.lookup', description: 'Look up', inputSchema: { type: 'object' } };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    data: JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] }),
  });

  async function turn(dialect: OpenAIDialectName, events: Array<{ data: string }>) {
    const s = await WireReplayServer.start([{ events: [...events, { data: '[DONE]' }] }]);
    track(s);
    const provider = new OpenAICompatibleProvider({ baseUrl: s.url, dialect });
    const result = await runModelTurn(
      { provider, model: 'm', maxTokens: undefined, systemPrompt: undefined, maxInputBytes: 100_000 },
      {
        messages: [{ role: 'user', content: 'find Dune' }],
        tools: [lookup],
        callPrefix: 'call_1',
        signal: new AbortController().signal,
      },
      { text: () => {}, warning: () => {} },
    );
    // The run's messages are stored as JSON text (run_messages.message): what survives that is what goes back.
    const stored = JSON.parse(JSON.stringify(result.message)) as AssistantMessage;
    const next = provider.buildBody({
      model: 'm',
      tools: [lookup],
      messages: [
        { role: 'user', content: 'find Dune' },
        stored,
        { role: 'tool', toolCallId: 'call_1_0', name: 'catalog.lookup', status: 'ok', content: '{}' },
      ],
    }) as { messages: Array<Record<string, unknown>> };
    return { stored, sent: next.messages[1]! };
  }

  it('OpenRouter reasoning_details items are kept on the thinking part and sent back as received', async () => {
    const items = [
      { type: 'reasoning.text', text: 'a', index: 0, format: 'anthropic-claude-v1' },
      { type: 'reasoning.text', text: 'b', signature: 'sig', index: 0, format: 'anthropic-claude-v1' },
    ];
    const { stored, sent } = await turn('openrouter', [
      chunk({ reasoning: 'a', reasoning_details: [items[0]] }),
      chunk({ reasoning: 'b', reasoning_details: [items[1]] }),
      chunk({ tool_calls: [{ index: 0, id: 'x', function: { name: 'catalog_lookup', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(stored.content[0]).toEqual({
      type: 'thinking',
      thinking: 'ab',
      details: items,
      origin: { provider: 'openai-compatible:openrouter', model: 'm' },
    });
    expect(sent.reasoning_details).toEqual(items);
  });

  it('a Gemini thought signature is kept on the tool call under the runtime id and sent back on that call', async () => {
    const { stored, sent } = await turn('gemini', [
      chunk({
        tool_calls: [
          {
            index: 0,
            id: 'g',
            function: { name: 'catalog_lookup', arguments: '{}' },
            extra_content: { google: { thought_signature: 'SIG==' } },
          },
        ],
      }),
      chunk({}, 'tool_calls'),
    ]);
    expect(stored.content[0]).toMatchObject({ type: 'tool_call', id: 'call_1_0', providerId: 'g', signature: 'SIG==' });
    expect(sent.tool_calls).toEqual([
      {
        id: 'call_1_0',
        type: 'function',
        function: { name: 'catalog_lookup', arguments: '{}' },
        extra_content: { google: { thought_signature: 'SIG==' } },
      },
    ]);
  });

  it('other dialects never send a signature back (a strict server would refuse extra_content)', async () => {
    const { sent } = await turn('groq', [
      chunk({
        tool_calls: [
          {
            index: 0,
            id: 'g',
            function: { name: 'catalog_lookup', arguments: '{}' },
            extra_content: { google: { thought_signature: 'S' } },
          },
        ],
      }),
      chunk({}, 'tool_calls'),
    ]);
    expect(JSON.stringify(sent)).not.toContain('extra_content');
  });
});
