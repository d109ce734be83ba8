// How an OpenAI-compatible stream may end: tool-call fragments after `finish_reason`, and `[DONE]` without a
// `finish_reason`. Nothing odd is taken silently: it is refused with a warning, retried as a cut, or fails
// typed, and no tool runs on a call the server sent after it said the reply was over. Real HTTP against a
// local replay server (and, at the end, the real runtime with SQLite).
import { afterEach, describe, expect, it } from 'vitest';
import { collectStream } from '../../src/models/complete';
import { OpenAICompatibleProvider } from '../../src/models/openai-compatible';
import { WireReplayServer, type ReplayEvent, type ReplayResponse } from '../../src/models/replay-server';
import type { ModelEvent, ModelRequest, ModelTool } from '../../src/models/types';
import { runEvents, waitForStatus } from '../runtime/harness';
import { closeWireHosts, wireHost } from '../runtime/wire-host';
import { drain, ofType, textOf } from './helpers';

const servers: WireReplayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await closeWireHosts();
});

const titleSchema = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };
const tools: ModelTool[] = [
  { name: 'inventory.query', description: 'Is a title in the library?', inputSchema: titleSchema },
  { name: 'download.submit', description: 'Adds a download job.', inputSchema: titleSchema },
];
const request: ModelRequest = { model: 'own-model', messages: [{ role: 'user', content: 'Get Dune' }], tools };

const chunk = (delta: object, finish: string | null = null): ReplayEvent => ({
  data: JSON.stringify({
    id: 'chatcmpl-end',
    object: 'chat.completion.chunk',
    created: 1770000000,
    model: 'own-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  }),
});
const role = chunk({ role: 'assistant', content: '' });
const calls = (...tcs: object[]): ReplayEvent => chunk({ tool_calls: tcs });
const queryCall = calls({
  index: 0,
  id: 'a',
  type: 'function',
  function: { name: 'inventory_query', arguments: '{"title":"Dune"}' },
});
const lateCall = calls({ index: 1, id: 'b', function: { name: 'download_submit', arguments: '{"title":"B"}' } });
const DONE: ReplayEvent = { data: '[DONE]' };

async function serve(...responses: ReplayResponse[]): Promise<WireReplayServer> {
  const s = await WireReplayServer.start(responses);
  servers.push(s);
  return s;
}
const provider = (s: WireReplayServer, retry: object = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 }) =>
  new OpenAICompatibleProvider({ apiKey: 'sk-test-0123456789', baseUrl: s.url, retry });
const warningsOf = (events: ModelEvent[]) => ofType(events, 'warning').map((e) => e.warning);
const errorOf = (events: ModelEvent[]) =>
  ofType(events, 'error')[0]?.error as (Error & { code?: string; details?: Record<string, unknown> }) | undefined;
const callEvents = (events: ModelEvent[]) =>
  events.filter((e) => e.type === 'tool_call_start' || e.type === 'tool_call_delta' || e.type === 'tool_call_end');

describe('tool-call fragments after finish_reason', () => {
  it('a new call after finish_reason is not emitted at all: a PROVIDER_TOOL_CALL_LATE warning names it', async () => {
    const s = await serve({ events: [role, queryCall, chunk({}, 'tool_calls'), lateCall, DONE] });
    const events = await drain(provider(s).stream(request));
    // Only the call the reply held when the server said it was over; nothing of `b`, not even a start.
    expect(new Set(callEvents(events).map((e) => e.id))).toEqual(new Set(['a']));
    expect(ofType(events, 'tool_call_end').map((e) => [e.id, e.name, e.ok, e.input])).toEqual([
      ['a', 'inventory.query', true, { title: 'Dune' }],
    ]);
    expect(warningsOf(events)).toEqual([
      {
        code: 'PROVIDER_TOOL_CALL_LATE',
        message: expect.stringContaining('after finish_reason'),
        details: {
          provider: 'openai-compatible:openai',
          finishReason: 'tool_calls',
          index: 1,
          id: 'b',
          name: 'download_submit',
          rawArguments: '{"title":"B"}',
        },
      },
    ]);
    expect(errorOf(events)).toBeUndefined();
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' });
    const turn = await collectStream(provider(s).stream(request));
    expect(turn.message.content).toEqual([
      {
        type: 'tool_call',
        id: 'a',
        name: 'inventory.query',
        input: { title: 'Dune' },
        rawArguments: '{"title":"Dune"}',
      },
    ]);
  });

  it('an argument fragment after finish_reason never reaches the call it continues, which already ended', async () => {
    const s = await serve({
      events: [
        role,
        calls({ index: 0, id: 'a', type: 'function', function: { name: 'inventory_query', arguments: '{"title":' } }),
        chunk({}, 'tool_calls'),
        calls({ index: 0, function: { arguments: '"Dune"}' } }),
        DONE,
      ],
    });
    const events = await drain(provider(s).stream(request));
    const seen = callEvents(events);
    expect(seen.at(-1)?.type).toBe('tool_call_end'); // nothing of the call after its end
    expect(ofType(events, 'tool_call_end').map((e) => [e.id, e.ok, e.ok ? undefined : e.failure.code])).toEqual([
      ['a', false, 'TOOL_ARGS_MALFORMED'],
    ]);
    expect(warningsOf(events)).toMatchObject([
      { code: 'PROVIDER_TOOL_CALL_LATE', details: { index: 0, rawArguments: '"Dune"}' } },
    ]);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' });
  });

  it('several late fragments of one call give one warning with the whole late text', async () => {
    const s = await serve({
      events: [
        role,
        queryCall,
        chunk({}, 'tool_calls'),
        calls({ index: 1, id: 'b', function: { name: 'download_submit', arguments: '{"title":' } }),
        calls({ index: 1, function: { arguments: '"B"}' } }),
        DONE,
      ],
    });
    const events = await drain(provider(s).stream(request));
    expect(new Set(callEvents(events).map((e) => e.id))).toEqual(new Set(['a']));
    expect(warningsOf(events)).toMatchObject([
      {
        code: 'PROVIDER_TOOL_CALL_LATE',
        details: { index: 1, id: 'b', name: 'download_submit', rawArguments: '{"title":"B"}' },
      },
    ]);
  });

  it('the last fragment in the same chunk as finish_reason is still part of the call (no warning)', async () => {
    const s = await serve({
      events: [
        role,
        calls({ index: 0, id: 'a', type: 'function', function: { name: 'inventory_query', arguments: '{"title":' } }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Dune"}' } }] }, 'tool_calls'),
        DONE,
      ],
    });
    const events = await drain(provider(s).stream(request));
    expect(ofType(events, 'tool_call_end').map((e) => [e.id, e.ok, e.input])).toEqual([['a', true, { title: 'Dune' }]]);
    expect(warningsOf(events)).toEqual([]);
  });
});

describe('[DONE] without a finish_reason', () => {
  it('nothing but the role chunk, then [DONE]: a cut before content, retried like one', async () => {
    const s = await serve(
      { events: [role, DONE] },
      { events: [role, chunk({ content: 'Dune is in the library.' }), chunk({}, 'stop'), DONE] },
    );
    const infos: object[] = [];
    const events = await drain(
      provider(s, { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, onRetry: (i: object) => void infos.push(i) }).stream(
        request,
      ),
    );
    expect(s.requests).toHaveLength(2);
    expect(infos).toMatchObject([{ attempt: 1, status: 200, code: 'PROVIDER_PROTOCOL', inStream: true }]);
    expect(errorOf(events)).toBeUndefined();
    expect(textOf(events)).toBe('Dune is in the library.');
    expect(warningsOf(events)).toEqual([]);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('empty every time: the attempts run out and the turn fails typed, never an empty answer', async () => {
    const s = await serve({ events: [role, DONE] });
    const events = await drain(provider(s).stream(request));
    expect(s.requests).toHaveLength(3);
    expect(errorOf(events)).toMatchObject({ code: 'PROVIDER_PROTOCOL', details: { streamCut: true, attempts: 3 } });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'error' });
    await expect(collectStream(provider(s, { maxAttempts: 1 }).stream(request))).rejects.toMatchObject({
      code: 'PROVIDER_PROTOCOL',
    });
  });

  // Servers and proxies that leave finish_reason out (BerriAI/liteLLM-proxy#19), or send "" on every chunk
  // (ollama/ollama#4357): the reply is kept, and the missing reason is a visible warning.
  it.each([
    ['null', null],
    ['""', ''],
  ])(
    'text then [DONE], finish_reason %s: the text is the answer, with a PROVIDER_FINISH_MISSING warning',
    async (_, f) => {
      const s = await serve({ events: [role, chunk({ content: 'Dune is in the library.' }, f), DONE] });
      const events = await drain(provider(s).stream(request));
      expect(s.requests).toHaveLength(1);
      expect(textOf(events)).toBe('Dune is in the library.');
      expect(warningsOf(events)).toEqual([
        {
          code: 'PROVIDER_FINISH_MISSING',
          message: expect.stringContaining('finish_reason'),
          details: { provider: 'openai-compatible:openai', toolCalls: 0 },
        },
      ]);
      expect(errorOf(events)).toBeUndefined();
      expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    },
  );

  it('a complete tool call then [DONE]: the call ends as before, and the missing reason is a warning', async () => {
    const s = await serve({ events: [role, queryCall, DONE] });
    const events = await drain(provider(s).stream(request));
    expect(ofType(events, 'tool_call_end').map((e) => [e.id, e.ok, e.input])).toEqual([['a', true, { title: 'Dune' }]]);
    expect(warningsOf(events)).toMatchObject([{ code: 'PROVIDER_FINISH_MISSING', details: { toolCalls: 1 } }]);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' });
  });

  it('a tool call whose arguments are not complete JSON at [DONE] fails TOOL_ARGS_MALFORMED and cannot run', async () => {
    const s = await serve({
      events: [
        role,
        calls({
          index: 0,
          id: 'a',
          type: 'function',
          function: { name: 'download_submit', arguments: '{"title":"Du' },
        }),
        DONE,
      ],
    });
    const events = await drain(provider(s).stream(request));
    expect(ofType(events, 'tool_call_end').map((e) => [e.id, e.ok, e.ok ? undefined : e.failure.code])).toEqual([
      ['a', false, 'TOOL_ARGS_MALFORMED'],
    ]);
    expect(warningsOf(events)).toMatchObject([{ code: 'PROVIDER_FINISH_MISSING' }]);
  });
});

describe('through the runtime', () => {
  const text = (t: string): ReplayResponse => ({ events: [role, chunk({ content: t }), chunk({}, 'stop'), DONE] });

  it('a download_submit sent after finish_reason never runs, even under a grant; the warning is a run event', async () => {
    const { host, world, server, start } = await wireHost([
      { events: [role, queryCall, chunk({}, 'tool_calls'), lateCall, DONE] },
      text('Dune is in the library.'),
    ]);
    await start();
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'Get Dune', actor: 'user:admin' });
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    expect(done.error).toBeNull();
    expect(world.jobs).toEqual([]);
    const events = await runEvents(host, run.id);
    const settled = events.filter((e) => e.type === 'tool_call' && (e.data as { phase: string }).phase !== 'started');
    expect(
      settled.map((e) => [(e.data as { capabilityId: string }).capabilityId, (e.data as { phase: string }).phase]),
    ).toEqual([['inventory.query', 'succeeded']]);
    expect(events.filter((e) => e.type === 'warning').map((e) => e.data)).toContainEqual(
      expect.objectContaining({ source: 'provider', code: 'PROVIDER_TOOL_CALL_LATE' }),
    );
    // The reply sent back holds the one call that ran, answered.
    const last = server.requests.at(-1)!.json as {
      messages: Array<{ tool_calls?: Array<{ function: { name: string } }> }>;
    };
    expect(last.messages.flatMap((m) => m.tool_calls?.map((c) => c.function.name) ?? [])).toEqual(['inventory_query']);
  });

  it('an answer ended by [DONE] alone is kept, and PROVIDER_FINISH_MISSING is a run event', async () => {
    const { host, start } = await wireHost([{ events: [role, chunk({ content: 'Dune is in the library.' }), DONE] }]);
    await start();
    const run = await host.startRun({ goal: 'Is Dune in the library?', mode: 'plan_only', actor: 'user:admin' });
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    expect(done.finalText).toBe('Dune is in the library.');
    const warnings = (await runEvents(host, run.id)).filter((e) => e.type === 'warning').map((e) => e.data);
    expect(warnings).toContainEqual(expect.objectContaining({ source: 'provider', code: 'PROVIDER_FINISH_MISSING' }));
  });
});
