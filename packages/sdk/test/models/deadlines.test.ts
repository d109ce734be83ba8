// Deadlines on every model call: a first-content and a total timeout per request, on real local
// HTTP servers that answer with headers and keep-alive pings but no content, or trickle content forever.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AnthropicProvider } from '../../src/models/anthropic';
import { OpenAICompatibleProvider } from '../../src/models/openai-compatible';
import { createModelProvider } from '../../src/models/factory';
import { MediaAgentError } from '../../src/core/errors';
import type { ModelEvent } from '../../src/models/types';
import { runModelTurn } from '../../src/runtime/loop/model-turn';
import { drain, ofType, textOf } from './helpers';
import { anthropicStart, sse, StallServer, type StallSpec } from './stall-server';

const servers: StallServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function stall(spec: StallSpec): Promise<StallServer> {
  const s = await StallServer.start(spec);
  servers.push(s);
  return s;
}

/** Retries without waiting, recorded. */
function instantRetry(maxAttempts: number) {
  const retries: Array<{ attempt: number; code: string; inStream?: boolean }> = [];
  return {
    retries,
    retry: {
      maxAttempts,
      sleep: async () => undefined,
      onRetry: (i: { attempt: number; code: string; inStream?: boolean }) => retries.push(i),
    },
  };
}

const ask = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };

function errorOf(events: ModelEvent[]) {
  const e = ofType(events, 'error')[0]?.error as MediaAgentError | undefined;
  expect(e, 'the stream ends with an error event').toBeInstanceOf(MediaAgentError);
  return e!;
}

/** An Anthropic stream: message_start (with usage), then only `ping` events and SSE comments. */
const anthropicPings = (inputTokens: number): StallSpec => ({
  head: anthropicStart(inputTokens),
  tick: `: keep-alive\n\n${sse({ type: 'ping' }, 'ping')}`,
  everyMs: 20,
});

/** An Anthropic stream that writes one text delta every 20 ms, forever. */
const anthropicTrickle = (inputTokens: number): StallSpec => ({
  head:
    anthropicStart(inputTokens) +
    sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
  tick: sse(
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'la ' } },
    'content_block_delta',
  ),
  everyMs: 20,
});

describe('first-content deadline', () => {
  it('ollama/ollama#7024: a server that answers with headers, a role-only delta and keep-alive comments but never content is cut at firstContentTimeoutMs (PROVIDER_TIMEOUT, phase first_content)', async () => {
    // The idle timeout never fires (a comment arrives every 20 ms): before this deadline the call hung forever.
    const server = await stall({
      head: sse({
        id: 'c1',
        object: 'chat.completion.chunk',
        model: 'qwen2.5:14b',
        choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }],
      }),
      tick: ': keep-alive\n\n',
      everyMs: 20,
    });
    const deadline = 400;
    const provider = new OpenAICompatibleProvider({
      baseUrl: server.url,
      dialect: 'ollama',
      firstContentTimeoutMs: deadline,
      // The first-byte deadline follows the first-content one unless set: kept apart, so a loaded machine that
      // is slow to send the headers cannot turn this into a first_byte cut.
      firstByteTimeoutMs: 60_000,
      idleTimeoutMs: 60_000,
      retry: { maxAttempts: 1 },
    });
    const t0 = performance.now();
    const events = await drain(provider.stream(ask));
    const elapsed = performance.now() - t0;
    const error = errorOf(events);
    expect(error.code).toBe('PROVIDER_TIMEOUT');
    expect(error.details).toMatchObject({ phase: 'first_content', timeoutMs: deadline, attempts: 1 });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'error' });
    expect(server.ticks, 'the server kept the stream alive meanwhile').toBeGreaterThan(0);
    // libuv's timers run on a clock of whole milliseconds: the cut may be seen up to 1 ms before the exact figure.
    expect(elapsed).toBeGreaterThanOrEqual(deadline - 1);
    expect(elapsed).toBeLessThan(deadline + 30_000);
    console.info(`first_content: deadline ${deadline} ms, cut after ${Math.round(elapsed)} ms`);
    await expect.poll(() => server.closed, { timeout: 10_000 }).toBe(1); // the request was aborted, not left open
  });

  it('Anthropic pings after message_start are not content: cut at firstContentTimeoutMs, retried within the retry budget, the prompt usage of each cut request emitted (charged)', async () => {
    const server = await stall(anthropicPings(42));
    const { retry, retries } = instantRetry(3);
    const deadline = 300;
    const provider = new AnthropicProvider({
      apiKey: 'sk-test',
      baseUrl: server.url,
      firstContentTimeoutMs: deadline,
      firstByteTimeoutMs: 60_000,
      retry,
    });
    const t0 = performance.now();
    const events = await drain(provider.stream(ask));
    const elapsed = performance.now() - t0;
    const error = errorOf(events);
    expect(error.code).toBe('PROVIDER_TIMEOUT');
    expect(error.details).toMatchObject({ phase: 'first_content', timeoutMs: deadline, attempts: 3 });
    expect(server.requests).toBe(3);
    expect(retries.map((r) => [r.attempt, r.code])).toEqual([
      [1, 'PROVIDER_TIMEOUT'],
      [2, 'PROVIDER_TIMEOUT'],
    ]);
    expect(ofType(events, 'usage').map((u) => u.usage.inputTokens)).toEqual([42, 42, 42]);
    expect(elapsed).toBeGreaterThanOrEqual(3 * deadline - 3);
    console.info(`first_content x3: deadline ${deadline} ms each, all three cut after ${Math.round(elapsed)} ms`);
  });
});

describe('total deadline', () => {
  it('a stream that trickles content forever is cut at totalTimeoutMs (phase total); the text already shown is not repeated by a retry, the usage reported before the cut is charged', async () => {
    const server = await stall(anthropicTrickle(42));
    const { retry, retries } = instantRetry(3);
    const deadline = 500;
    const provider = new AnthropicProvider({
      apiKey: 'sk-test',
      baseUrl: server.url,
      firstContentTimeoutMs: 60_000,
      totalTimeoutMs: deadline,
      retry,
    });
    const t0 = performance.now();
    const events = await drain(provider.stream(ask));
    const elapsed = performance.now() - t0;
    const error = errorOf(events);
    expect(error.code).toBe('PROVIDER_TIMEOUT');
    expect(error.details).toMatchObject({ phase: 'total', timeoutMs: deadline });
    expect(textOf(events)).toMatch(/^(la )+$/);
    expect(server.requests, 'after output a retry would show the text twice').toBe(1);
    expect(retries).toEqual([]);
    expect(ofType(events, 'usage').map((u) => u.usage)).toEqual([
      { inputTokens: 42, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    ]);
    expect(elapsed).toBeGreaterThanOrEqual(deadline - 1);
    expect(elapsed).toBeLessThan(deadline + 30_000);
    console.info(
      `total: deadline ${deadline} ms, cut after ${Math.round(elapsed)} ms, ${textOf(events).length} chars shown`,
    );
  });

  it('a total deadline that falls before any content (pings only) is retried per budget, then fails with attempts = maxAttempts', async () => {
    const server = await stall(anthropicPings(7));
    const { retry, retries } = instantRetry(2);
    const provider = new AnthropicProvider({
      apiKey: 'sk-test',
      baseUrl: server.url,
      firstContentTimeoutMs: 60_000,
      totalTimeoutMs: 250,
      retry,
    });
    const events = await drain(provider.stream(ask));
    const error = errorOf(events);
    expect(error.code).toBe('PROVIDER_TIMEOUT');
    expect(error.details).toMatchObject({ phase: 'total', timeoutMs: 250, attempts: 2 });
    expect(server.requests).toBe(2);
    expect(retries.map((r) => r.code)).toEqual(['PROVIDER_TIMEOUT']);
    expect(ofType(events, 'usage').map((u) => u.usage.inputTokens)).toEqual([7, 7]);
  });

  it('a model turn cut by a deadline keeps the usage of the cut call (what spend-step charges for a failed call) and reports PROVIDER_TIMEOUT', async () => {
    const server = await stall(anthropicTrickle(1200));
    const provider = new AnthropicProvider({
      apiKey: 'sk-test',
      baseUrl: server.url,
      totalTimeoutMs: 300,
      retry: { maxAttempts: 1 },
    });
    const shown: string[] = [];
    const turn = await runModelTurn(
      { provider, model: 'claude-sonnet-4-5', maxTokens: 100, systemPrompt: undefined, maxInputBytes: 1 << 20 },
      { messages: ask.messages, tools: [], callPrefix: 'call_1', signal: new AbortController().signal },
      { text: (t) => void shown.push(t), warning: () => undefined },
    );
    expect(turn.error?.code).toBe('PROVIDER_TIMEOUT');
    expect(turn.stopReason).toBe('error');
    expect(turn.usage).toMatchObject({ inputTokens: 1200, outputTokens: 1 });
    expect(turn.costUsd).toBeGreaterThan(0);
  });

  it('the caller aborting still ends the stream as aborted, not as a timeout', async () => {
    const server = await stall(anthropicPings(1));
    const provider = new AnthropicProvider({ apiKey: 'sk-test', baseUrl: server.url, firstContentTimeoutMs: 60_000 });
    const controller = new AbortController();
    const drained = drain(provider.stream(ask, controller.signal));
    await vi.waitFor(() => expect(server.ticks).toBeGreaterThan(2), { timeout: 10_000 });
    controller.abort();
    const events = await drained;
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'aborted' });
    expect(ofType(events, 'error')).toEqual([]);
  });
});

describe('deadline options', () => {
  for (const name of ['firstContentTimeoutMs', 'totalTimeoutMs'] as const)
    for (const bad of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, '300'] as const)
      it(`${name}: ${String(bad)} is refused with OPTIONS_INVALID naming the option`, () => {
        const attempt = () => createModelProvider({ provider: 'anthropic', apiKey: 'k', [name]: bad } as never);
        expect(attempt).toThrow(MediaAgentError);
        try {
          attempt();
        } catch (e) {
          expect((e as MediaAgentError).code).toBe('OPTIONS_INVALID');
          expect((e as MediaAgentError).details.option).toBe(`config.${name}`);
          expect((e as Error).message).toContain(name);
        }
      });

  it('positive deadlines are accepted on both HTTP providers', () => {
    expect(() =>
      createModelProvider({ provider: 'openai-compatible', firstContentTimeoutMs: 1, totalTimeoutMs: 2 }),
    ).not.toThrow();
    expect(
      () => new AnthropicProvider({ apiKey: 'k', firstContentTimeoutMs: 300_000, totalTimeoutMs: 900_000 }),
    ).not.toThrow();
  });
});
