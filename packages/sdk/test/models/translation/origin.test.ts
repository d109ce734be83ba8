// Where each part came from: `complete` (and the runtime's turn assembly, see cross-family.test.ts) record the
// provider and model on thinking parts and on signed tool calls; unsigned calls and text carry none.
import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../../src/models/anthropic';
import { complete } from '../../../src/models/complete';
import { OpenAICompatibleProvider } from '../../../src/models/openai-compatible';
import { fastRetry, replayServers } from '../helpers';
import { anthropicTurn, duneQuestion, inventoryQueryTool, queryCall, thinkingBlock } from '../thinking-wire';
import { chatChunk } from './strict-wire';

const { serve } = replayServers();

describe('origin of thinking parts and signed tool calls', () => {
  it('complete() on Anthropic stamps each thinking block with anthropic and the request model; the call has none', async () => {
    const s = await serve({
      events: anthropicTurn([thinkingBlock('check first', 'EqSig1'), queryCall('toolu_1', 'Dune')]),
    });
    const provider = new AnthropicProvider({ apiKey: 'sk-ant-test-0123456789', baseUrl: s.url, retry: fastRetry });
    const { message } = await complete(provider, {
      model: 'claude-sonnet-4-5',
      messages: [duneQuestion],
      tools: [inventoryQueryTool],
    });
    expect(message.content[0]).toEqual({
      type: 'thinking',
      thinking: 'check first',
      signature: 'EqSig1',
      origin: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
    });
    expect(message.content[1]).toMatchObject({ type: 'tool_call', name: 'inventory.query' });
    expect(message.content[1]).not.toHaveProperty('origin');
  });

  it('complete() on the gemini dialect stamps the signed call with openai-compatible:gemini', async () => {
    const s = await serve({
      events: [
        chatChunk({
          tool_calls: [
            {
              index: 0,
              id: 'g1',
              type: 'function',
              function: { name: 'inventory_query', arguments: '{"title":"Dune"}' },
              extra_content: { google: { thought_signature: 'SIG==' } },
            },
          ],
        }),
        chatChunk({}, 'tool_calls'),
        { data: '[DONE]' },
      ],
    });
    const provider = new OpenAICompatibleProvider({ baseUrl: s.url, dialect: 'gemini', retry: fastRetry });
    const { message } = await complete(provider, {
      model: 'gemini-3-pro',
      messages: [duneQuestion],
      tools: [inventoryQueryTool],
    });
    expect(message.content[0]).toMatchObject({
      type: 'tool_call',
      signature: 'SIG==',
      origin: { provider: 'openai-compatible:gemini', model: 'gemini-3-pro' },
    });
  });
});
