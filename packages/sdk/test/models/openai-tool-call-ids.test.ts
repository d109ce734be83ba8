// Tool calls whose id changes between fragments of one call (OpenAI-compatible servers and proxies):
// one call under its first id, never a nameless call stored or sent back. Real HTTP against a local server.
import { describe, expect, it } from 'vitest';
import { collectStream } from '../../src/models/complete';
import { OpenAICompatibleProvider } from '../../src/models/openai-compatible';
import { WireReplayServer, type ReplayEvent, type ReplayResponse } from '../../src/models/replay-server';
import type { ModelMessage, ModelRequest, ModelTool } from '../../src/models/types';
import { drain, fastRetry, ofType, replayServers } from './helpers';

const { track } = replayServers();

const lookup: ModelTool[] = [
  {
    name: 'catalog.lookup',
    description: 'Look a title up',
    inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
  },
];
const chunk = (delta: object, finish: string | null = null): ReplayEvent => ({
  data: JSON.stringify({
    id: 'chatcmpl-ids',
    object: 'chat.completion.chunk',
    created: 1770000000,
    model: 'own-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  }),
});
const calls = (...tcs: object[]): ReplayEvent => chunk({ tool_calls: tcs });
const finish = [chunk({}, 'tool_calls'), { data: '[DONE]' }];
const req = (messages: ModelMessage[] = [{ role: 'user', content: 'find Dune' }]): ModelRequest => ({
  model: 'own-model',
  messages,
  tools: lookup,
});

async function serve(...responses: ReplayResponse[]): Promise<WireReplayServer> {
  const s = await WireReplayServer.start(responses);
  track(s);
  return s;
}
const provider = (s: WireReplayServer) =>
  new OpenAICompatibleProvider({ apiKey: 'sk-test-0123456789', baseUrl: s.url, retry: fastRetry });

describe('tool-call ids that change mid-call', () => {
  // poolsideai/pool#9: the first fragment carries one id with the name, every later fragment another id.
  it('fragments under a second id continue the call the first id named, under the first id', async () => {
    const s = await serve({
      events: [
        calls({ index: 0, id: 'call_first', type: 'function', function: { name: 'catalog_lookup', arguments: '' } }),
        calls({ index: 0, id: 'call_later', type: 'function', function: { arguments: '{"title":' } }),
        calls({ index: 0, id: 'call_later', type: 'function', function: { arguments: '"Dune"}' } }),
        ...finish,
      ],
    });
    const events = await drain(provider(s).stream(req()));
    expect(ofType(events, 'tool_call_start').map((e) => [e.id, e.name])).toEqual([['call_first', 'catalog.lookup']]);
    expect(ofType(events, 'tool_call_end').map((e) => [e.id, e.name, e.ok, e.input])).toEqual([
      ['call_first', 'catalog.lookup', true, { title: 'Dune' }],
    ]);
    expect(new Set(ofType(events, 'tool_call_delta').map((e) => e.id))).toEqual(new Set(['call_first']));
  });

  // 0xPlaygrounds/rig#1508 (fixed by rig#1510): GLM-4 behind an OpenAI-compatible endpoint sends a fresh id on
  // every fragment of one call; only the first fragment has the name.
  it('a fresh id on every fragment is still one call', async () => {
    const s = await serve({
      events: [
        calls({ index: 0, id: 'call_1', type: 'function', function: { name: 'catalog_lookup', arguments: '{"ti' } }),
        calls({ index: 0, id: 'call_2', function: { arguments: 'tle":"Du' } }),
        calls({ index: 0, id: 'call_3', function: { arguments: 'ne"}' } }),
        ...finish,
      ],
    });
    const turn = await collectStream(provider(s).stream(req()));
    expect(turn.message.content).toEqual([
      {
        type: 'tool_call',
        id: 'call_1',
        name: 'catalog.lookup',
        input: { title: 'Dune' },
        rawArguments: '{"title":"Dune"}',
      },
    ]);
    expect(turn.toolCallFailures).toEqual({});
  });

  // SillyTavern/SillyTavern#5948: Fireworks repeats id, type and name on every fragment of one call.
  it('an id and a name repeated on every fragment are one call', async () => {
    const frag = (args: string) =>
      calls({ index: 0, id: 'call_rep', type: 'function', function: { name: 'catalog_lookup', arguments: args } });
    const s = await serve({ events: [frag(''), frag('{"title":'), frag('"Dune"}'), ...finish] });
    const ends = ofType(await drain(provider(s).stream(req())), 'tool_call_end');
    expect(ends.map((e) => [e.id, e.input])).toEqual([['call_rep', { title: 'Dune' }]]);
  });

  it('a new name at the same index still starts a new call, whatever its id', async () => {
    const s = await serve({
      events: [
        calls({
          index: 0,
          id: 'call_a',
          type: 'function',
          function: { name: 'catalog_lookup', arguments: '{"title":' },
        }),
        calls({ index: 0, id: 'call_a2', function: { arguments: '"Alien"}' } }),
        calls({
          index: 0,
          id: 'call_b',
          type: 'function',
          function: { name: 'catalog_lookup', arguments: '{"title":' },
        }),
        calls({ index: 0, function: { arguments: '"Heat"}' } }),
        ...finish,
      ],
    });
    const ends = ofType(await drain(provider(s).stream(req())), 'tool_call_end');
    expect(ends.map((e) => [e.id, e.ok, e.input])).toEqual([
      ['call_a', true, { title: 'Alien' }],
      ['call_b', true, { title: 'Heat' }],
    ]);
  });

  // vercel/ai#16507 and lmstudio-ai/lmstudio-bug-tracker#649: fragments whose function name is "" — a call that
  // never gets a name must not be stored or sent back as a tool_call with an empty name.
  it('a call that ends without a name is a typed failure, never a nameless tool_call', async () => {
    const s = await serve({
      events: [
        chunk({ role: 'assistant', content: '' }),
        calls({ index: 0, id: 'call_x', type: 'function', function: { name: '', arguments: '{"title":"Dune"}' } }),
        ...finish,
      ],
    });
    const events = await drain(provider(s).stream(req()));
    expect(ofType(events, 'tool_call_start')).toEqual([]);
    expect(ofType(events, 'tool_call_end')).toEqual([]);
    expect(ofType(events, 'error')[0]?.error).toMatchObject({
      code: 'PROVIDER_PROTOCOL',
      details: { toolCallId: 'call_x', index: 0 },
    });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'error' });
    await expect(collectStream(provider(s).stream(req()))).rejects.toMatchObject({ code: 'PROVIDER_PROTOCOL' });
  });

  it('the old split (a second id with no name) no longer yields a nameless call that the next request sends back', async () => {
    const s = await serve(
      {
        events: [
          calls({ index: 0, id: 'call_first', type: 'function', function: { name: 'catalog_lookup', arguments: '' } }),
          calls({ index: 0, id: 'call_later', function: { arguments: '{"title":"Dune"}' } }),
          ...finish,
        ],
      },
      { events: [chunk({ role: 'assistant', content: 'Found it.' }), chunk({}, 'stop'), { data: '[DONE]' }] },
    );
    const p = provider(s);
    const turn = await collectStream(p.stream(req()));
    const results: ModelMessage[] = turn.message.content.flatMap((c) =>
      c.type === 'tool_call'
        ? [{ role: 'tool' as const, toolCallId: c.id, name: c.name, status: 'ok' as const, content: '{"found":true}' }]
        : [],
    );
    await collectStream(p.stream(req([{ role: 'user', content: 'find Dune' }, turn.message, ...results])));
    const sent = (
      s.requests[1]!.json as { messages: Array<{ tool_calls?: Array<{ id: string; function: { name: string } }> }> }
    ).messages.flatMap((m) => m.tool_calls ?? []);
    expect(sent.map((c) => [c.id, c.function.name])).toEqual([['call_first', 'catalog_lookup']]);
  });
});
