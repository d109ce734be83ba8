import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/models/anthropic';
import { collectStream } from '../../src/models/complete';
import { transcriptEvents, type WireReplayServer, type ReplayResponse } from '../../src/models/replay-server';
import type { ModelMessage, ModelRequest, ModelTool } from '../../src/models/types';
import {
  downloadSubmit,
  drain,
  fastRetry,
  fixture,
  inventoryQuery,
  ofType,
  replayOf,
  replayServers,
  textOf,
  thinkingOf,
  toolCallWithImage,
  userText,
} from './helpers';

const KEY = 'sk-ant-test-0123456789abcdef';
const { serve } = replayServers();
const replay = (name: string, extra: Partial<ReplayResponse> = {}) => replayOf(name, 'anthropic', extra);
function provider(server: WireReplayServer, baseUrl = server.url): AnthropicProvider {
  return new AnthropicProvider({ apiKey: KEY, baseUrl, retry: fastRetry });
}
const user = userText;
const req = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'claude-sonnet-4-5',
  messages: [user('hi')],
  ...extra,
});

const tools: ModelTool[] = [inventoryQuery, downloadSubmit];

describe('AnthropicProvider over recorded Messages streams', () => {
  it('posts to /v1/messages with x-api-key, anthropic-version and stream: true', async () => {
    const s = await serve(replay('anthropic-text.chunks.txt'));
    await drain(provider(s).stream(req()));
    const r = s.requests[0]!;
    expect(r.url).toBe('/v1/messages');
    expect(r.headers['x-api-key']).toBe(KEY);
    expect(r.headers['anthropic-version']).toBe('2023-06-01');
    expect(r.json).toMatchObject({
      model: 'claude-sonnet-4-5',
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
  });

  it('accepts a baseUrl that already ends in /v1', async () => {
    const s = await serve(replay('anthropic-text.chunks.txt'));
    await drain(provider(s, `${s.url}/v1/`).stream(req()));
    expect(s.requests[0]?.url).toBe('/v1/messages');
  });

  it('streams text deltas, cumulative usage and end_turn from a text stream', async () => {
    const s = await serve(replay('anthropic-text.chunks.txt'));
    const events = await drain(provider(s).stream(req()));
    expect(textOf(events)).toBe(
      "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
    );
    expect(ofType(events, 'usage').at(-1)?.usage).toEqual({
      inputTokens: 12,
      outputTokens: 30,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('takes input tokens from message_delta when it reports them (they supersede message_start)', async () => {
    const s = await serve(replay('anthropic-message-delta-input-tokens.chunks.txt'));
    const events = await drain(provider(s).stream(req()));
    expect(textOf(events)).toBe('pong');
    expect(ofType(events, 'usage').at(-1)?.usage).toMatchObject({ inputTokens: 61, outputTokens: 2 });
  });

  it('reports cache read and write tokens from message_start', async () => {
    const s = await serve(replay('own-anthropic-max-tokens.chunks.txt'));
    const events = await drain(provider(s).stream(req()));
    expect(ofType(events, 'usage').at(-1)?.usage).toEqual({
      inputTokens: 100,
      outputTokens: 4,
      cacheReadTokens: 300,
      cacheWriteTokens: 20,
    });
  });

  it('maps stop_reason max_tokens to max_tokens', async () => {
    const s = await serve(replay('own-anthropic-max-tokens.chunks.txt'));
    expect((await drain(provider(s).stream(req()))).at(-1)).toEqual({ type: 'done', stopReason: 'max_tokens' });
  });

  it('maps stop_reason refusal to refusal', async () => {
    const s = await serve(replay('anthropic-refusal.chunks.txt'));
    const events = await drain(provider(s).stream(req()));
    expect(textOf(events)).toBe('');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'refusal' });
  });

  it('streams thinking deltas and the block signature, then the text', async () => {
    const s = await serve(replay('anthropic-clear-thinking.1.chunks.txt'));
    const events = await drain(provider(s).stream(req({ thinking: 'medium' })));
    expect(thinkingOf(events)).toBe('The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185');
    expect(
      ofType(events, 'thinking_delta')
        .filter((e) => e.signature)
        .map((e) => e.signature?.slice(0, 12)),
    ).toEqual(['EvQBCkYICxgC']);
    expect(textOf(events)).toBe('925 ÷ 5 = 185');
  });

  it('sends thinking with its signature back verbatim on the next turn', async () => {
    const s = await serve(replay('anthropic-clear-thinking.1.chunks.txt'), replay('anthropic-text.chunks.txt'));
    const p = provider(s);
    const turn = await collectStream(p.stream(req({ thinking: 'medium' })));
    await drain(p.stream(req({ thinking: 'medium', messages: [user('hi'), turn.message, user('and now?')] })));
    const thinking = turn.message.content[0];
    expect(thinking?.type).toBe('thinking');
    const sent = (s.requests[1]!.json as { messages: Array<{ role: string; content: unknown[] }> }).messages[1]!;
    expect(sent.role).toBe('assistant');
    expect(sent.content[0]).toEqual({
      type: 'thinking',
      thinking: (thinking as { thinking: string }).thinking,
      signature: (thinking as { signature: string }).signature,
    });
    expect(sent.content[1]).toEqual({ type: 'text', text: '925 ÷ 5 = 185' });
  });

  it('keeps a redacted_thinking block and sends it back unchanged', async () => {
    const s = await serve(replay('own-anthropic-redacted-thinking.chunks.txt'), replay('anthropic-text.chunks.txt'));
    const p = provider(s);
    const turn = await collectStream(p.stream(req()));
    await drain(p.stream(req({ messages: [user('hi'), turn.message, user('next')] })));
    const sent = (s.requests[1]!.json as { messages: Array<{ content: unknown[] }> }).messages[1]!;
    expect(sent.content[0]).toEqual({
      type: 'redacted_thinking',
      data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj',
    });
  });

  it('assembles input_json_delta fragments into one tool call parsed at content_block_stop', async () => {
    const s = await serve(replay('anthropic-json-tool.1.chunks.txt'));
    const jsonTool: ModelTool = {
      name: 'json',
      description: 'respond',
      inputSchema: { type: 'object', properties: { elements: { type: 'array' } }, required: ['elements'] },
    };
    const events = await drain(provider(s).stream(req({ tools: [jsonTool] })));
    expect(ofType(events, 'tool_call_start')).toEqual([
      { type: 'tool_call_start', id: 'toolu_01KFbKqPYSuAKujiL6mTfzYA', name: 'json' },
    ]);
    expect(
      ofType(events, 'tool_call_delta')
        .map((e) => e.argumentsDelta)
        .join(''),
    ).toBe('{"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]}');
    expect(ofType(events, 'tool_call_end')[0]).toMatchObject({
      ok: true,
      input: { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] },
    });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' });
  });

  it('gives a tool call with no argument text the input {}', async () => {
    const s = await serve(replay('anthropic-tool-no-args.chunks.txt'));
    const t: ModelTool = {
      name: 'updateIssueList',
      description: 'update',
      inputSchema: { type: 'object', properties: {} },
    };
    const events = await drain(provider(s).stream(req({ tools: [t] })));
    expect(textOf(events)).toBe("I'll update the issue list for you.");
    expect(ofType(events, 'tool_call_end')).toEqual([
      {
        type: 'tool_call_end',
        id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP',
        name: 'updateIssueList',
        rawArguments: '',
        ok: true,
        input: {},
      },
    ]);
  });

  it("sends capability ids as wire-safe tool names and maps the model's calls back to capability ids", async () => {
    const s = await serve(replay('own-anthropic-tool-calls.chunks.txt'));
    const events = await drain(provider(s).stream(req({ tools })));
    expect((s.requests[0]!.json as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual([
      'inventory_query',
      'download_submit',
    ]);
    expect(ofType(events, 'tool_call_end')[0]).toMatchObject({
      id: 'toolu_own_a',
      name: 'inventory.query',
      ok: true,
      input: { query: '沙丘2' },
    });
  });

  it('turns malformed argument JSON into a failed tool_call_end with the reason, and the stream goes on', async () => {
    const s = await serve(replay('own-anthropic-tool-calls.chunks.txt'));
    const events = await drain(provider(s).stream(req({ tools })));
    const end = ofType(events, 'tool_call_end')[1]!;
    expect(end).toMatchObject({
      id: 'toolu_own_b',
      name: 'download.submit',
      ok: false,
      input: {},
      rawArguments: '{"planId": "pl',
    });
    expect(!end.ok && end.failure.code).toBe('TOOL_ARGS_MALFORMED');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' });
  });

  it('turns arguments that fail the tool schema into a failed tool_call_end naming the path', async () => {
    const s = await serve(replay('own-anthropic-tool-calls.chunks.txt'));
    const end = ofType(await drain(provider(s).stream(req({ tools }))), 'tool_call_end')[2]!;
    expect(end.ok).toBe(false);
    expect(!end.ok && end.failure).toMatchObject({
      code: 'TOOL_ARGS_INVALID',
      message: expect.stringContaining('/planId'),
    });
  });

  it('turns a call to a tool that was not offered into a failed tool_call_end', async () => {
    const s = await serve(replay('own-anthropic-tool-calls.chunks.txt'));
    const end = ofType(await drain(provider(s).stream(req({ tools }))), 'tool_call_end')[3]!;
    expect(!end.ok && end.failure.code).toBe('TOOL_UNKNOWN');
  });

  it('reports an unknown content block type and an unknown delta type as PROVIDER_DELTA_UNKNOWN warnings, once each, and keeps ping and citations quiet', async () => {
    const s = await serve(replay('own-anthropic-unknown-block.chunks.txt'));
    const events = await drain(provider(s).stream(req({ tools })));
    expect(textOf(events)).toBe('Dune is ');
    expect(ofType(events, 'tool_call_start')).toEqual([]);
    expect(ofType(events, 'tool_call_delta')).toEqual([]);
    const warnings = ofType(events, 'warning').map((e) => e.warning);
    expect(warnings.map((w) => [w.code, w.details?.blockType ?? w.details?.deltaType])).toEqual([
      ['PROVIDER_DELTA_UNKNOWN', 'server_tool_use'],
      ['PROVIDER_DELTA_UNKNOWN', 'speech_delta'],
    ]);
    expect(warnings[1]?.details).toMatchObject({ keys: ['speech', 'type'] });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('ends with error + done(error) on an in-stream overloaded_error event', async () => {
    const s = await serve(replay('own-anthropic-overloaded.chunks.txt'));
    const events = await drain(provider(s).stream(req()));
    expect(textOf(events)).toBe('Let me');
    expect(ofType(events, 'error')[0]?.error.code).toBe('PROVIDER_UNAVAILABLE');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'error' });
  });

  it('delivers the deltas before an in-stream error that arrives in the same chunk, then error + done(error)', async () => {
    const s = await serve(replay('own-anthropic-overloaded.chunks.txt', { chunkSize: 1 << 20 }));
    const events = await drain(provider(s).stream(req()));
    expect(textOf(events)).toBe('Let me');
    expect(events.slice(-2).map((e) => e.type)).toEqual(['error', 'done']);
    expect(ofType(events, 'error')[0]?.error.code).toBe('PROVIDER_UNAVAILABLE');
  });

  it('reports a stream that ends before message_stop as a protocol error', async () => {
    const events = transcriptEvents(fixture('anthropic-text.chunks.txt'), 'anthropic').slice(0, 5);
    const s = await serve({ events });
    const out = await drain(provider(s).stream(req()));
    expect(ofType(out, 'error')[0]?.error.code).toBe('PROVIDER_PROTOCOL');
    expect(out.at(-1)).toEqual({ type: 'done', stopReason: 'error' });
  });

  it('yields the same events when the wire is cut into 7-byte chunks', async () => {
    const s = await serve(
      replay('anthropic-clear-thinking.1.chunks.txt'),
      replay('anthropic-clear-thinking.1.chunks.txt', { chunkSize: 7 }),
    );
    const p = provider(s);
    expect(await drain(p.stream(req()))).toEqual(await drain(p.stream(req())));
  });

  it('sends system layers, tool results and images in the Messages format', async () => {
    const s = await serve(replay('anthropic-text.chunks.txt'));
    const messages: ModelMessage[] = [
      { role: 'system', content: 'base' },
      { role: 'system', content: 'host' },
      user('find Dune'),
      ...toolCallWithImage('t1', '{"items":[]}', 'image/png', 'iVBORw0KGgo='),
    ];
    await drain(provider(s).stream(req({ messages, tools })));
    const body = s.requests[0]!.json as { system: unknown; messages: Array<{ role: string; content: unknown[] }> };
    expect(body.system).toEqual([{ type: 'text', text: 'base\n\nhost', cache_control: { type: 'ephemeral' } }]);
    expect(body.messages[1]?.content[0]).toEqual({
      type: 'tool_use',
      id: 't1',
      name: 'inventory_query',
      input: { query: 'Dune' },
    });
    expect(body.messages[2]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 't1',
          content: [
            { type: 'text', text: '{"items":[]}' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
      ],
    });
  });

  it('gives a dangling tool call a synthetic "outcome unknown" error result in the request', async () => {
    const s = await serve(replay('anthropic-text.chunks.txt'));
    const messages: ModelMessage[] = [
      user('get it'),
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 't9', name: 'download.submit', input: { planId: 'p' } }],
      },
      user('status?'),
    ];
    await drain(provider(s).stream(req({ messages, tools })));
    const body = s.requests[0]!.json as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
    expect(body.messages[2]?.content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 't9',
      is_error: true,
      content: expect.stringContaining('outcome unknown'),
    });
    expect(body.messages[2]?.content[1]).toEqual({ type: 'text', text: 'status?' });
  });

  it('an abort closes the HTTP stream the server keeps open (the socket closes before the server does) and ends with done(aborted)', async () => {
    const s = await serve(replay('anthropic-text.chunks.txt', { stallAfterEvents: 4 }));
    const ac = new AbortController();
    const events: string[] = [];
    let abortedAt = 0;
    for await (const ev of provider(s).stream(req(), ac.signal)) {
      events.push(ev.type === 'done' ? `done:${ev.stopReason}` : ev.type);
      if (ev.type === 'text_delta') {
        abortedAt = Date.now();
        ac.abort();
      }
    }
    // The server stalls with the connection open: only the client's abort can close it before the test ends.
    const closedAt = await s.requests[0]!.socketClosed;
    expect(closedAt).toBeGreaterThanOrEqual(abortedAt);
    expect(events.at(-1)).toBe('done:aborted');
  });
});
