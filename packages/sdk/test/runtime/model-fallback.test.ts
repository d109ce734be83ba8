// Fallback chains through the real runtime: an Anthropic primary and an OpenAI-compatible fallback, each a local
// HTTP server replaying its real wire format, over undici, with SQLite storage in a temp directory and the host's
// manual clock (the cool-down moves with it, never with the wall clock).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  createAgentHost,
  ManualClock,
  type AgentHost,
  type RunEvent,
  type RunOptions,
} from '../../src/index';
import type { TracingOptions } from '../../src/loop';
import { AnthropicProvider, costOf, priceFor } from '../../src/models';
import { memoryTracing } from '../tracing/span-harness';
import { SqliteStorage } from '../../src/sqlite';
import { transcriptEvents, WireReplayServer, type RecordedRequest, type ReplayResponse } from '../../src/testing';
import { fixture } from '../models/helpers';
import { anthropicTurn } from '../models/thinking-wire';
import { noteWrite, notesRead } from './fixtures/step-crash-scripts';
import { closedAfterEach, makeWorld, runEvents, waitForStatus } from './harness';
import { openaiReply } from './wire-host';

const { hosts, servers, dirs } = closedAfterEach<WireReplayServer>();

type Responder = (req: RecordedRequest, index: number) => ReplayResponse;
const PRIMARY_MODEL = 'claude-sonnet-4-5';
const anthropicError = (status: number, type: string, message: string): ReplayResponse => ({
  status,
  body: JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_011Fallback' }),
});
/** What the Messages API answers when it is overloaded (HTTP 529, `overloaded_error`). */
const overloaded = () => anthropicError(529, 'overloaded_error', 'Overloaded');
const anthropicText = (text: string): ReplayResponse => ({
  events: anthropicTurn([{ type: 'text', text }], 'end_turn'),
});

async function serve(responder: Responder): Promise<WireReplayServer> {
  const s = await WireReplayServer.start(responder);
  servers.push(s);
  return s;
}

/** A host whose model is an Anthropic primary with an OpenAI-compatible fallback (a configuration, keys apart). */
async function chainHost(
  primary: Responder,
  fallback: Responder,
  options: {
    cooldownMs?: number;
    thinking?: 'low';
    runs?: RunOptions;
    tracing?: TracingOptions;
    /** The primary's total deadline per request, in ms (none when undefined). */
    primaryTotalTimeoutMs?: number;
  } = {},
) {
  const primaryServer = await serve(primary);
  const fallbackServer = await serve(fallback);
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-fallback-'));
  dirs.push(dir);
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const world = makeWorld(clock);
  const storage = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
  const effects = join(dir, 'effects.txt');
  writeFileSync(effects, '');
  const host = createAgentHost({
    storage,
    clock,
    logger: new ConsoleLogger('silent'),
    model: {
      provider: new AnthropicProvider({
        apiKey: 'sk-ant-primary-0123456789',
        baseUrl: primaryServer.url,
        retry: { maxAttempts: 1 },
        ...(options.primaryTotalTimeoutMs !== undefined ? { totalTimeoutMs: options.primaryTotalTimeoutMs } : {}),
      }),
      model: PRIMARY_MODEL,
      ...(options.thinking ? { thinking: options.thinking, maxTokens: 4096 } : {}),
      fallbacks: [
        {
          provider: {
            provider: 'openai-compatible',
            baseUrl: fallbackServer.url,
            apiKey: 'sk-fallback-0123456789',
            retry: { maxAttempts: 1 },
          },
          model: 'gpt-4.1-mini',
          thinking: 'off',
        },
      ],
      ...(options.cooldownMs !== undefined ? { fallbackCooldownMs: options.cooldownMs } : {}),
    },
    goalFacts: world.facts,
    runs: { pollMs: 5, leaseMs: 60_000, refusedTurnPauseMs: 1, ...options.runs },
    ...(options.tracing ? { tracing: options.tracing } : {}),
  });
  for (const c of world.capabilities) host.capabilities.register(c);
  host.capabilities.register(noteWrite(effects));
  host.capabilities.register(notesRead(effects));
  await host.start();
  hosts.push(host);
  return { host, clock, storage, effects, primaryServer, fallbackServer };
}

const fallbacksOf = (events: RunEvent[]) => events.flatMap((e) => (e.type === 'model_fallback' ? [e.data] : []));
const run = (host: AgentHost, goal = 'Is Dune in the library?') =>
  host.startRun({ goal, mode: 'plan_only', actor: 'user:admin' });
const settled = (host: AgentHost, id: string) =>
  waitForStatus(host, id, ['succeeded', 'failed', 'cancelled', 'budget_exceeded'], { timeoutMs: 20_000 });
describe('fallback chains through the runtime', () => {
  it('vercel/ai#2636: primary 529 (overloaded_error) → the OpenAI-compatible fallback answers; one model_fallback event; usage per provider', async () => {
    const h = await chainHost(overloaded, () =>
      openaiReply({ text: 'Dune is in the library.', finish: 'stop', promptTokens: 120 }),
    );
    const r = await run(h.host);
    const done = await settled(h.host, r.id);
    expect(done.error).toBeNull();
    expect(done.status).toBe('succeeded');
    expect(done.finalText).toBe('Dune is in the library.');
    expect(h.primaryServer.requests).toHaveLength(1);
    expect(h.fallbackServer.requests).toHaveLength(1);
    const moves = fallbacksOf(await runEvents(h.host, r.id));
    expect(moves).toHaveLength(1);
    const to = moves[0]!.to.provider;
    expect(to.startsWith('openai-compatible')).toBe(true);
    expect(moves[0]).toMatchObject({
      from: { provider: 'anthropic', model: PRIMARY_MODEL },
      to: { model: 'gpt-4.1-mini' },
      code: 'PROVIDER_UNAVAILABLE',
    });
    expect(moves[0]!.reason).toContain('529');
    // The key of the fallback in the usage map is the provider id the event named.
    const usage = done.usage;
    expect(usage.byModel).toEqual({
      [`anthropic/${PRIMARY_MODEL}`]: { inputTokens: 0, outputTokens: 0, costUsd: 0, modelCalls: 1 },
      [`${to}/gpt-4.1-mini`]: {
        inputTokens: 120,
        outputTokens: 20,
        costUsd: costOf(
          { inputTokens: 120, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
          priceFor('gpt-4.1-mini')!,
        ),
        modelCalls: 1,
      },
    });
    expect(usage).toMatchObject({ modelCalls: 2, inputTokens: 120, outputTokens: 20 });
    expect(usage.costUsd).toBeCloseTo(usage.byModel![`${to}/gpt-4.1-mini`]!.costUsd, 12);
  });

  it("earendil-works/pi#8285 and ccusage/ccusage#1552: a cut attempt is counted once against its own provider, the answer priced at the fallback's own model", async () => {
    // The primary sends message_start (its prompt usage), then an in-stream overloaded_error before any output:
    // its own retries are used up (one attempt), the turn goes to the fallback; the cut request's usage is charged.
    const recorded = transcriptEvents(fixture('own-anthropic-overloaded.chunks.txt'), 'anthropic');
    const cut: ReplayResponse = {
      events: recorded.filter((e) => e.event === 'message_start' || e.event === 'error'),
    };
    const h = await chainHost(
      () => cut,
      () => openaiReply({ text: 'Dune is in the library.', finish: 'stop', promptTokens: 50 }),
    );
    const r = await run(h.host);
    const done = await settled(h.host, r.id);
    expect(done.status).toBe('succeeded');
    expect(done.finalText).toBe('Dune is in the library.');
    const moves = fallbacksOf(await runEvents(h.host, r.id));
    expect(moves.map((m) => m.code)).toEqual(['PROVIDER_UNAVAILABLE']);
    const byModel = done.usage.byModel!;
    const primary = byModel[`anthropic/${PRIMARY_MODEL}`]!;
    const fallback = byModel[`${moves[0]!.to.provider}/gpt-4.1-mini`]!;
    expect(Object.keys(byModel)).toHaveLength(2);
    // The cut attempt is a call of the primary: the usage of its message_start, at the primary's price.
    expect(primary).toMatchObject({ inputTokens: 100, outputTokens: 1, modelCalls: 1 });
    const sonnet = priceFor(PRIMARY_MODEL)!;
    expect(primary.costUsd).toBeCloseTo(
      costOf({ inputTokens: 100, outputTokens: 1, cacheReadTokens: 300, cacheWriteTokens: 20 }, sonnet),
      12,
    );
    // The answer is priced with the model that made it, not the requested (primary) model.
    expect(fallback).toMatchObject({ inputTokens: 50, outputTokens: 20, modelCalls: 1 });
    const mini = costOf(
      { inputTokens: 50, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
      priceFor('gpt-4.1-mini')!,
    );
    expect(fallback.costUsd).toBeCloseTo(mini, 12);
    expect(fallback.costUsd).not.toBeCloseTo(
      costOf({ inputTokens: 50, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 }, sonnet),
      12,
    );
    // Each attempt once: the run's totals are the sum of the per-model figures.
    expect(done.usage.inputTokens).toBe(primary.inputTokens + fallback.inputTokens);
    expect(done.usage.outputTokens).toBe(primary.outputTokens + fallback.outputTokens);
    expect(done.usage.costUsd).toBeCloseTo(primary.costUsd + fallback.costUsd, 12);
    expect(done.usage.modelCalls).toBe(2);
  });

  it("mastra-ai/mastra#9247 and TokenRhythm/opensquilla#1016: text already streamed, then an in-stream overloaded_error → no fallback (the user would see two answers); the run fails with the typed error; the cut attempt's message_start usage is charged to the primary", async () => {
    const h = await chainHost(
      () => ({ events: transcriptEvents(fixture('own-anthropic-overloaded.chunks.txt'), 'anthropic') }),
      () => openaiReply({ text: 'Dune is in the library.', finish: 'stop', promptTokens: 50 }),
    );
    const r = await run(h.host);
    const done = await settled(h.host, r.id);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('PROVIDER_UNAVAILABLE');
    expect(h.primaryServer.requests).toHaveLength(1);
    expect(h.fallbackServer.requests).toHaveLength(0);
    const events = await runEvents(h.host, r.id);
    expect(fallbacksOf(events)).toEqual([]);
    // What the person saw is the primary's text only, never followed by a second answer.
    const shown = events.flatMap((e) => (e.type === 'text_delta' ? [(e.data as { text: string }).text] : []));
    expect(shown.join('')).toBe('Let me');
    const sonnet = priceFor(PRIMARY_MODEL)!;
    expect(done.usage.byModel).toEqual({
      [`anthropic/${PRIMARY_MODEL}`]: {
        inputTokens: 100,
        outputTokens: 1,
        costUsd: costOf({ inputTokens: 100, outputTokens: 1, cacheReadTokens: 300, cacheWriteTokens: 20 }, sonnet),
        modelCalls: 1,
      },
    });
  });

  it('text already streamed, then the primary goes silent past its totalTimeoutMs → PROVIDER_TIMEOUT, no fallback; the prompt usage charged to the primary', async () => {
    const h = await chainHost(
      () => ({ events: anthropicTurn([{ type: 'text', text: 'Half an answer' }], 'end_turn'), stallAfterEvents: 3 }),
      () => openaiReply({ text: 'Dune is in the library.', finish: 'stop', promptTokens: 50 }),
      // The text is sent at once and the stall is endless: the deadline only has to fall after the text was read
      // (300 ms did not, once, on a loaded machine: the cut came before any output and the turn fell back).
      { primaryTotalTimeoutMs: 3000 },
    );
    const r = await run(h.host);
    const done = await settled(h.host, r.id);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('PROVIDER_TIMEOUT');
    expect(h.fallbackServer.requests).toHaveLength(0);
    const events = await runEvents(h.host, r.id);
    expect(fallbacksOf(events)).toEqual([]);
    const shown = events.flatMap((e) => (e.type === 'text_delta' ? [(e.data as { text: string }).text] : [])).join('');
    expect(shown.length).toBeGreaterThan(0);
    expect('Half an answer'.startsWith(shown)).toBe(true);
    expect(done.usage.byModel?.[`anthropic/${PRIMARY_MODEL}`]).toMatchObject({ inputTokens: 40, modelCalls: 1 });
    expect(Object.keys(done.usage.byModel ?? {})).toEqual([`anthropic/${PRIMARY_MODEL}`]);
  });

  it("the person's spending budget is charged once per attempt that used something: the failed 529 attempt nothing, the answer its own tokens and price", async () => {
    const h = await chainHost(
      overloaded,
      () => openaiReply({ text: 'Dune is in the library.', finish: 'stop', promptTokens: 120 }),
      {
        runs: { spending: { people: { 'user:admin': { day: { tokens: 1_000_000, costUsd: 10, modelCalls: 100 } } } } },
      },
    );
    const r = await run(h.host);
    const done = await settled(h.host, r.id);
    expect(done.status).toBe('succeeded');
    const used = (await h.host.budgets.usage('user:admin')).used.day;
    const answer = done.usage.byModel![`${fallbacksOf(await runEvents(h.host, r.id))[0]!.to.provider}/gpt-4.1-mini`]!;
    expect(used.modelCalls).toBe(1); // the refused attempt's reservation was released
    expect(used.tokens).toBe(answer.inputTokens + answer.outputTokens);
    expect(used.costUsd).toBeCloseTo(answer.costUsd, 9);
    expect(done.usage.modelCalls).toBe(2); // the run still counts both calls (its maxModelCalls budget)
  });

  it('one model-call span per attempt, each naming the provider and model that made it; the refused one in error', async () => {
    const { exporter, options: tracing } = memoryTracing();
    const h = await chainHost(
      overloaded,
      () => openaiReply({ text: 'Dune is in the library.', finish: 'stop', promptTokens: 120 }),
      {
        tracing,
      },
    );
    const r = await run(h.host);
    expect((await settled(h.host, r.id)).status).toBe('succeeded');
    const chats = exporter.getFinishedSpans().filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats.map((s) => [s.attributes['gen_ai.provider.name'], s.attributes['gen_ai.request.model']])).toEqual([
      ['anthropic', PRIMARY_MODEL],
      [expect.not.stringMatching(/^anthropic$/), 'gpt-4.1-mini'],
    ]);
    expect(chats[0]!.attributes['server.port']).toBe(Number(new URL(h.primaryServer.url).port));
    expect(chats[1]!.attributes['server.port']).toBe(Number(new URL(h.fallbackServer.url).port));
    expect(chats[0]!.status.code).toBe(2); // ERROR
    expect(chats[1]!.status.code).not.toBe(2);
    expect(chats[1]!.attributes['gen_ai.usage.input_tokens']).toBe(120);
  });

  it.each([
    [
      '429 rate_limit_error',
      'PROVIDER_RATE_LIMITED',
      () => anthropicError(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'),
    ],
    [
      '402 out of credit',
      'PROVIDER_OUT_OF_CREDIT',
      () => anthropicError(402, 'billing_error', "There's an issue with your billing or payment information"),
    ],
    ['500 api_error', 'PROVIDER_UNAVAILABLE', () => anthropicError(500, 'api_error', 'Internal server error')],
  ])('primary %s → %s → the fallback answers', async (_name, code, answer) => {
    const h = await chainHost(answer, () =>
      openaiReply({ text: 'Dune is in the library.', finish: 'stop', promptTokens: 10 }),
    );
    const r = await run(h.host);
    const done = await settled(h.host, r.id);
    expect(done.status).toBe('succeeded');
    expect(fallbacksOf(await runEvents(h.host, r.id)).map((m) => m.code)).toEqual([code]);
    expect(h.primaryServer.requests).toHaveLength(1);
  });

  it('primary unreachable (its port closed) → PROVIDER_UNREACHABLE → the fallback answers', async () => {
    const h = await chainHost(overloaded, () =>
      openaiReply({ text: 'Dune is in the library.', finish: 'stop', promptTokens: 10 }),
    );
    await h.primaryServer.close();
    const r = await run(h.host);
    const done = await settled(h.host, r.id);
    expect(done.status).toBe('succeeded');
    expect(fallbacksOf(await runEvents(h.host, r.id)).map((m) => m.code)).toEqual(['PROVIDER_UNREACHABLE']);
    expect(h.fallbackServer.requests).toHaveLength(1);
  });

  it('microsoft/AICentral#134: primary 400 (invalid_request_error) → no fallback; the run fails with the typed error', async () => {
    const h = await chainHost(
      () => anthropicError(400, 'invalid_request_error', 'messages.0.content: Input should be a valid list'),
      () => openaiReply({ text: 'never', finish: 'stop' }),
    );
    const r = await run(h.host);
    const done = await settled(h.host, r.id);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('PROVIDER_HTTP');
    expect(h.primaryServer.requests).toHaveLength(1);
    expect(h.fallbackServer.requests).toHaveLength(0);
    expect(fallbacksOf(await runEvents(h.host, r.id))).toEqual([]);
  });

  it('primary 401 → PROVIDER_AUTH (fix the key), no fallback', async () => {
    const h = await chainHost(
      () => anthropicError(401, 'authentication_error', 'invalid x-api-key'),
      () => openaiReply({ text: 'never', finish: 'stop' }),
    );
    const r = await run(h.host);
    const done = await settled(h.host, r.id);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('PROVIDER_AUTH');
    expect(h.fallbackServer.requests).toHaveLength(0);
    expect(fallbacksOf(await runEvents(h.host, r.id))).toEqual([]);
  });

  it('every entry fails: the run fails with the last error (typed), after one model_fallback event', async () => {
    const h = await chainHost(overloaded, () => ({
      status: 429,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        error: { message: 'Rate limit reached for gpt-4.1-mini', type: 'requests', code: 'rate_limit_exceeded' },
      }),
    }));
    const r = await run(h.host);
    const done = await settled(h.host, r.id);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('PROVIDER_RATE_LIMITED');
    expect(fallbacksOf(await runEvents(h.host, r.id))).toHaveLength(1);
    expect(done.usage.modelCalls).toBe(2);
  });

  it('sticky within a run, host-wide cool-down, back to the primary once the cool-down has passed on the host clock', async () => {
    const h = await chainHost(
      (_req, index) => (index === 0 ? overloaded() : anthropicText('The primary answers again.')),
      (_req, index) =>
        index === 0
          ? openaiReply({
              calls: [{ name: 'inventory_query', args: '{"title":"Dune"}' }],
              finish: 'tool_calls',
              promptTokens: 30,
            })
          : openaiReply({ text: 'Dune is in the library.', finish: 'stop', promptTokens: 60 }),
      { cooldownMs: 30_000 },
    );
    // Run 1: the first turn falls back; its second turn goes straight to the fallback.
    const first = await run(h.host);
    const one = await settled(h.host, first.id);
    expect(one.status).toBe('succeeded');
    expect(one.usage.modelCalls).toBe(3);
    expect(h.primaryServer.requests).toHaveLength(1);
    expect(h.fallbackServer.requests).toHaveLength(2);
    expect(fallbacksOf(await runEvents(h.host, first.id))).toHaveLength(1);

    // Run 2, 29.999 s later: the primary is still cooling down host-wide; the fallback answers, no new event.
    h.clock.advance(29_999);
    const second = await run(h.host);
    const two = await settled(h.host, second.id);
    expect(two.status).toBe('succeeded');
    expect(h.primaryServer.requests).toHaveLength(1);
    expect(h.fallbackServer.requests).toHaveLength(3);
    expect(fallbacksOf(await runEvents(h.host, second.id))).toEqual([]);
    expect(Object.keys(two.usage.byModel ?? {})).toEqual([expect.stringMatching(/\/gpt-4\.1-mini$/)]);

    // Run 3, at the end of the cool-down: the primary again.
    h.clock.advance(1);
    const third = await run(h.host);
    const three = await settled(h.host, third.id);
    expect(three.status).toBe('succeeded');
    expect(three.finalText).toBe('The primary answers again.');
    expect(h.primaryServer.requests).toHaveLength(2);
    expect(h.fallbackServer.requests).toHaveLength(3);
    expect(Object.keys(three.usage.byModel ?? {})).toEqual([`anthropic/${PRIMARY_MODEL}`]);
  });
});

// ---- the end-to-end run: Anthropic with thinking and an effectful call, then a strict OpenAI-compatible server ----

/** The top-level fields of the Chat Completions API; a strict server refuses any other with a 400. */
const CHAT_FIELDS = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'reasoning_effort',
  'stop',
  'seed',
  'user',
]);
const MESSAGE_FIELDS: Record<string, Set<string>> = {
  system: new Set(['role', 'content', 'name']),
  user: new Set(['role', 'content', 'name']),
  assistant: new Set(['role', 'content', 'name', 'tool_calls', 'refusal']),
  tool: new Set(['role', 'content', 'tool_call_id']),
};
const refuse = (message: string): ReplayResponse => ({
  status: 400,
  body: JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code: null } }),
});

/**
 * What a strict OpenAI-compatible server (vLLM, llama.cpp with strict validation) answers: a 400 for a field the
 * API does not have, a message field of another family (thinking, signature), a tool message whose id no earlier
 * assistant call has, or an assistant call with no tool message after it; undefined when the request is valid.
 */
function strictRefusal(json: unknown): ReplayResponse | undefined {
  const body = json as { messages?: Array<Record<string, unknown>> } & Record<string, unknown>;
  for (const key of Object.keys(body))
    if (!CHAT_FIELDS.has(key)) return refuse(`Unrecognized request argument supplied: ${key}`);
  const open = new Set<string>();
  for (const [i, m] of (body.messages ?? []).entries()) {
    const allowed = MESSAGE_FIELDS[String(m.role)];
    if (!allowed) return refuse(`messages.${i}.role: unknown role ${String(m.role)}`);
    for (const key of Object.keys(m))
      if (!allowed.has(key)) return refuse(`messages.${i}.${key}: Extra inputs are not permitted`);
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      if (open.size > 0) return refuse(`messages.${i}: tool_calls ${[...open].join(', ')} have no tool message`);
      for (const c of m.tool_calls as Array<{
        id?: unknown;
        type?: unknown;
        function?: { name?: unknown; arguments?: unknown };
      }>) {
        if (typeof c.id !== 'string' || c.type !== 'function' || typeof c.function?.arguments !== 'string')
          return refuse(`messages.${i}.tool_calls: invalid tool call ${JSON.stringify(c)}`);
        open.add(c.id);
      }
    } else if (m.role === 'tool') {
      if (!open.delete(String(m.tool_call_id)))
        return refuse(`messages.${i}: tool message ${String(m.tool_call_id)} answers no preceding tool call`);
    } else if (open.size > 0) return refuse(`messages.${i}: tool_calls ${[...open].join(', ')} have no tool message`);
  }
  if (open.size > 0) return refuse(`tool_calls ${[...open].join(', ')} have no tool message`);
  return undefined;
}

describe('a conversation continued on another provider family', () => {
  it('Anthropic answers two turns with thinking and an effectful call, then 529s; the strict OpenAI-compatible fallback continues: no 400, the effect ran once', async () => {
    const refusals: string[] = [];
    const write = [
      {
        type: 'thinking' as const,
        thinking: 'The user wants a note written first.',
        signature: 'EqQBCkYIBxgCKkBsig-one',
      },
      { type: 'tool_use' as const, id: 'toolu_01Write', name: 'note_write', input: { n: 1 } },
    ];
    const read = [
      { type: 'thinking' as const, thinking: 'Now read the notes back to check.', signature: 'EqQBCkYIBxgCKkBsig-two' },
      { type: 'tool_use' as const, id: 'toolu_01Read', name: 'notes_read', input: {} },
    ];
    const h = await chainHost(
      (_req, index) =>
        index === 0 ? { events: anthropicTurn(write) } : index === 1 ? { events: anthropicTurn(read) } : overloaded(),
      (req) => {
        const refused = strictRefusal(req.json);
        if (refused) {
          refusals.push(refused.body ?? '');
          return refused;
        }
        return openaiReply({ text: 'Note 1 is written and reads back.', finish: 'stop', promptTokens: 400 });
      },
      { thinking: 'low' },
    );
    await h.host.grants.create({ action: 'note.write', actor: 'user:admin' });
    const r = await h.host.startRun({
      goal: 'write a note and read the notes',
      mode: 'plan_only',
      actor: 'user:admin',
    });
    const done = await settled(h.host, r.id);
    expect(refusals).toEqual([]);
    expect(done.error).toBeNull();
    expect(done.status).toBe('succeeded');
    expect(done.finalText).toBe('Note 1 is written and reads back.');
    expect(h.primaryServer.requests).toHaveLength(3);
    expect(h.fallbackServer.requests).toHaveLength(1);
    expect(h.fallbackServer.requests.every((q) => strictRefusal(q.json) === undefined)).toBe(true);
    // The fallback got the whole conversation: both calls and their results, paired, in the OpenAI shape.
    const sent = h.fallbackServer.requests[0]!.json as { messages: Array<{ role: string; tool_calls?: unknown[] }> };
    expect(sent.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);
    // The effect ran exactly once: the file and the ledger of the SQLite file agree.
    expect(readFileSync(h.effects, 'utf8')).toBe('note 1\n');
    const claims = (await h.storage.ledger.listByRun(r.id)).filter((e) => e.capabilityId === 'note.write');
    expect(claims.map((e) => e.state)).toEqual(['succeeded']);
    const moves = fallbacksOf(await runEvents(h.host, r.id));
    expect(moves).toHaveLength(1);
    expect(moves[0]).toMatchObject({ from: { provider: 'anthropic' }, code: 'PROVIDER_UNAVAILABLE' });
  });
});
