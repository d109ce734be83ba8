// Errors, retries and timeouts: the same rules for both HTTP providers, each over real HTTP.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/models/anthropic';
import { collectStream } from '../../src/models/complete';
import type { HttpProviderOptions } from '../../src/models/http';
import { OpenAICompatibleProvider } from '../../src/models/openai-compatible';
import { transcriptEvents, WireReplayServer, type ReplayResponse } from '../../src/models/replay-server';
import type { ModelEvent, ModelProvider } from '../../src/models/types';
import { drain, fastRetry, fixture, ofType, recordingRetry, replayServers } from './helpers';

const KEY = 'sk-secret-key-0123456789abcdef';
const { track } = replayServers();

const kinds = [
  {
    name: 'anthropic',
    ok: (): ReplayResponse => ({ events: transcriptEvents(fixture('anthropic-text.chunks.txt'), 'anthropic') }),
    make: (baseUrl: string, o: HttpProviderOptions = {}): ModelProvider =>
      new AnthropicProvider({ apiKey: KEY, baseUrl, retry: fastRetry, ...o }),
    overflow: JSON.stringify({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 208310 tokens > 200000 maximum' },
    }),
  },
  {
    name: 'openai-compatible',
    ok: (): ReplayResponse => ({ events: transcriptEvents(fixture('openai-text.chunks.txt'), 'openai') }),
    make: (baseUrl: string, o: HttpProviderOptions = {}): ModelProvider =>
      new OpenAICompatibleProvider({ apiKey: KEY, baseUrl, retry: fastRetry, ...o }),
    overflow: JSON.stringify({
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
        type: 'invalid_request_error',
        code: 'context_length_exceeded',
      },
    }),
  },
];

const errorBody = (message: string) => JSON.stringify({ error: { type: 'error', message } });
const request = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };

async function serve(responses: ReplayResponse[]): Promise<WireReplayServer> {
  const s = await WireReplayServer.start(responses);
  track(s);
  return s;
}
function lastError(events: ModelEvent[]) {
  return ofType(events, 'error')[0]?.error as
    | (Error & { code?: string; details?: Record<string, unknown> })
    | undefined;
}

describe.each(kinds)('$name provider: errors, retries and timeouts', (kind) => {
  it('retries a 429 after the wait the server asks for in retry-after, then succeeds', async () => {
    const s = await serve([{ status: 429, headers: { 'retry-after': '2' }, body: errorBody('slow down') }, kind.ok()]);
    const waits: number[] = [];
    const p = kind.make(s.url, { retry: { ...fastRetry, sleep: async (ms) => void waits.push(ms) } });
    const events = await drain(p.stream(request));
    expect(waits).toEqual([2000]);
    expect(s.requests).toHaveLength(2);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('honours retry-after-ms over retry-after', async () => {
    const s = await serve([
      { status: 429, headers: { 'retry-after-ms': '15', 'retry-after': '1' }, body: errorBody('slow down') },
      kind.ok(),
    ]);
    const waits: number[] = [];
    await drain(
      kind.make(s.url, { retry: { ...fastRetry, onRetry: (i) => void waits.push(i.delayMs) } }).stream(request),
    );
    expect(waits).toEqual([15]);
  });

  it('retries 529 and 5xx with exponential backoff and jitter', async () => {
    const s = await serve([
      { status: 529, body: errorBody('Overloaded') },
      { status: 503, body: errorBody('busy') },
      kind.ok(),
    ]);
    const waits: number[] = [];
    const p = kind.make(s.url, {
      retry: {
        maxAttempts: 3,
        baseDelayMs: 100,
        maxDelayMs: 10_000,
        random: () => 0.5,
        sleep: async (ms) => void waits.push(ms),
      },
    });
    const events = await drain(p.stream(request));
    expect(waits).toEqual([75, 150]);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('gives up after maxAttempts with PROVIDER_UNAVAILABLE', async () => {
    const s = await serve([{ status: 500, body: errorBody('boom') }]);
    const events = await drain(kind.make(s.url).stream(request));
    expect(s.requests).toHaveLength(3);
    expect(lastError(events)).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', details: { status: 500, attempts: 3 } });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'error' });
  });

  it.each([
    '-1',
    '-0.5',
    'soon',
    '12abc',
    'NaN',
    'Wed, 21 Oct 2015 07:28:00 GMT',
    'Thu, 01 Jan 1970 00:00:00 GMT',
    '   ',
  ])('falls back to the computed backoff when retry-after is %j (negative, garbage or a past date)', async (value) => {
    const s = await serve([
      { status: 429, headers: { 'retry-after': value }, body: errorBody('slow down') },
      kind.ok(),
    ]);
    const { retry, waits, infos } = recordingRetry();
    const events = await drain(kind.make(s.url, { retry }).stream(request));
    expect(waits).toEqual([75]);
    expect(infos[0]).not.toHaveProperty('retryAfterMs');
    expect(s.requests).toHaveLength(2);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('reads retry-after when retry-after-ms is negative', async () => {
    const s = await serve([
      { status: 429, headers: { 'retry-after-ms': '-1', 'retry-after': '2' }, body: errorBody('slow down') },
      kind.ok(),
    ]);
    const waits: number[] = [];
    await drain(
      kind.make(s.url, { retry: { ...fastRetry, sleep: async (ms) => void waits.push(ms) } }).stream(request),
    );
    expect(waits).toEqual([2000]);
  });

  it.each(['3600', '99999999999999999999', 'Fri, 01 Jan 2100 00:00:00 GMT'])(
    'caps a retry-after of %j at maxRetryAfterMs, retries, and reports it (onRetry retryAfterCapped, PROVIDER_RETRY_AFTER_CAPPED warning)',
    async (value) => {
      const s = await serve([{ status: 429, headers: { 'retry-after': value }, body: errorBody('quota') }, kind.ok()]);
      const waits: number[] = [];
      const infos: Array<Record<string, unknown>> = [];
      const retry = {
        ...fastRetry,
        maxRetryAfterMs: 1000,
        sleep: async (ms: number) => void waits.push(ms),
        onRetry: (i: object) => void infos.push({ ...i }),
      };
      const events = await drain(kind.make(s.url, { retry }).stream(request));
      expect(waits).toEqual([1000]);
      expect(s.requests).toHaveLength(2);
      expect(infos).toEqual([
        {
          attempt: 1,
          status: 429,
          delayMs: 1000,
          code: 'PROVIDER_RATE_LIMITED',
          retryAfterMs: expect.any(Number),
          retryAfterCapped: true,
        },
      ]);
      expect(infos[0]!.retryAfterMs as number).toBeGreaterThan(1000);
      const warnings = ofType(events, 'warning');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.warning).toMatchObject({
        code: 'PROVIDER_RETRY_AFTER_CAPPED',
        details: { status: 429, delayMs: 1000, maxRetryAfterMs: 1000 },
      });
      expect(events.findIndex((e) => e.type === 'warning')).toBe(0);
      expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    },
  );

  it('when no attempt is left, a capped retry-after is in the error details (retryAfterMs, retryAfterCapped)', async () => {
    const s = await serve([{ status: 429, headers: { 'retry-after': '3600' }, body: errorBody('quota') }]);
    const events = await drain(
      kind.make(s.url, { retry: { ...fastRetry, maxAttempts: 1, maxRetryAfterMs: 1000 } }).stream(request),
    );
    expect(s.requests).toHaveLength(1);
    expect(lastError(events)).toMatchObject({
      code: 'PROVIDER_RATE_LIMITED',
      details: { retryAfterMs: 3_600_000, retryAfterCapped: true, attempts: 1 },
    });
  });

  it('never retries 401 and reports PROVIDER_AUTH', async () => {
    const s = await serve([{ status: 401, body: errorBody('invalid x-api-key') }, kind.ok()]);
    const events = await drain(kind.make(s.url).stream(request));
    expect(s.requests).toHaveLength(1);
    expect(lastError(events)?.code).toBe('PROVIDER_AUTH');
  });

  it('never retries 403 and reports PROVIDER_AUTH', async () => {
    const s = await serve([{ status: 403, body: errorBody('permission denied') }, kind.ok()]);
    const events = await drain(kind.make(s.url).stream(request));
    expect(s.requests).toHaveLength(1);
    expect(lastError(events)?.code).toBe('PROVIDER_AUTH');
  });

  it('keeps the API key out of errors and events even when the server echoes it', async () => {
    const s = await serve([
      { status: 401, body: errorBody(`Incorrect API key provided: ${KEY}. Also sk-abc1234567**cdef`) },
    ]);
    const events = await drain(kind.make(s.url).stream(request));
    const err = lastError(events)!;
    const text = `${err.message} ${JSON.stringify(err)} ${JSON.stringify(events)} ${String(err.stack)}`;
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('sk-abc1234567');
    expect(err.message).toContain('[redacted]');
  });

  it('maps a 400 context-length error to ContextOverflowError (PROVIDER_CONTEXT_OVERFLOW), not retried', async () => {
    const s = await serve([{ status: 400, body: kind.overflow }]);
    const events = await drain(kind.make(s.url).stream(request));
    expect(s.requests).toHaveLength(1);
    expect(lastError(events)?.name).toBe('ContextOverflowError');
    expect(lastError(events)?.code).toBe('PROVIDER_CONTEXT_OVERFLOW');
  });

  it('maps another 400 to PROVIDER_HTTP, not retried', async () => {
    const s = await serve([{ status: 400, body: errorBody('messages: field required') }]);
    const events = await drain(kind.make(s.url).stream(request));
    expect(s.requests).toHaveLength(1);
    expect(lastError(events)?.code).toBe('PROVIDER_HTTP');
  });

  it('reports a first-byte timeout when the headers do not arrive in time', async () => {
    const s = await serve([{ ...kind.ok(), headerDelayMs: 10_000 }]);
    const events = await drain(
      kind.make(s.url, { firstByteTimeoutMs: 100, retry: { maxAttempts: 1 } }).stream(request),
    );
    expect(lastError(events)).toMatchObject({
      code: 'PROVIDER_TIMEOUT',
      details: { phase: 'first_byte', timeoutMs: 100 },
    });
  });

  it('reports an idle timeout when the stream goes silent, after the deltas already received', async () => {
    const s = await serve([{ ...kind.ok(), stallAfterEvents: 4 }]);
    const events = await drain(kind.make(s.url, { idleTimeoutMs: 150 }).stream(request));
    expect(ofType(events, 'text_delta').length).toBeGreaterThan(0);
    expect(lastError(events)).toMatchObject({ code: 'PROVIDER_TIMEOUT', details: { phase: 'idle', timeoutMs: 150 } });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'error' });
  });

  it('retries a refused connection and then reports PROVIDER_UNREACHABLE', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const codes: string[] = [];
    const events = await drain(
      kind
        .make(`http://127.0.0.1:${port}`, { retry: { ...fastRetry, onRetry: (i) => void codes.push(i.code) } })
        .stream(request),
    );
    expect(codes).toEqual(['PROVIDER_UNREACHABLE', 'PROVIDER_UNREACHABLE']);
    expect(lastError(events)?.code).toBe('PROVIDER_UNREACHABLE');
  });

  it('stops waiting between retries when aborted and ends with done(aborted)', async () => {
    const s = await serve([{ status: 503, body: errorBody('busy') }]);
    const ac = new AbortController();
    const p = kind.make(s.url, {
      retry: {
        maxAttempts: 5,
        baseDelayMs: 60_000,
        maxDelayMs: 60_000,
        onRetry: () => setTimeout(() => ac.abort(), 5),
      },
    });
    const events = await drain(p.stream(request, ac.signal));
    expect(events).toEqual([{ type: 'done', stopReason: 'aborted' }]);
  });

  it('makes complete() throw the typed error of a failed call', async () => {
    const s = await serve([{ status: 401, body: errorBody('bad key') }]);
    await expect(collectStream(kind.make(s.url).stream(request))).rejects.toMatchObject({ code: 'PROVIDER_AUTH' });
  });
});

describe('transient errors inside a 200 stream', () => {
  const anthropic = (name: string): ReplayResponse => ({ events: transcriptEvents(fixture(name), 'anthropic') });
  const openai = (name: string): ReplayResponse => ({ events: transcriptEvents(fixture(name), 'openai') });
  const variants = [
    { provider: 'anthropic', fixture: 'own-anthropic-overloaded-first.chunks.txt', code: 'PROVIDER_UNAVAILABLE' },
    { provider: 'anthropic', fixture: 'own-anthropic-rate-limit-first.chunks.txt', code: 'PROVIDER_RATE_LIMITED' },
    { provider: 'anthropic', fixture: 'own-anthropic-api-error-first.chunks.txt', code: 'PROVIDER_UNAVAILABLE' },
    {
      provider: 'openai-compatible',
      fixture: 'own-openai-server-error-first.chunks.txt',
      code: 'PROVIDER_UNAVAILABLE',
    },
    { provider: 'openai-compatible', fixture: 'own-openai-rate-limit-first.chunks.txt', code: 'PROVIDER_RATE_LIMITED' },
    { provider: 'openai-compatible', fixture: 'own-openai-overloaded-first.chunks.txt', code: 'PROVIDER_UNAVAILABLE' },
    {
      provider: 'openai-compatible',
      fixture: 'own-openai-insufficient-resource.chunks.txt',
      code: 'PROVIDER_UNAVAILABLE',
    },
  ] as const;
  const kindOf = (provider: string) => kinds.find((k) => k.name === provider)!;
  /** The usage of the `message_start` of the Anthropic `*-first` fixtures. */
  const promptOnly = { inputTokens: 100, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
  const wire = (provider: string, name: string) => (provider === 'anthropic' ? anthropic(name) : openai(name));

  it.each(variants)(
    '$provider: retries $fixture ($code) before any output with the HTTP backoff, and the next reply is delivered once',
    async (v) => {
      const kind = kindOf(v.provider);
      const s = await serve([wire(v.provider, v.fixture), kind.ok()]);
      const { retry, waits, infos } = recordingRetry();
      const events = await drain(kind.make(s.url, { retry }).stream(request));
      expect(s.requests).toHaveLength(2);
      expect(waits).toEqual([75]);
      expect(infos).toEqual([{ attempt: 1, status: 200, delayMs: 75, code: v.code, inStream: true }]);
      expect(ofType(events, 'error')).toEqual([]);
      const once = await drain(kind.make((await serve([kind.ok()])).url).stream(request));
      // The usage the failed attempt's server reported (Anthropic's message_start) is charged before the retry.
      const charged = v.provider === 'anthropic' ? [{ type: 'usage', usage: promptOnly }] : [];
      expect(events.filter((e) => e.type !== 'warning')).toEqual([...charged, ...once]);
    },
  );

  it.each(variants)('$provider: gives up on $fixture after maxAttempts, with details.attempts', async (v) => {
    const kind = kindOf(v.provider);
    const s = await serve([wire(v.provider, v.fixture)]);
    const events = await drain(kind.make(s.url, { retry: { ...fastRetry, maxAttempts: 3 } }).stream(request));
    expect(s.requests).toHaveLength(3);
    expect(lastError(events)).toMatchObject({ code: v.code, details: { inStream: true, attempts: 3 } });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'error' });
  });

  it.each(['anthropic', 'openai-compatible'])(
    '%s: HTTP failures and in-stream errors share one attempt budget',
    async (provider) => {
      const kind = kindOf(provider);
      const inStream =
        provider === 'anthropic'
          ? 'own-anthropic-overloaded-first.chunks.txt'
          : 'own-openai-server-error-first.chunks.txt';
      const s = await serve([
        { status: 503, body: errorBody('busy') },
        wire(provider, inStream),
        { status: 529, body: errorBody('Overloaded') },
        kind.ok(),
      ]);
      const attempts: number[] = [];
      const events = await drain(
        kind
          .make(s.url, { retry: { ...fastRetry, maxAttempts: 3, onRetry: (i) => void attempts.push(i.attempt) } })
          .stream(request),
      );
      expect(attempts).toEqual([1, 2]);
      expect(s.requests).toHaveLength(3);
      expect(lastError(events)).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', details: { status: 529, attempts: 3 } });
    },
  );

  it.each([
    { provider: 'anthropic', fixture: 'own-anthropic-overloaded.chunks.txt', text: 'Let me' },
    { provider: 'openai-compatible', fixture: 'own-openai-stream-error.chunks.txt', text: 'Hel' },
    {
      provider: 'openai-compatible',
      fixture: 'own-openai-insufficient-resource-after-text.chunks.txt',
      text: 'Dune: Part',
    },
  ])(
    '$provider: after output ($fixture) the turn fails visibly, the text is shown once and nothing is retried',
    async (v) => {
      const kind = kindOf(v.provider);
      const s = await serve([wire(v.provider, v.fixture), kind.ok()]);
      let retries = 0;
      const events = await drain(
        kind.make(s.url, { retry: { ...fastRetry, onRetry: () => void retries++ } }).stream(request),
      );
      expect(s.requests).toHaveLength(1);
      expect(retries).toBe(0);
      expect(
        ofType(events, 'text_delta')
          .map((e) => e.text)
          .join(''),
      ).toBe(v.text);
      expect(lastError(events)?.code).toBe('PROVIDER_UNAVAILABLE');
      expect(events.slice(-2).map((e) => e.type)).toEqual(['error', 'done']);
      expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'error' });
    },
  );

  it('does not retry an in-stream error that is not transient (invalid_request_error)', async () => {
    const kind = kindOf('anthropic');
    const bad = transcriptEvents(fixture('own-anthropic-overloaded-first.chunks.txt'), 'anthropic').slice(0, 1);
    bad.push({
      event: 'error',
      data: JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'tools.0: bad schema' } }),
    });
    const s = await serve([{ events: bad }, kind.ok()]);
    const events = await drain(kind.make(s.url).stream(request));
    expect(s.requests).toHaveLength(1);
    expect(lastError(events)?.code).toBe('PROVIDER_HTTP');
  });

  it('stops waiting before an in-stream retry when aborted and ends with done(aborted)', async () => {
    const kind = kindOf('anthropic');
    const s = await serve([anthropic('own-anthropic-overloaded-first.chunks.txt')]);
    const ac = new AbortController();
    const p = kind.make(s.url, {
      retry: { maxAttempts: 5, baseDelayMs: 60_000, maxDelayMs: 60_000, onRetry: () => ac.abort() },
    });
    // The aborted call is still charged what its first attempt reported (message_start) before the retry wait.
    expect(await drain(p.stream(request, ac.signal))).toEqual([
      { type: 'usage', usage: { inputTokens: 100, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } },
      { type: 'done', stopReason: 'aborted' },
    ]);
    expect(s.requests).toHaveLength(1);
  });
});
