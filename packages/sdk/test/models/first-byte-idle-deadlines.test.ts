// firstByteTimeoutMs and idleTimeoutMs fall at their figure, to the millisecond: they run on the request's own
// timer with the first-content and total deadlines (undici's headers/body timers are coarse: a 300 ms limit fell
// at ~1000 ms). The clock is driven by fake timers (setTimeout and performance only: the sockets are real), so the
// test proves "not at N - 1 ms, at N ms" without depending on the machine's speed.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MediaAgentError } from '../../src/core/errors';
import { nextDeadline, resolveDeadlines } from '../../src/models/call-deadlines';
import { OpenAICompatibleProvider } from '../../src/models/openai-compatible';
import type { ModelEvent } from '../../src/models/types';
import { ofType, textOf } from './helpers';

/** A server that holds each request (no headers) until the test answers it. */
class HoldingServer {
  readonly held: ServerResponse[] = [];
  readonly #server: Server;
  #waiters: Array<() => void> = [];
  constructor() {
    this.#server = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on('end', () => {
        this.held.push(res);
        for (const w of this.#waiters.splice(0)) w();
      });
    });
  }
  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return this;
  }
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }
  /** Resolves when `n` requests are held (an event, not a timer). */
  requests(n: number): Promise<void> {
    return this.held.length >= n
      ? Promise.resolve()
      : new Promise((r) => this.#waiters.push(() => void this.requests(n).then(r)));
  }
  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'qwen3:8b', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

const servers: HoldingServer[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function holding(): Promise<HoldingServer> {
  const s = await new HoldingServer().start();
  servers.push(s);
  return s;
}

const ask = { model: 'qwen3:8b', messages: [{ role: 'user' as const, content: 'hi' }] };

/**
 * Reads a stream into an array, telling when it ended; `next(n)` resolves when the stream has given `n` events
 * (an event of the stream, not a poll: a poll would move the fake clock).
 */
function collect(stream: AsyncIterable<ModelEvent>) {
  const events: ModelEvent[] = [];
  const state = { ended: false };
  let waiters: Array<() => void> = [];
  const wake = () => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };
  const done = (async () => {
    for await (const e of stream) {
      events.push(e);
      wake();
    }
    state.ended = true;
    wake();
  })();
  const next = async (n: number): Promise<void> => {
    while (events.length < n && !state.ended) await new Promise<void>((r) => waiters.push(r));
  };
  return { events, state, done, next };
}

function timeoutOf(events: ModelEvent[]): MediaAgentError {
  const error = ofType(events, 'error')[0]?.error as MediaAgentError | undefined;
  expect(error, 'the stream ends with an error event').toBeInstanceOf(MediaAgentError);
  return error!;
}

describe("first-byte and idle deadlines run on the request's own timer, to the millisecond", () => {
  it("firstByteTimeoutMs: 300 → no cut at 299 ms, PROVIDER_TIMEOUT phase first_byte at 300 ms (undici's timer fell at ~1000 ms)", async () => {
    const server = await holding();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const provider = new OpenAICompatibleProvider({
      baseUrl: server.url,
      dialect: 'ollama',
      firstByteTimeoutMs: 300,
      retry: { maxAttempts: 1 },
    });
    const run = collect(provider.stream(ask));
    await server.requests(1);
    await vi.advanceTimersByTimeAsync(299);
    expect(run.state.ended, 'not cut before its figure').toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await run.done;
    expect(timeoutOf(run.events)).toMatchObject({
      code: 'PROVIDER_TIMEOUT',
      details: { phase: 'first_byte', timeoutMs: 300, attempts: 1 },
    });
    expect(run.events.at(-1)).toEqual({ type: 'done', stopReason: 'error' });
  });

  it('idleTimeoutMs: 1100 after a text chunk → no cut at 1099 ms of silence, PROVIDER_TIMEOUT phase idle at 1100 ms', async () => {
    const server = await holding();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const provider = new OpenAICompatibleProvider({
      baseUrl: server.url,
      dialect: 'ollama',
      idleTimeoutMs: 1100,
      retry: { maxAttempts: 1 },
    });
    const run = collect(provider.stream(ask));
    await server.requests(1);
    const res = server.held[0]!;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ role: 'assistant', content: 'Half an ans' }));
    await run.next(1);
    expect(run.events[0]).toEqual({ type: 'text_delta', text: 'Half an ans' });
    await vi.advanceTimersByTimeAsync(1099);
    expect(run.state.ended, 'not cut before its figure').toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await run.done;
    expect(timeoutOf(run.events)).toMatchObject({
      code: 'PROVIDER_TIMEOUT',
      details: { phase: 'idle', timeoutMs: 1100 },
    });
    expect(textOf(run.events)).toBe('Half an ans');
  });

  it('each body chunk moves the idle deadline: 3 chunks 800 ms apart under a 1000 ms limit are not cut', async () => {
    const server = await holding();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const provider = new OpenAICompatibleProvider({
      baseUrl: server.url,
      dialect: 'ollama',
      idleTimeoutMs: 1000,
      retry: { maxAttempts: 1 },
    });
    const run = collect(provider.stream(ask));
    await server.requests(1);
    const res = server.held[0]!;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ role: 'assistant', content: 'a' }));
    await run.next(1);
    for (const text of ['b', 'c']) {
      await vi.advanceTimersByTimeAsync(800);
      res.write(chunk({ content: text }));
      await run.next(run.events.length + 1);
    }
    await vi.advanceTimersByTimeAsync(800);
    res.end(`${chunk({}, 'stop')}data: [DONE]\n\n`);
    await run.done;
    expect(ofType(run.events, 'error')).toEqual([]);
    expect(textOf(run.events)).toBe('abc');
  });
});

describe('the first-byte default is the first-content deadline (a server such as Ollama sends its headers with its first token)', () => {
  it('vercel/ai#4224 and openclaw/openclaw#69390: an Ollama that sends no headers until its first token, 200 s after the request (past the old 120 s first-byte default), is answered with the defaults', async () => {
    const server = await holding();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const provider = new OpenAICompatibleProvider({
      baseUrl: server.url,
      dialect: 'ollama',
      retry: { maxAttempts: 1 },
    });
    const run = collect(provider.stream(ask));
    await server.requests(1);
    await vi.advanceTimersByTimeAsync(200_000);
    expect(run.state.ended).toBe(false);
    const res = server.held[0]!;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`${chunk({ role: 'assistant', content: 'loaded' })}${chunk({}, 'stop')}data: [DONE]\n\n`);
    await run.done;
    expect(ofType(run.events, 'error')).toEqual([]);
    expect(textOf(run.events)).toBe('loaded');
  });

  it('earendil-works/pi#5089: raising firstContentTimeoutMs alone (600 s) raises the first-byte deadline with it; the cut names first_byte at 600 s', async () => {
    const server = await holding();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const provider = new OpenAICompatibleProvider({
      baseUrl: server.url,
      dialect: 'ollama',
      firstContentTimeoutMs: 600_000,
      retry: { maxAttempts: 1 },
    });
    const run = collect(provider.stream(ask));
    await server.requests(1);
    await vi.advanceTimersByTimeAsync(599_999);
    expect(run.state.ended).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await run.done;
    expect(timeoutOf(run.events)).toMatchObject({ details: { phase: 'first_byte', timeoutMs: 600_000 } });
  });

  it('the rule: defaults 300 s first byte (= first content), 120 s idle; the earliest deadline wins, a tie names the precise cause', () => {
    const d = resolveDeadlines({});
    expect(d).toEqual({ firstContentMs: 300_000, totalMs: 900_000, firstByteMs: 300_000, idleMs: 120_000 });
    expect(nextDeadline(d, 0, false)).toEqual({ phase: 'first_byte', at: 300_000, timeoutMs: 300_000 });
    expect(nextDeadline(d, 0, false, { answeredAt: 1000, lastChunkAt: 5000 })).toEqual({
      phase: 'idle',
      at: 125_000,
      timeoutMs: 120_000,
    });
    expect(nextDeadline({ ...d, totalMs: 50_000 }, 0, false, { answeredAt: 1000 }).phase).toBe('total');
    expect(resolveDeadlines({ firstContentTimeoutMs: 600_000 }).firstByteMs).toBe(600_000);
    expect(resolveDeadlines({ firstContentTimeoutMs: 600_000, firstByteTimeoutMs: 30_000 }).firstByteMs).toBe(30_000);
  });
});
