// A server that refuses a request as too large for its context window, through the real runtime:
// HTTP providers over undici against a local server that counts tokens its own way (about two per
// four characters of JSON, denser than tiktoken, as a model with another tokenizer does), SQLite storage.
import { afterEach, describe, expect, it } from 'vitest';
import { COMPACTION_SUMMARY_PROMPT } from '../../src/runtime/context/compaction';
import type { RecordedRequest, ReplayResponse } from '../../src/testing';
import { runEvents, waitForStatus } from './harness';
import { anthropicReply, closeWireHosts, openaiReply, wireHost } from './wire-host';

afterEach(closeWireHosts);

/** The window, in the server's tokens and as configured. */
const WINDOW = 6000;
/** Model steps before the final reply: a long text and one read each. */
const STEPS = 6;

/** About 1500 characters of varied prose (tiktoken: roughly 300 tokens). */
function prose(step: number): string {
  const words = [
    'archive',
    'shelf',
    'film',
    'season',
    'episode',
    'director',
    'catalog',
    'release',
    'format',
    'subtitle',
  ];
  return Array.from({ length: 190 }, (_, i) => `${words[(i * 7 + step) % words.length]}${(i * 13 + step) % 97}`).join(
    ' ',
  );
}

type Body = { system?: unknown; messages: Array<{ role: string; content: unknown }>; tools?: unknown };
/** The server's own count of a request: two tokens per four characters of its messages, system and tools. */
const serverTokens = (body: Body) =>
  Math.ceil(JSON.stringify([body.system ?? null, body.messages, body.tools ?? null]).length / 2);
const isSummary = (body: Body) =>
  JSON.stringify([body.system ?? null, body.messages]).includes(COMPACTION_SUMMARY_PROMPT.slice(0, 40));

interface ServerLog {
  /** Main requests: the server's count, and whether it refused it. */
  main: Array<{ tokens: number; refused: boolean; summarized: boolean }>;
  summaries: number;
}

/**
 * A server that answers the summary calls with a short summary, and main calls with the next step
 * (per run, keyed by the goal), refusing those over its window with `overflow(tokens)` when `refuse`
 * says so.
 */
function server(options: {
  family: 'openai' | 'anthropic';
  refuse: (tokens: number) => boolean;
  overflow: (tokens: number) => ReplayResponse;
  usage?: boolean;
}) {
  const log: ServerLog = { main: [], summaries: 0 };
  const steps = new Map<string, number>();
  const respond = (req: RecordedRequest): ReplayResponse => {
    const body = req.json as Body;
    if (isSummary(body)) {
      log.summaries++;
      const text = 'The user asked for a survey; every shelf read so far succeeded.';
      return options.family === 'anthropic'
        ? anthropicReply({ text, stop: 'end_turn' })
        : openaiReply({ text, finish: 'stop' });
    }
    const tokens = serverTokens(body);
    const summarized = JSON.stringify(body.messages).includes('[context summary]');
    const refused = options.refuse(tokens);
    log.main.push({ tokens, refused, summarized });
    if (refused) return options.overflow(tokens);
    // The run: its goal is in the first user message, or pinned in the summary that replaced it.
    const text = JSON.stringify(body.messages);
    const goal = text.includes('survey the shelves again') ? 'again' : 'first';
    const step = steps.get(goal) ?? 0;
    steps.set(goal, step + 1);
    const usage = options.usage ? tokens : undefined;
    if (options.family === 'anthropic')
      return step < STEPS
        ? anthropicReply({
            text: prose(step),
            calls: [{ name: 'inventory_query', input: [`{"title":"Film ${step}"}`] }],
            stop: 'tool_use',
            ...(usage ? { inputTokens: usage } : {}),
          })
        : anthropicReply({ text: 'Surveyed every shelf.', stop: 'end_turn', ...(usage ? { inputTokens: usage } : {}) });
    return step < STEPS
      ? openaiReply({
          text: prose(step),
          calls: [{ name: 'inventory_query', args: `{"title":"Film ${step}"}` }],
          finish: 'tool_calls',
          ...(usage ? { promptTokens: usage } : {}),
        })
      : openaiReply({ text: 'Surveyed every shelf.', finish: 'stop', ...(usage ? { promptTokens: usage } : {}) });
  };
  return { log, respond };
}

const openaiOverflow = (tokens: number): ReplayResponse => ({
  status: 400,
  body: JSON.stringify({
    error: {
      message: `This model's maximum context length is ${WINDOW} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  }),
});

const overflowWarnings = async (host: Parameters<typeof runEvents>[0], runId: string) =>
  (await runEvents(host, runId)).filter(
    (e) => e.type === 'warning' && (e.data as { code: string }).code === 'PROVIDER_CONTEXT_OVERFLOW',
  );

describe('a context overflow reported by the server', () => {
  // anomalyco/opencode #50574: the estimate-based trigger never fired before the provider answered 400, and the
  // 400 was not treated as an overflow, so the documented "overflow → compact → retry" never ran and the session
  // was stuck. Same shape: elastic/kibana #290046 (compact when the model call hits the context length error).
  // Before: the run failed PROVIDER_CONTEXT_OVERFLOW at the first refusal. After: compacted, resent, completed;
  // and the next run on the same provider compacts before the server has to refuse anything.
  it('OpenAI-compatible 400 context_length_exceeded: the conversation is compacted, the call resent, the run completes; the next run does not overflow', async () => {
    const s = server({ family: 'openai', refuse: (t) => t > WINDOW, overflow: openaiOverflow });
    const { host, start } = await wireHost(s.respond, { runs: { contextWindowTokens: WINDOW } });
    await start();
    const run = await host.startRun({ goal: 'survey the shelves', mode: 'plan_only', actor: 'user:admin' });
    const ended = await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting'], { timeoutMs: 20_000 });
    expect(ended.error).toBeNull();
    expect(ended.status).toBe('succeeded');
    const refusedAt = s.log.main.findIndex((r) => r.refused);
    expect(refusedAt).toBeGreaterThan(0); // the runtime's own estimate did not see it coming
    const retry = s.log.main[refusedAt + 1]!;
    expect(retry).toMatchObject({ refused: false, summarized: true });
    expect(retry.tokens).toBeLessThan(s.log.main[refusedAt]!.tokens);
    expect(s.log.summaries).toBeGreaterThanOrEqual(1);
    const warnings = await overflowWarnings(host, run.id);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.data).toMatchObject({
      source: 'runtime',
      details: { promptTokens: s.log.main[refusedAt]!.tokens, limitTokens: WINDOW },
    });

    // The correction learned from the server's count holds for this provider: a second run compacts in time.
    const before = s.log.main.length;
    const second = await host.startRun({ goal: 'survey the shelves again', mode: 'plan_only', actor: 'user:admin' });
    const again = await waitForStatus(host, second.id, ['succeeded', 'failed', 'waiting'], { timeoutMs: 20_000 });
    expect(again.status).toBe('succeeded');
    expect(s.log.main.slice(before).some((r) => r.refused)).toBe(false);
    expect(s.log.main.slice(before).some((r) => r.summarized)).toBe(true);
    expect(await overflowWarnings(host, second.id)).toHaveLength(0);
  });

  // earendil-works/pi #9167 and HKUDS/nanobot #5402: the pre-flight estimate undercounts what the server
  // counts (tiktoken against another tokenizer), so compaction fires too late; the fix compares the provider's
  // reported prompt tokens with the estimate. Before: the server refused a request (the run failed).
  // After: the usage of successful calls corrects the estimate and no request is ever refused.
  it('the reported usage of successful calls corrects the estimate before any overflow', async () => {
    const s = server({ family: 'openai', refuse: (t) => t > WINDOW, overflow: openaiOverflow, usage: true });
    const { host, start } = await wireHost(s.respond, { runs: { contextWindowTokens: WINDOW } });
    await start();
    const run = await host.startRun({ goal: 'survey the shelves', mode: 'plan_only', actor: 'user:admin' });
    const ended = await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting'], { timeoutMs: 20_000 });
    expect(ended.error).toBeNull();
    expect(ended.status).toBe('succeeded');
    expect(s.log.main.filter((r) => r.refused)).toEqual([]);
    expect(s.log.main.some((r) => r.summarized)).toBe(true);
    expect(await overflowWarnings(host, run.id)).toHaveLength(0);
  });

  // anthropics/claude-code #820 ("prompt is too long: 210118 tokens > 200000 maximum", compaction failing too)
  // and aws/amazon-q-developer-cli #1363 (compaction retried after an overflow in an endless loop).
  // After: at most two compactions and resends, then the run fails PROVIDER_CONTEXT_OVERFLOW, visibly.
  it('Anthropic, a server that keeps refusing: at most two compactions, then the run fails PROVIDER_CONTEXT_OVERFLOW', async () => {
    let refusing = false; // once over its window, the server refuses every later request
    const s = server({
      family: 'anthropic',
      refuse: (t) => (refusing ||= t > WINDOW * 0.6),
      overflow: (t) => ({
        status: 400,
        body: JSON.stringify({
          type: 'error',
          error: { type: 'invalid_request_error', message: `prompt is too long: ${t} tokens > ${WINDOW} maximum` },
        }),
      }),
    });
    const { host, start } = await wireHost(s.respond, { provider: 'anthropic', runs: { contextWindowTokens: WINDOW } });
    await start();
    const run = await host.startRun({ goal: 'survey the shelves', mode: 'plan_only', actor: 'user:admin' });
    const ended = await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting'], { timeoutMs: 20_000 });
    expect(ended.status).toBe('failed');
    expect(ended.error).toMatchObject({ code: 'PROVIDER_CONTEXT_OVERFLOW' });
    const first = s.log.main.findIndex((r) => r.refused);
    const after = s.log.main.slice(first);
    expect(after.every((r) => r.refused)).toBe(true);

    // The refused call and at most two resends, each after a compaction to a smaller budget; the second
    // compaction may find that even the latest turn no longer fits that budget, and then nothing is resent.
    expect(after.length === 2 || after.length === 3).toBe(true);
    expect(after.slice(1).every((r) => r.summarized && r.tokens < after[0]!.tokens)).toBe(true);
    expect(s.log.summaries).toBeGreaterThanOrEqual(1);
    const warnings = await overflowWarnings(host, run.id);
    expect(warnings.map((w) => (w.data as { message: string }).message)).toEqual([
      expect.stringContaining('retry 1 of 2'),
      expect.stringContaining('retry 2 of 2'),
    ]);
    const scales = warnings.map((w) => (w.data as unknown as { details: { tokenScale: number } }).details.tokenScale);
    expect(scales[1]!).toBeGreaterThan(scales[0]!);
    expect(ended.error!.message).toMatch(
      after.length === 3 ? /prompt is too long.*after 2 compactions/ : /prompt is too long.*latest turn/,
    );
  });

  it('with compaction off, an overflow fails the run at once', async () => {
    const s = server({ family: 'openai', refuse: () => true, overflow: openaiOverflow });
    const { host, start } = await wireHost(s.respond, {
      runs: { contextWindowTokens: WINDOW, compactionThreshold: 0 },
    });
    await start();
    const run = await host.startRun({ goal: 'survey the shelves', mode: 'plan_only', actor: 'user:admin' });
    const ended = await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting'], { timeoutMs: 20_000 });
    expect(ended.error).toMatchObject({ code: 'PROVIDER_CONTEXT_OVERFLOW' });
    expect(s.log.main).toHaveLength(1);
  });
});
