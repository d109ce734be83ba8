import { describe, expect, it } from 'vitest';
import { collectStream } from '../../src/models/complete';
import { OpenAICompatibleProvider, type OpenAICompatibleProviderOptions } from '../../src/models/openai-compatible';
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

const KEY = 'sk-proj-test-0123456789abcdef';
const { serve } = replayServers();
const replay = (name: string, extra: Partial<ReplayResponse> = {}) => replayOf(name, 'openai', extra);
function provider(server: WireReplayServer, options: OpenAICompatibleProviderOptions = {}): OpenAICompatibleProvider {
  return new OpenAICompatibleProvider({ apiKey: KEY, baseUrl: server.url, retry: fastRetry, ...options });
}
const user = userText;
const req = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'gpt-4.1',
  messages: [user('hi')],
  ...extra,
});

/** The documented reduction of a chunk stream: concatenate `choices[0].delta[field]`. */
function concatDelta(name: string, field: 'content' | 'reasoning_content'): string {
  return fixture(name)
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { choices: Array<{ delta: Record<string, unknown> }> }).choices[0]?.delta[field])
    .filter((v): v is string => typeof v === 'string')
    .join('');
}

const weather: ModelTool = {
  name: 'weather',
  description: 'Weather',
  inputSchema: { type: 'object', properties: { location: { type: 'string' } } },
};
const tools: ModelTool[] = [
  inventoryQuery,
  {
    name: 'task.inspect',
    description: 'Inspect a task',
    inputSchema: { type: 'object', properties: { taskId: { type: 'string' } } },
  },
  downloadSubmit,
];
const lookup: ModelTool[] = [
  {
    name: 'catalog.lookup',
    description: 'Look a title up',
    inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
  },
];

describe('OpenAICompatibleProvider over recorded Chat Completions streams', () => {
  it('posts to /v1/chat/completions with a bearer key, include_usage and the dialect max-tokens field', async () => {
    const s = await serve(replay('openai-text.chunks.txt'));
    await drain(provider(s).stream(req({ maxTokens: 500 })));
    const r = s.requests[0]!;
    expect(r.url).toBe('/v1/chat/completions');
    expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(r.json).toMatchObject({
      model: 'gpt-4.1',
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 500,
    });
  });

  it('accepts a baseUrl with or without /v1', async () => {
    const s = await serve(replay('openai-text.chunks.txt'));
    await drain(provider(s, { baseUrl: `${s.url}/v1` }).stream(req()));
    await drain(provider(s, { baseUrl: `${s.url}/` }).stream(req()));
    expect(s.requests.map((r) => r.url)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
  });

  it('streams OpenAI text and takes usage from the final chunk with empty choices', async () => {
    const s = await serve(replay('openai-text.chunks.txt'));
    const events = await drain(provider(s).stream(req()));
    expect(textOf(events)).toBe(concatDelta('openai-text.chunks.txt', 'content'));
    expect(textOf(events).startsWith('**Holiday Name:** Harmony Day')).toBe(true);
    expect(ofType(events, 'usage').at(-1)?.usage).toEqual({
      inputTokens: 16,
      outputTokens: 300,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('turns DeepSeek reasoning_content into thinking deltas and takes usage from the finish chunk', async () => {
    const s = await serve(replay('deepseek-reasoning.chunks.txt'));
    const events = await drain(provider(s, { dialect: 'deepseek' }).stream(req({ model: 'deepseek-reasoner' })));
    expect(thinkingOf(events)).toBe(concatDelta('deepseek-reasoning.chunks.txt', 'reasoning_content'));
    expect(thinkingOf(events).startsWith('We need to')).toBe(true);
    expect(textOf(events)).toBe('The word "strawberry" contains three "r"s.');
    expect(ofType(events, 'usage').at(-1)?.usage).toEqual({
      inputTokens: 18,
      outputTokens: 219,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 205,
    });
  });

  it('assembles a DeepSeek tool call from per-character fragments and counts cached prompt tokens', async () => {
    const s = await serve(replay('deepseek-tool-call.chunks.txt'));
    const events = await drain(provider(s, { dialect: 'deepseek' }).stream(req({ tools: [weather] })));
    expect(ofType(events, 'tool_call_end')).toEqual([
      {
        type: 'tool_call_end',
        id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF',
        name: 'weather',
        rawArguments: '{"location": "San Francisco"}',
        ok: true,
        input: { location: 'San Francisco' },
      },
    ]);
    expect(thinkingOf(events).startsWith('The user is')).toBe(true);
    expect(ofType(events, 'usage').at(-1)?.usage).toMatchObject({
      inputTokens: 19,
      cacheReadTokens: 320,
      outputTokens: 83,
    });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' });
  });

  it('streams Qwen (DashScope) reasoning_content, text and final usage', async () => {
    const s = await serve(replay('alibaba-reasoning.chunks.txt'));
    const events = await drain(provider(s, { dialect: 'qwen' }).stream(req({ model: 'qwen3-max' })));
    expect(thinkingOf(events)).toBe(concatDelta('alibaba-reasoning.chunks.txt', 'reasoning_content'));
    expect(textOf(events).startsWith('The word **"strawberry"** contains **3**')).toBe(true);
    expect(ofType(events, 'usage').at(-1)?.usage).toMatchObject({
      inputTokens: 24,
      outputTokens: 1355,
      reasoningTokens: 1084,
    });
  });

  it('keeps the first id when later fragments of the same call carry an empty id (Qwen)', async () => {
    const s = await serve(replay('alibaba-tool-call.chunks.txt'));
    const events = await drain(provider(s, { dialect: 'qwen' }).stream(req({ tools: [weather] })));
    expect(ofType(events, 'tool_call_start')).toEqual([
      { type: 'tool_call_start', id: 'call_eee11723464a4b9eb8cee71d', name: 'weather' },
    ]);
    expect(ofType(events, 'tool_call_end')[0]).toMatchObject({
      id: 'call_eee11723464a4b9eb8cee71d',
      ok: true,
      input: { location: 'San Francisco' },
    });
    expect(ofType(events, 'tool_call_end')).toHaveLength(1);
  });

  it('handles a whole tool call in one chunk with usage on the finish chunk (Groq)', async () => {
    const s = await serve(replay('groq-tool-call.chunks.txt'));
    const events = await drain(provider(s).stream(req({ tools: [weather] })));
    expect(ofType(events, 'tool_call_end')).toEqual([
      { type: 'tool_call_end', id: 'tk85n1k4m', name: 'weather', rawArguments: '{}', ok: true, input: {} },
    ]);
    expect(ofType(events, 'usage').at(-1)?.usage).toMatchObject({ inputTokens: 210, outputTokens: 15 });
  });

  it('handles a tool call without an index, finished in the same chunk (Mistral)', async () => {
    const s = await serve(replay('mistral-tool-call.chunks.txt'));
    const events = await drain(provider(s).stream(req({ tools: [weather] })));
    expect(ofType(events, 'tool_call_end')).toEqual([
      {
        type: 'tool_call_end',
        id: 'gSIMJiOkT',
        name: 'weather',
        rawArguments: '{"location": "San Francisco"}',
        ok: true,
        input: { location: 'San Francisco' },
      },
    ]);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' });
  });

  it('counts xAI reasoning tokens reported outside completion_tokens as output', async () => {
    const s = await serve(replay('xai-tool-call.chunks.txt'));
    const events = await drain(provider(s).stream(req({ tools: [weather] })));
    expect(thinkingOf(events).startsWith('First, the user is asking')).toBe(true);
    expect(ofType(events, 'tool_call_end')[0]).toMatchObject({
      id: 'call_79382389',
      input: { location: 'San Francisco' },
    });
    expect(ofType(events, 'usage').at(-1)?.usage).toEqual({
      inputTokens: 1,
      outputTokens: 253,
      cacheReadTokens: 306,
      cacheWriteTokens: 0,
      reasoningTokens: 227,
    });
  });

  it('assembles interleaved calls by index and reads arguments "" as {}', async () => {
    const s = await serve(replay('own-openai-parallel-fragments.chunks.txt'));
    const events = await drain(provider(s).stream(req({ tools })));
    expect(textOf(events)).toBe('Checking both.');
    expect(ofType(events, 'tool_call_end').map((e) => [e.id, e.name, e.ok, e.input])).toEqual([
      ['call_a', 'inventory.query', true, { query: 'Dune' }],
      ['call_b', 'task.inspect', true, {}],
    ]);
    expect(ofType(events, 'usage').at(-1)?.usage).toMatchObject({ inputTokens: 20, cacheReadTokens: 100 });
  });

  it('treats an id repeated on every fragment as one call', async () => {
    const s = await serve(replay('own-openai-repeated-ids.chunks.txt'));
    const ends = ofType(await drain(provider(s).stream(req({ tools }))), 'tool_call_end');
    expect(ends.map((e) => [e.id, e.input])).toEqual([['call_same', { query: 'Alien' }]]);
  });

  it('splits parallel calls that share index 0 but carry different ids into separate ok calls', async () => {
    const s = await serve(replay('own-openai-same-index-whole-calls.chunks.txt'));
    const events = await drain(provider(s).stream(req({ tools: lookup })));
    expect(ofType(events, 'tool_call_start').map((e) => e.id)).toEqual(['call_a', 'call_b']);
    expect(ofType(events, 'tool_call_end').map((e) => [e.id, e.name, e.ok, e.input, e.rawArguments])).toEqual([
      ['call_a', 'catalog.lookup', true, { title: 'Dune' }, '{"title":"Dune"}'],
      ['call_b', 'catalog.lookup', true, { title: 'Arrival' }, '{"title":"Arrival"}'],
    ]);
    for (const id of ['call_a', 'call_b']) {
      const deltas = ofType(events, 'tool_call_delta')
        .filter((e) => e.id === id)
        .map((e) => e.argumentsDelta)
        .join('');
      expect(deltas).toBe(ofType(events, 'tool_call_end').find((e) => e.id === id)?.rawArguments);
    }
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' });
  });

  it('continues the latest call at an index with fragments that carry no id or repeat its id, after a new id took the index over', async () => {
    const s = await serve(replay('own-openai-same-index-fragments.chunks.txt'));
    const events = await drain(provider(s).stream(req({ tools: lookup })));
    expect(ofType(events, 'tool_call_end').map((e) => [e.id, e.ok, e.input])).toEqual([
      ['call_x', true, { title: 'Heat' }],
      ['call_y', true, { title: 'Ronin' }],
    ]);
  });

  it('splits two whole calls without ids at the same index into two calls with distinct generated ids', async () => {
    const s = await serve(replay('own-openai-same-index-no-ids.chunks.txt'));
    const ends = ofType(await drain(provider(s).stream(req({ tools: lookup }))), 'tool_call_end');
    expect(ends.map((e) => [e.ok, e.input])).toEqual([
      [true, { title: 'Alien' }],
      [true, { title: 'Aliens' }],
    ]);
    expect(new Set(ends.map((e) => e.id)).size).toBe(2);
  });

  it('keeps call ids unique within a stream when the server gives two calls the same id at different indexes', async () => {
    const chunk = (tc: unknown, finish: string | null = null) => ({
      data: JSON.stringify({
        id: 'c',
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta: { tool_calls: [tc] }, finish_reason: finish }],
      }),
    });
    const s = await serve({
      events: [
        chunk({
          index: 0,
          id: 'call_0',
          type: 'function',
          function: { name: 'catalog_lookup', arguments: '{"title":"Up"}' },
        }),
        chunk({
          index: 1,
          id: 'call_0',
          type: 'function',
          function: { name: 'catalog_lookup', arguments: '{"title":"Coco"}' },
        }),
        {
          data: JSON.stringify({
            id: 'c',
            object: 'chat.completion.chunk',
            choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }],
          }),
        },
        { data: '[DONE]' },
      ],
    });
    const ends = ofType(await drain(provider(s).stream(req({ tools: lookup }))), 'tool_call_end');
    expect(ends.map((e) => e.input)).toEqual([{ title: 'Up' }, { title: 'Coco' }]);
    expect(ends[0]?.id).toBe('call_0');
    expect(ends[1]?.id).not.toBe('call_0');
  });

  it('generates an id for a call that has none, and reports tool_use even when finish_reason is "stop"', async () => {
    const s = await serve(replay('own-openai-missing-id.chunks.txt'));
    const events = await drain(provider(s).stream(req({ tools })));
    const end = ofType(events, 'tool_call_end')[0]!;
    expect(end.id).toMatch(/^call_0_/);
    expect(end.input).toEqual({ query: 'Heat' });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' });
  });

  it('refuses malformed and schema-invalid arguments at tool_call_end without ending the stream', async () => {
    const s = await serve(replay('own-openai-malformed-args.chunks.txt'));
    const events = await drain(provider(s).stream(req({ tools })));
    const ends = ofType(events, 'tool_call_end');
    expect(ends.map((e) => [e.id, e.name, e.ok, !e.ok && e.failure.code])).toEqual([
      ['call_m', 'download.submit', false, 'TOOL_ARGS_MALFORMED'],
      ['call_n', 'download.submit', false, 'TOOL_ARGS_INVALID'],
    ]);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' });
  });

  it('turns content sent as an array of typed parts into text, and Magistral thinking parts into thinking, in order', async () => {
    const s = await serve(replay('own-openai-content-parts.chunks.txt'));
    const events = await drain(provider(s, { dialect: 'generic' }).stream(req()));
    expect(thinkingOf(events)).toBe('The user wants Dune.');
    expect(textOf(events)).toBe('Dune: Part Two is in your library.');
    const kinds = events.filter((e) => e.type === 'text_delta' || e.type === 'thinking_delta').map((e) => e.type);
    expect(kinds.lastIndexOf('thinking_delta')).toBeLessThan(kinds.indexOf('text_delta'));
    expect(ofType(events, 'warning')).toEqual([]);
    const turn = await collectStream(provider(s, { dialect: 'generic' }).stream(req()));
    expect(turn.message.content).toEqual([
      { type: 'thinking', thinking: 'The user wants Dune.' },
      { type: 'text', text: 'Dune: Part Two is in your library.' },
    ]);
  });

  it('reads reasoning sent as arrays or typed objects as thinking, never as text, once when two reasoning fields repeat it', async () => {
    const s = await serve(replay('own-openai-reasoning-shapes.chunks.txt'));
    const events = await drain(provider(s, { dialect: 'generic' }).stream(req()));
    expect(thinkingOf(events)).toBe('Check the library first. Then answer.');
    expect(textOf(events)).toBe('Found it.');
    expect(ofType(events, 'warning')).toEqual([]);
  });

  it('reports delta shapes and part types it does not understand as PROVIDER_DELTA_UNKNOWN warnings, once per shape, instead of a silent empty answer', async () => {
    const s = await serve(replay('own-openai-unknown-delta.chunks.txt'));
    const events = await drain(provider(s, { dialect: 'generic' }).stream(req()));
    expect(textOf(events) + thinkingOf(events)).toBe('');
    expect(ofType(events, 'tool_call_end')).toEqual([]);
    const warnings = ofType(events, 'warning').map((e) => e.warning);
    expect(warnings).toHaveLength(2);
    expect(warnings.every((w) => w.code === 'PROVIDER_DELTA_UNKNOWN')).toBe(true);
    expect(warnings[0]?.details).toMatchObject({
      field: 'content',
      partType: 'image_url',
      keys: ['image_url', 'type'],
    });
    expect(warnings[1]?.details).toMatchObject({ field: 'output', valueType: 'object' });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('maps finish_reason length to max_tokens', async () => {
    const s = await serve(replay('own-openai-length.chunks.txt'));
    expect((await drain(provider(s).stream(req()))).at(-1)).toEqual({ type: 'done', stopReason: 'max_tokens' });
  });

  it('maps finish_reason content_filter to refusal', async () => {
    const s = await serve(replay('own-openai-content-filter.chunks.txt'));
    expect((await drain(provider(s).stream(req()))).at(-1)).toEqual({ type: 'done', stopReason: 'refusal' });
  });

  it('ends with error + done(error) on an error object inside the stream', async () => {
    const s = await serve(replay('own-openai-stream-error.chunks.txt'));
    const events = await drain(provider(s).stream(req()));
    expect(ofType(events, 'error')[0]?.error.code).toBe('PROVIDER_UNAVAILABLE');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'error' });
  });

  it('delivers the deltas before an in-stream error that arrives in the same chunk, then error + done(error)', async () => {
    const s = await serve(replay('own-openai-stream-error.chunks.txt', { chunkSize: 1 << 20 }));
    const events = await drain(provider(s).stream(req()));
    expect(textOf(events)).toBe('Hel');
    expect(events.slice(-2).map((e) => e.type)).toEqual(['error', 'done']);
    expect(ofType(events, 'error')[0]?.error.code).toBe('PROVIDER_UNAVAILABLE');
  });

  it('reports a stream that ends without finish_reason or [DONE] as a protocol error', async () => {
    const s = await serve({ events: transcriptEvents(fixture('openai-text.chunks.txt'), 'openai').slice(0, 10) });
    expect(ofType(await drain(provider(s).stream(req())), 'error')[0]?.error.code).toBe('PROVIDER_PROTOCOL');
  });

  it('sends reasoning_content back on the current tool-loop turn for DeepSeek, and not on earlier turns', async () => {
    const s = await serve(replay('deepseek-tool-call.chunks.txt'), replay('deepseek-reasoning.chunks.txt'));
    const p = provider(s, { dialect: 'deepseek' });
    const old: ModelMessage = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'old thoughts' },
        { type: 'text', text: 'old answer' },
      ],
    };
    const history: ModelMessage[] = [user('first'), old, user('weather?')];
    const turn = await collectStream(p.stream(req({ messages: history, tools: [weather] })));
    const result: ModelMessage = {
      role: 'tool',
      toolCallId: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF',
      name: 'weather',
      status: 'ok',
      content: '{"temp":18}',
    };
    await drain(p.stream(req({ messages: [...history, turn.message, result], tools: [weather] })));
    const sent = (s.requests[1]!.json as { messages: Array<Record<string, unknown>> }).messages;
    expect(sent[1]).toEqual({ role: 'assistant', content: 'old answer' });
    expect(sent[3]).toMatchObject({ role: 'assistant', content: null });
    expect((sent[3]!.reasoning_content as string).startsWith('The user is')).toBe(true);
    expect(sent[3]!.tool_calls).toEqual([
      {
        id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF',
        type: 'function',
        function: { name: 'weather', arguments: '{"location":"San Francisco"}' },
      },
    ]);
    expect(sent[4]).toEqual({ role: 'tool', tool_call_id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', content: '{"temp":18}' });
  });

  it('does not send reasoning_content back with the OpenAI dialect', async () => {
    const s = await serve(replay('openai-text.chunks.txt'));
    const messages: ModelMessage[] = [
      user('q'),
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 't' },
          { type: 'tool_call', id: 'c1', name: 'weather', input: {} },
        ],
      },
    ];
    await drain(provider(s).stream(req({ messages, tools: [weather] })));
    const sent = (s.requests[0]!.json as { messages: Array<Record<string, unknown>> }).messages;
    expect(sent[1]).not.toHaveProperty('reasoning_content');
  });

  it('sends dotted capability ids as wire-safe function names', async () => {
    const s = await serve(replay('openai-text.chunks.txt'));
    await drain(provider(s).stream(req({ tools })));
    const sent = s.requests[0]!.json as {
      tools: Array<{ type: string; function: { name: string; parameters: unknown } }>;
    };
    expect(sent.tools.map((t) => t.function.name)).toEqual(['inventory_query', 'task_inspect', 'download_submit']);
    expect(sent.tools[0]?.function.parameters).toEqual(tools[0]?.inputSchema);
  });

  it('puts tool-result images in a user message after the tool results', async () => {
    const s = await serve(replay('openai-text.chunks.txt'));
    const messages: ModelMessage[] = [
      user('poster?'),
      ...toolCallWithImage('c1', 'poster attached', 'image/jpeg', '/9j/4AAQ'),
    ];
    await drain(provider(s).stream(req({ messages, tools })));
    const sent = (s.requests[0]!.json as { messages: Array<Record<string, unknown>> }).messages;
    expect(sent[2]).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'poster attached' });
    expect(sent[3]).toMatchObject({
      role: 'user',
      content: [{ type: 'text' }, { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } }],
    });
  });

  it('replaces images with a text note when the model does not accept images', async () => {
    const s = await serve(replay('openai-text.chunks.txt'));
    const messages: ModelMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', mediaType: 'image/png', data: 'iVBOR' },
        ],
      },
    ];
    await drain(provider(s, { supportsImages: false }).stream(req({ messages })));
    const sent = (s.requests[0]!.json as { messages: Array<{ content: Array<Record<string, unknown>> }> }).messages;
    expect(sent[0]?.content[1]).toEqual({ type: 'text', text: '[image omitted: this model does not accept images]' });
  });

  it('sends the dialect thinking parameters (Qwen enable_thinking, OpenAI reasoning_effort)', async () => {
    const s = await serve(replay('openai-text.chunks.txt'));
    await drain(provider(s, { dialect: 'qwen' }).stream(req({ thinking: 'low' })));
    await drain(provider(s, { dialect: 'openai' }).stream(req({ thinking: 'high' })));
    expect(s.requests[0]?.json).toMatchObject({ enable_thinking: true, thinking_budget: 2048 });
    expect(s.requests[1]?.json).toMatchObject({ reasoning_effort: 'high' });
  });

  it('sends no Authorization header when no key is configured (local servers)', async () => {
    const s = await serve(replay('openai-text.chunks.txt'));
    await drain(new OpenAICompatibleProvider({ baseUrl: s.url, dialect: 'ollama' }).stream(req()));
    expect(s.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('an abort closes the HTTP stream the server keeps open (the socket closes before the server does) and ends with done(aborted)', async () => {
    const s = await serve(replay('openai-text.chunks.txt', { stallAfterEvents: 3 }));
    const ac = new AbortController();
    let abortedAt = 0;
    const seen: string[] = [];
    for await (const ev of provider(s).stream(req(), ac.signal)) {
      seen.push(ev.type === 'done' ? `done:${ev.stopReason}` : ev.type);
      if (ev.type === 'text_delta' && abortedAt === 0) {
        abortedAt = Date.now();
        ac.abort();
      }
    }
    // The server stalls with the connection open: only the client's abort can close it before the test ends.
    const closedAt = await s.requests[0]!.socketClosed;
    expect(closedAt).toBeGreaterThanOrEqual(abortedAt);
    expect(seen.at(-1)).toBe('done:aborted');
  });
});
