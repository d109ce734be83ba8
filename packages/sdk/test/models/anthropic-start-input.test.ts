// An Anthropic-wire server that sends a tool_use block's whole input in content_block_start and no
// input_json_delta (some Anthropic-compatible endpoints and proxies do): the arguments are that input,
// as the official SDKs read them, never an empty `{}` that would run a scan over every folder.
import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/models/anthropic';
import { WireReplayServer } from '../../src/models/replay-server';
import type { ModelTool } from '../../src/models/types';
import { drain, fastRetry, ofType, replayServers } from './helpers';

const { track } = replayServers();

const scan: ModelTool = {
  name: 'library.scan',
  description: 'Scan a library folder (all folders when no path is given)',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
};
const events = (toolUse: Record<string, unknown>, deltas: string[]) =>
  [
    {
      type: 'message_start',
      message: {
        id: 'm',
        type: 'message',
        role: 'assistant',
        content: [],
        model: 'claude-sonnet-4-5',
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    },
    { type: 'content_block_start', index: 0, content_block: toolUse },
    ...deltas.map((partial_json) => ({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json },
    })),
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 12 } },
    { type: 'message_stop' },
  ].map((e) => ({ event: e.type, data: JSON.stringify(e) }));

describe('Anthropic tool_use input given at content_block_start', () => {
  it('the start block’s input is the call’s arguments when no input_json_delta follows; deltas, when they come, are the arguments', async () => {
    const server = await WireReplayServer.start([
      {
        events: events({ type: 'tool_use', id: 'toolu_1', name: 'library_scan', input: { path: '/media/films' } }, []),
      },
      {
        events: events({ type: 'tool_use', id: 'toolu_2', name: 'library_scan', input: {} }, [
          '{"path":',
          '"/media/tv"}',
        ]),
      },
    ]);
    track(server);
    const provider = new AnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: server.url, retry: fastRetry });
    const request = {
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user' as const, content: 'scan' }],
      tools: [scan],
    };
    const first = ofType(await drain(provider.stream(request)), 'tool_call_end');
    expect(first).toMatchObject([{ ok: true, name: 'library.scan', input: { path: '/media/films' } }]);
    const second = ofType(await drain(provider.stream(request)), 'tool_call_end');
    expect(second).toMatchObject([{ ok: true, input: { path: '/media/tv' } }]);
  });
});
