// A 200 stream cut before its first content (socket destroyed, or body ended cleanly) is retried like an
// in-stream transient error: same attempt budget, same backoff, same onRetry. After content, nothing is
// retried and the turn fails with a typed error. Both HTTP providers, over real local HTTP.
import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/models/anthropic';
import { collectStream } from '../../src/models/complete';
import type { HttpProviderOptions } from '../../src/models/http';
import { OpenAICompatibleProvider } from '../../src/models/openai-compatible';
import type { ReplayEvent } from '../../src/models/replay-server';
import type { ModelEvent, ModelProvider } from '../../src/models/types';
import { CutServer, type CutResponse } from './cut-server';
import { drain, ofType, textOf, recordingRetry, replayServers } from './helpers';
import { anthropicTurn } from './thinking-wire';

const KEY = 'sk-secret-key-0123456789abcdef';
const { track } = replayServers();

const openaiChunk = (delta: object, finish: string | null = null): ReplayEvent => ({
  data: JSON.stringify({
    id: 'chatcmpl-cut',
    object: 'chat.completion.chunk',
    created: 1770000000,
    model: 'own-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  }),
});
const anthropicFull = anthropicTurn([{ type: 'text', text: 'Dune is in the library.' }], 'end_turn');

const kinds = [
  {
    name: 'anthropic',
    make: (baseUrl: string, o: HttpProviderOptions = {}): ModelProvider =>
      new AnthropicProvider({ apiKey: KEY, baseUrl, ...o }),
    /** message_start (and a ping), nothing of the answer yet. */
    beforeContent: [anthropicFull[0]!, { event: 'ping', data: '{"type":"ping"}' }],
    /** message_start, a text block and its first delta. */
    afterContent: anthropicFull.slice(0, 3),
    partial: 'Dune is in t',
    ok: anthropicFull,
  },
  {
    name: 'openai-compatible',
    make: (baseUrl: string, o: HttpProviderOptions = {}): ModelProvider =>
      new OpenAICompatibleProvider({ apiKey: KEY, baseUrl, ...o }),
    /** The role chunk with empty content. */
    beforeContent: [openaiChunk({ role: 'assistant', content: '' })],
    afterContent: [openaiChunk({ role: 'assistant', content: '' }), openaiChunk({ content: 'Dune is' })],
    partial: 'Dune is',
    ok: [
      openaiChunk({ role: 'assistant', content: '' }),
      openaiChunk({ content: 'Dune is in the library.' }),
      openaiChunk({}, 'stop'),
      { data: '[DONE]' },
    ],
  },
];
const cuts = [
  { ending: 'destroy' as const, code: 'PROVIDER_UNREACHABLE' },
  { ending: 'end' as const, code: 'PROVIDER_PROTOCOL' },
];
const cases = kinds.flatMap((kind) => cuts.map((cut) => ({ ...cut, kind, label: `${kind.name}, ${cut.ending}` })));
const request = { model: 'm', messages: [{ role: 'user' as const, content: 'Is Dune in the library?' }] };

async function serve(responses: CutResponse[]): Promise<CutServer> {
  const s = await CutServer.start(responses);
  track(s);
  return s;
}
const errorOf = (events: ModelEvent[]) =>
  ofType(events, 'error')[0]?.error as (Error & { code?: string; details?: Record<string, unknown> }) | undefined;

describe('a 200 stream cut before its first content is retried', () => {
  // earendil-works/pi#4433 and can1357/oh-my-pi#10113 ("Anthropic stream ended before message_stop" on an empty
  // turn was not retried); QwenLM/qwen-code#5171 ("terminated (cause: other side closed)" before the first
  // chunk) and can1357/oh-my-pi#9609 (an OpenAI-compatible stream closed without finish_reason, not retried).
  it.each(cases)('$label: one retry with the in-stream backoff and onRetry, the answer delivered once', async (c) => {
    const s = await serve([
      { events: c.kind.beforeContent, ending: c.ending },
      { events: c.kind.ok, ending: 'complete' },
    ]);
    const { retry, waits, infos } = recordingRetry();
    const events = await drain(c.kind.make(s.url, { retry }).stream(request));
    expect(s.requests).toHaveLength(2);
    expect(waits).toEqual([75]);
    expect(infos).toEqual([{ attempt: 1, status: 200, delayMs: 75, code: c.code, inStream: true }]);
    expect(ofType(events, 'error')).toEqual([]);
    expect(textOf(events)).toBe('Dune is in the library.');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it.each(cases)('$label: shares the attempt budget, then fails with a typed error and details.attempts', async (c) => {
    const s = await serve([{ events: c.kind.beforeContent, ending: c.ending }]);
    const attempts: number[] = [];
    const events = await drain(
      c.kind
        .make(s.url, {
          retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, onRetry: (i) => void attempts.push(i.attempt) },
        })
        .stream(request),
    );
    expect(s.requests).toHaveLength(3);
    expect(attempts).toEqual([1, 2]);
    expect(errorOf(events)).toMatchObject({ code: c.code, details: { attempts: 3, streamCut: true } });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'error' });
  });

  it.each(cases)('$label: after content nothing is retried, the text is shown once and the turn fails', async (c) => {
    const s = await serve([
      { events: c.kind.afterContent, ending: c.ending },
      { events: c.kind.ok, ending: 'complete' },
    ]);
    let retries = 0;
    const events = await drain(
      c.kind.make(s.url, { retry: { maxAttempts: 3, baseDelayMs: 1, onRetry: () => void retries++ } }).stream(request),
    );
    expect(s.requests).toHaveLength(1);
    expect(retries).toBe(0);
    expect(textOf(events)).toBe(c.kind.partial);
    expect(errorOf(events)).toMatchObject({ code: c.code, details: { streamCut: true } });
    expect(events.slice(-2).map((e) => e.type)).toEqual(['error', 'done']);
    // What a caller of complete() gets from these events: the typed error, not a partial answer.
    const replayed = (async function* () {
      yield* events;
    })();
    await expect(collectStream(replayed)).rejects.toMatchObject({ code: c.code });
  });

  it.each(cuts)(
    'anthropic, $ending: a complete tool call followed by a cut is not retried and fails the turn',
    async (cut) => {
      const turn = anthropicTurn([
        { type: 'tool_use', id: 'toolu_01', name: 'inventory_query', input: { title: 'Dune' } },
      ]);
      const s = await serve([
        { events: turn.slice(0, -2), ending: cut.ending }, // everything up to message_delta / message_stop
        { events: turn, ending: 'complete' },
      ]);
      let retries = 0;
      const events = await drain(
        kinds[0]!
          .make(s.url, { retry: { maxAttempts: 3, baseDelayMs: 1, onRetry: () => void retries++ } })
          .stream(request),
      );
      expect(s.requests).toHaveLength(1);
      expect(retries).toBe(0);
      expect(ofType(events, 'tool_call_end')).toHaveLength(1);
      expect(errorOf(events)?.code).toBe(cut.code);
      expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'error' });
    },
  );
});
