import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from 'typebox';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  ManualClock,
  RandomIdGenerator,
  SequentialIdGenerator,
  type AgentHost,
  type AgentOptions,
  type Logger,
  type ModelProvider,
  type RunMiddleware,
} from '../../src/index';
import type { LearningReviewReport } from '../../src/skills';
import { FileSkillStore } from '../../src/skills';
import type { ModelEvent, ModelRequest } from '../../src/models/types';
import type { ScriptContext } from '../../src/models';
import { MemoryStorage } from '../../src/storage';
import { SqliteStorage } from '../../src/sqlite';
import type { StorageAdapter } from '../../src/ports/storage-adapter';
import {
  learningReviewScript,
  listRunEvents,
  ScriptedProvider,
  type FakeScript,
  waitForRunStatus,
} from '../../src/testing';

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ma-learning-'));
  dirs.push(dir);
  return dir;
};

/** A host with personal skills (and memory when asked) over real files, and the reviews it reported. */
async function start(
  scripts: FakeScript[],
  options: {
    memory?: boolean;
    delayMs?: number;
    provider?: (scripted: ScriptedProvider) => ModelProvider;
    extra?: Partial<AgentOptions>;
    middleware?: RunMiddleware[];
    storage?: StorageAdapter;
    dir?: string;
  } = {},
) {
  const dir = options.dir ?? tmp();
  const scripted = new ScriptedProvider({ scripts, delayMs: options.delayMs ?? 0 });
  const provider = options.provider ? options.provider(scripted) : scripted;
  const reports: LearningReviewReport[] = [];
  const jobs: string[] = [];
  const storage = options.storage ?? new MemoryStorage();
  const host = createAgentHost({
    storage,
    clock: new ManualClock(Date.UTC(2026, 10, 30, 12)),
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider, model: 'scripted', thinking: 'low', temperature: 0.2 },
    skills: { dataDir: join(dir, 'learning') },
    ...(options.memory ? { memory: { dataDir: join(dir, 'memory') } } : {}),
    learning: { onReview: (r) => reports.push(r), ...options.extra?.learning },
    runs: {
      pollMs: 5,
      leaseMs: 60_000,
      refusedTurnPauseMs: 1,
      systemPrompt: 'You help with a media library.',
      middleware: options.middleware ?? [],
    },
    ...options.extra,
  });
  host.capabilities.register(
    defineCapability({
      id: 'download.submit',
      version: 1,
      title: 'Submit a download',
      description: 'Submits a download plan to the downloader.',
      kind: 'execute',
      replay: 'never',
      input: Type.Object({ planId: Type.String() }),
      output: Type.Object({ jobId: Type.String() }),
      target: (input) => ({ planType: 'download', planId: input.planId }),
      handler: async (input) => {
        jobs.push(input.planId);
        return { jobId: `job-${jobs.length}` };
      },
    }),
  );
  host.capabilities.register(
    defineCapability({
      id: 'library.search',
      version: 1,
      title: 'Search the library',
      description: 'Finds titles in the media library.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({ query: Type.String() }),
      output: Type.Object({ hits: Type.Array(Type.String()) }),
      handler: async (input) => ({ hits: [`${input.query} (2024)`] }),
    }),
  );
  await host.start();
  hosts.push(host);
  return { host, dir, scripted, reports, jobs, storage };
}

/**
 * Waits for the run to reach one of `statuses` and for its drive to end (its lease released). The status is
 * stored before the drive's end hooks run, and a due review starts in them: the status alone is not the end.
 */
async function driveEnded(host: AgentHost, runId: string, statuses: Parameters<typeof waitForRunStatus>[2]) {
  await waitForRunStatus(host, runId, statuses);
  while ((await host.getRun(runId)).run.leaseOwner !== null) await new Promise((r) => setTimeout(r, 5));
}

/** Sends `turns` more user turns to a conversation, each waited for, with its review (if any). */
async function talk(host: AgentHost, runId: string, from: number, to: number) {
  for (let turn = from; turn <= to; turn++) {
    await host.appendToInbox(runId, `hello ${turn}`, 'user:alice');
    await driveEnded(host, runId, ['succeeded']);
    await host.learning!.idle();
  }
}

/**
 * A provider whose review calls wait for `gate` and then ignore the abort (as a provider that does not
 * honour it would); the conversation's calls go through as they are.
 */
const reviewsWaitFor =
  (gate: Promise<void>) =>
  (scripted: ScriptedProvider): ModelProvider => ({
    id: scripted.id,
    async *stream(request, signal) {
      if (JSON.stringify(request.messages).includes('background review')) {
        await gate;
        yield* scripted.stream(request);
        return;
      }
      yield* scripted.stream(request, signal);
    },
  });

const reviewScript = (steps: FakeScript['steps']): FakeScript => ({
  match: 'background review',
  steps,
  finalText: 'Nothing more to save.',
});
const list = { toolCalls: [{ capability: 'skills_list', input: {} }] };
/** `n` tool-calling responses, each different (so the loop guard has nothing to stop). */
const looks = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    toolCalls: [{ capability: 'library.search', input: { query: `title ${i}` } }],
  }));

describe('the learning option', () => {
  const make = (learning: unknown) => () =>
    createAgentHost({
      model: { provider: new ScriptedProvider() },
      skills: { dataDir: tmp() },
      learning: learning as AgentOptions['learning'],
    });
  it.each([
    [{ cancelWaitMs: 2 ** 31 }, 'learning.cancelWaitMs'],
    [{ cancelWaitMs: 1e12 }, 'learning.cancelWaitMs'],
    [{ cancelWaitMs: Number.NaN }, 'learning.cancelWaitMs'],
    [{ cancelWaitMs: -1 }, 'learning.cancelWaitMs'],
    [{ maxModelCalls: 0 }, 'learning.maxModelCalls'],
    [{ maxModelCalls: 17 }, 'learning.maxModelCalls'],
    [{ review: 'false' }, 'learning.review'],
  ])('refuses %o with OPTIONS_INVALID naming %s', (learning, option) => {
    expect(make(learning)).toThrow(expect.objectContaining({ code: 'OPTIONS_INVALID', details: { option } }));
  });
  it('quotes a string of the wrong type in the message', () => {
    expect(make({ review: 'false' })).toThrow('must be a boolean; got "false"');
  });
  it('accepts the longest timer delay as cancelWaitMs', () => {
    expect(make({ cancelWaitMs: 2 ** 31 - 1 })().learning).toBeDefined();
  });
});

describe('background learning reviews of a host with skills and memory', () => {
  it('are on by default: the 10th delivered user turn starts a memory review, not the 9th', async () => {
    const { host, reports } = await start(
      [
        learningReviewScript({ memory: [{ action: 'add', target: 'user', content: 'Answers in English' }] }),
        { match: 'hello', finalText: 'hi' },
      ],
      { memory: true },
    );
    const run = await host.startRun({ goal: 'hello 1', mode: 'plan_only', actor: 'user:alice' });
    await driveEnded(host, run.id, ['succeeded']);
    await talk(host, run.id, 2, 9);
    expect(reports).toEqual([]);
    await talk(host, run.id, 10, 10);
    expect(reports.map((r) => [r.runId, r.userId, r.due, r.result.ended])).toEqual([
      [run.id, 'alice', { memory: true, skills: false }, 'done'],
    ]);
    expect(await host.memory!.currentEntries('user:alice', 'user')).toEqual(['Answers in English']);
  });

  // A plain question in execute mode used to end `failed` ("nothing the run touched is in the library"), and a
  // failed run never counted as a delivered reply: no review ever followed such a conversation.
  it('follows every delivered reply in execute mode too: plain questions succeed as answers and the 10th starts the review', async () => {
    const { host, reports } = await start(
      [
        learningReviewScript({ memory: [{ action: 'add', target: 'user', content: 'Answers in English' }] }),
        { match: 'hello', finalText: 'hi' },
      ],
      { memory: true },
    );
    const run = await host.startRun({ goal: 'hello 1', actor: 'user:alice' });
    expect(run.mode).toBe('execute');
    await driveEnded(host, run.id, ['succeeded']);
    expect((await host.getRun(run.id)).report).toMatchObject({ status: 'succeeded', request: ['answer'] });
    await talk(host, run.id, 2, 10);
    expect(reports.map((r) => [r.runId, r.due])).toEqual([[run.id, { memory: true, skills: false }]]);
  });

  it("a message sent while the run works is a user turn too; the runtime's own prompts are not", async () => {
    const { host, reports } = await start(
      [
        learningReviewScript({ memory: [{ action: 'add', target: 'user', content: 'Answers in English' }] }),
        {
          match: 'hello',
          steps: [0, 1].map(() => ({
            toolCalls: (ctx: ScriptContext) => [
              { capability: 'library.search', input: { query: `${ctx.lastUserMessage} ${ctx.turn}` } },
            ],
          })),
          finalText: 'hi',
        },
      ],
      { memory: true, delayMs: 2 },
    );
    const run = await host.startRun({ goal: 'hello 1', mode: 'plan_only', actor: 'user:alice' });
    // Queued while the first drive runs: applied before its next model call, in the same drive.
    await host.appendToInbox(run.id, 'hello 2', 'user:alice');
    await driveEnded(host, run.id, ['succeeded']);
    await host.learning!.idle();
    await talk(host, run.id, 3, 9);
    // (Two tool-calling responses per turn make skill reviews due meanwhile; only memory reviews count turns.)
    const memoryReviews = () => reports.filter((r) => r.due.memory);
    expect(memoryReviews()).toEqual([]);
    await talk(host, run.id, 10, 10);
    expect(memoryReviews()).toHaveLength(1);
  });

  it('counts the user turns a conversation had before reviews were on', async () => {
    const dir = tmp();
    const file = join(dir, 'agent.db');
    const scripts = [
      learningReviewScript({ memory: [{ action: 'add', target: 'user', content: 'Answers in English' }] }),
      { match: 'hello', finalText: 'hi' },
    ];
    const before = await start(scripts, {
      memory: true,
      dir,
      storage: new SqliteStorage({ path: file }),
      extra: { learning: { review: false } },
    });
    expect(before.host.learning).toBeUndefined();
    const run = await before.host.startRun({ goal: 'hello 1', mode: 'plan_only', actor: 'user:alice' });
    await driveEnded(before.host, run.id, ['succeeded']);
    for (let turn = 2; turn <= 9; turn++) {
      await before.host.appendToInbox(run.id, `hello ${turn}`, 'user:alice');
      await driveEnded(before.host, run.id, ['succeeded']);
    }
    await before.host.stop();
    hosts.splice(hosts.indexOf(before.host), 1);
    const after = await start(scripts, {
      memory: true,
      dir,
      storage: new SqliteStorage({ path: file }),
      extra: { ids: new RandomIdGenerator() },
    });
    await talk(after.host, run.id, 10, 10);
    expect(after.reports.map((r) => r.due)).toEqual([{ memory: true, skills: false }]);
  });

  it('does not repeat a launched review when the next turn is driven by another process', async () => {
    const dir = tmp();
    const file = join(dir, 'agent.db');
    const scripts = [
      learningReviewScript({ memory: [{ action: 'add', target: 'user', content: 'Answers in English' }] }),
      { match: 'hello', finalText: 'hi' },
    ];
    const first = await start(scripts, { memory: true, dir, storage: new SqliteStorage({ path: file }) });
    const run = await first.host.startRun({ goal: 'hello 1', mode: 'plan_only', actor: 'user:alice' });
    await driveEnded(first.host, run.id, ['succeeded']);
    await talk(first.host, run.id, 2, 10);
    expect(first.reports.map((r) => r.due)).toEqual([{ memory: true, skills: false }]);
    await first.host.stop();
    hosts.splice(hosts.indexOf(first.host), 1);
    // A restart, or another host on the same storage, drives the next turns.
    const second = await start(scripts, {
      memory: true,
      dir,
      storage: new SqliteStorage({ path: file }),
      extra: { ids: new RandomIdGenerator() },
    });
    await talk(second.host, run.id, 11, 19);
    expect(second.reports).toEqual([]);
    await talk(second.host, run.id, 20, 20);
    expect(second.reports.map((r) => r.due)).toEqual([{ memory: true, skills: false }]);
  });

  it('awaits an async learning.onReview and logs its rejection instead of leaving it unhandled', async () => {
    const warnings: unknown[] = [];
    const logger: Logger = {
      debug() {},
      info() {},
      warn: (message, fields) => void warnings.push([message, fields?.message]),
      error() {},
    };
    const told: string[] = [];
    const { host } = await start([learningReviewScript({}), { match: 'hello', finalText: 'hi' }], {
      extra: {
        logger,
        learning: {
          onReview: async (r) => {
            await new Promise((resolve) => setTimeout(resolve, 1));
            told.push(r.result.ended);
            throw new Error('log shipper down');
          },
        },
      },
      memory: true,
    });
    const run = await host.startRun({ goal: 'hello 1', mode: 'plan_only', actor: 'user:alice' });
    await driveEnded(host, run.id, ['succeeded']);
    await talk(host, run.id, 2, 10);
    // idle() waited for the report to be handled.
    expect(told).toEqual(['done']);
    expect(warnings).toContainEqual(['learning.onReview threw', 'log shipper down']);
  });

  it('a turn the loop guard paused is not a delivered reply: the due review waits for the next one', async () => {
    const same = { toolCalls: [{ capability: 'library.search', input: { query: 'same' } }] };
    const { host, reports } = await start(
      [
        learningReviewScript({ memory: [{ action: 'add', target: 'user', content: 'Answers in English' }] }),
        { match: 'loop', steps: Array.from({ length: 30 }, () => same), finalText: 'never' },
        { match: 'hello', finalText: 'hi' },
      ],
      { memory: true },
    );
    const run = await host.startRun({ goal: 'hello 1', mode: 'plan_only', actor: 'user:alice' });
    await driveEnded(host, run.id, ['succeeded']);
    await talk(host, run.id, 2, 9);
    await host.appendToInbox(run.id, 'loop 10', 'user:alice');
    // appendToInbox itself marks the run waiting: wait for the pause the loop guard announces.
    const pausedByGuard = async () =>
      (await listRunEvents(host, run.id)).some(
        (e) => e.type === 'warning' && (e.data as { code?: string }).code === 'LOOP_BLOCKED_REPEATEDLY',
      );
    while (!(await pausedByGuard())) await new Promise((r) => setTimeout(r, 5));
    // The drive has ended (onRunEnd ran) once it let go of the run.
    while ((await host.getRun(run.id)).run.leaseOwner !== null) await new Promise((r) => setTimeout(r, 5));
    await host.learning!.idle();
    expect(reports).toEqual([]);
    await talk(host, run.id, 11, 11);
    // Both are due by then: the paused turn made 10 tool-calling responses.
    expect(reports.map((r) => r.due)).toEqual([{ memory: true, skills: true }]);
  });

  it('tells learning.onReview of a review that outlived host.stop(), whose usage can no longer be stored', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const reports: LearningReviewReport[] = [];
    const { host } = await start(
      [learningReviewScript({ memory: [{ action: 'add', content: 'x' }] }), { match: 'hello', finalText: 'hi' }],
      {
        memory: true,
        extra: { learning: { cancelWaitMs: 0, onReview: (r) => reports.push(r) } },
        // A provider that does not honour the abort: the review outlives the stop.
        provider: reviewsWaitFor(gate),
      },
    );
    const run = await host.startRun({ goal: 'hello 1', mode: 'plan_only', actor: 'user:alice' });
    await driveEnded(host, run.id, ['succeeded']);
    await talk(host, run.id, 2, 9);
    await host.appendToInbox(run.id, 'hello 10', 'user:alice');
    await driveEnded(host, run.id, ['succeeded']);
    expect(host.learning!.running()).toEqual([run.id]);
    await host.stop();
    hosts.splice(hosts.indexOf(host), 1);
    // Abandoned by the stop (it no longer holds the slot), it still reports when it ends.
    expect(host.learning!.running()).toEqual([]);
    release();
    await vi.waitFor(() => expect(reports).toHaveLength(1), { timeout: 10_000 });
    expect(reports.map((r) => [r.result.ended, r.result.writes])).toEqual([['cancelled', 0]]);
  });

  it('a review whose provider ignores the abort and never answers gives up its slot after the wait; the next review runs', async () => {
    let hang = true;
    const { host, reports } = await start(
      [
        learningReviewScript({ memory: [{ action: 'add', target: 'user', content: 'Answers in English' }] }),
        { match: 'hello', finalText: 'hi' },
      ],
      {
        memory: true,
        extra: { learning: { cancelWaitMs: 50, onReview: (r) => reports.push(r) } },
        provider: (scripted) => ({
          id: scripted.id,
          async *stream(request, signal) {
            if (hang && JSON.stringify(request.messages).includes('background review')) {
              await new Promise(() => {}); // never answers, ignores the signal
            }
            yield* scripted.stream(request, signal);
          },
        }),
      },
    );
    const run = await host.startRun({ goal: 'hello 1', mode: 'plan_only', actor: 'user:alice' });
    await driveEnded(host, run.id, ['succeeded']);
    await talk(host, run.id, 2, 9);
    await host.appendToInbox(run.id, 'hello 10', 'user:alice');
    await driveEnded(host, run.id, ['succeeded']);
    expect(host.learning!.running()).toEqual([run.id]);
    hang = false;
    await host.appendToInbox(run.id, 'hello 11', 'user:alice');
    await driveEnded(host, run.id, ['succeeded']);
    await host.learning!.idle(); // resolves: the hung review was abandoned
    expect(host.learning!.running()).toEqual([]);
    await talk(host, run.id, 12, 20);
    expect(reports.map((r) => [r.due.memory, r.result.ended])).toEqual([[true, 'done']]);
  });

  it('copies the final request: same model settings, byte-identical system prompt and tool schemas, the reply, then the prompt', async () => {
    const { host, scripted, reports } = await start(
      [
        learningReviewScript({ memory: [{ action: 'add', target: 'user', content: 'Likes 4K' }] }),
        { match: 'hello', finalText: 'hi' },
      ],
      { memory: true },
    );
    const run = await host.startRun({ goal: 'hello 1', mode: 'plan_only', actor: 'user:alice' });
    await driveEnded(host, run.id, ['succeeded']);
    await talk(host, run.id, 2, 10);
    expect(reports).toHaveLength(1);
    const isReview = (r: ModelRequest) => JSON.stringify(r.messages).includes('background review');
    const conversation = scripted.requests.filter((r) => !isReview(r)).at(-1)!;
    const review = scripted.requests.find(isReview)!;
    expect(review.model).toBe(conversation.model);
    expect(review.thinking).toBe('low');
    expect(review.temperature).toBe(0.2);
    expect(JSON.stringify(review.tools)).toBe(JSON.stringify(conversation.tools));
    expect(review.messages[0]).toEqual(conversation.messages[0]);
    expect(review.messages[0]!.content).toContain('You help with a media library.');
    expect(review.messages.slice(0, conversation.messages.length)).toEqual(conversation.messages);
    expect(review.messages[conversation.messages.length]).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'hi' }],
    });
    expect(review.messages.at(-1)).toMatchObject({ role: 'user' });
    // The review's words never reach the conversation.
    const detail = await host.getRun(run.id, { limit: 1000 });
    expect(JSON.stringify(detail.events)).not.toContain('Nothing to save');
  });

  it("adds the review's model calls and tokens to the conversation's run usage", async () => {
    const { host, reports } = await start(
      [learningReviewScript({ memory: [{ action: 'add', content: 'x' }] }), { match: 'hello', finalText: 'hi' }],
      { memory: true },
    );
    const run = await host.startRun({ goal: 'hello 1', mode: 'plan_only', actor: 'user:alice' });
    await driveEnded(host, run.id, ['succeeded']);
    await talk(host, run.id, 2, 9);
    const before = (await host.getRun(run.id)).run.usage;
    await talk(host, run.id, 10, 10);
    const after = (await host.getRun(run.id)).run.usage;
    const review = reports[0]!.result;
    expect(review.modelCalls).toBe(2);
    // One conversation call for turn 10, plus the review's.
    expect(after.modelCalls).toBe(before.modelCalls + 1 + review.modelCalls);
    expect(after.inputTokens - before.inputTokens).toBeGreaterThan(review.inputTokens);
    // A drive that starts right after keeps it (its own writes do not drop the review's usage).
    await talk(host, run.id, 11, 11);
    expect((await host.getRun(run.id)).run.usage.modelCalls).toBe(after.modelCalls + 1);
  });

  it('adds the usage of a review that ended while the drive still held the run, with no later drive', async () => {
    let host!: AgentHost;
    // Holds the drive (and its lease) until the review has ended.
    const hold: RunMiddleware = { name: 'hold', onRunEnd: () => host.learning!.idle() };
    const started = await start(
      [learningReviewScript({ memory: [{ action: 'add', content: 'x' }] }), { match: 'hello', finalText: 'hi' }],
      { memory: true, middleware: [hold] },
    );
    host = started.host;
    const run = await host.startRun({ goal: 'hello 1', mode: 'plan_only', actor: 'user:alice' });
    await driveEnded(host, run.id, ['succeeded']);
    await talk(host, run.id, 2, 9);
    const before = (await host.getRun(run.id)).run.usage;
    await talk(host, run.id, 10, 10);
    const review = started.reports[0]!.result;
    expect(review.modelCalls).toBe(2);
    expect((await host.getRun(run.id)).run.usage.modelCalls).toBe(before.modelCalls + 1 + review.modelCalls);
  });

  it('charges a cancelled review that ended during the next drive to that drive', async () => {
    let host!: AgentHost;
    let release!: () => void;
    let reported!: () => void;
    let runningAtDrive: string[] | undefined;
    const reports: LearningReviewReport[] = [];
    const gate = new Promise<void>((r) => (release = r));
    const reviewEnded = new Promise<void>((r) => (reported = r));
    // The review's first call outlives the cancel wait; the next drive lets it end before its own model call.
    // Abandoned by that drive's start (cancelWaitMs 0), the review no longer counts for idle(): the drive
    // waits for its report instead, which comes after its usage was handed to the drive.
    const letReviewEnd: RunMiddleware = {
      name: 'let-review-end',
      async beforeModelRequest(ctx) {
        if (!JSON.stringify(ctx.messages).includes('again')) return;
        runningAtDrive = host.learning!.running();
        release();
        await reviewEnded;
      },
    };
    const started = await start(
      [
        learningReviewScript({ memory: [{ action: 'add', content: 'x' }] }),
        { match: 'again', finalText: 'sure' },
        { match: 'hello', finalText: 'hi' },
      ],
      {
        memory: true,
        middleware: [letReviewEnd],
        extra: {
          learning: {
            cancelWaitMs: 0,
            onReview: (r) => {
              reports.push(r);
              reported();
            },
          },
        },
        provider: reviewsWaitFor(gate),
      },
    );
    host = started.host;
    const run = await host.startRun({ goal: 'hello 1', mode: 'plan_only', actor: 'user:alice' });
    await driveEnded(host, run.id, ['succeeded']);
    await talk(host, run.id, 2, 9);
    await host.appendToInbox(run.id, 'hello 10', 'user:alice');
    await driveEnded(host, run.id, ['succeeded']);
    expect(host.learning!.running()).toEqual([run.id]);
    const before = (await host.getRun(run.id)).run.usage;
    await host.appendToInbox(run.id, 'again please', 'user:alice');
    await driveEnded(host, run.id, ['succeeded']);
    await host.learning!.idle();
    expect(runningAtDrive).toEqual([]);
    expect(reports.map((r) => [r.result.ended, r.result.modelCalls])).toEqual([['cancelled', 1]]);
    expect((await host.getRun(run.id)).run.usage.modelCalls).toBe(before.modelCalls + 1 + 1);
  });

  it('starts a skill review after 10 tool-calling responses and the delivered reply; the review patches the skill it created', async () => {
    const { host, reports, dir } = await start([
      reviewScript([
        {
          toolCalls: [
            {
              capability: 'skill_manage',
              input: {
                operations: [
                  {
                    action: 'create',
                    name: 'greetings',
                    content: '---\nname: greetings\ndescription: Greeting rules\n---\nSay hi.\n',
                  },
                ],
              },
            },
          ],
        },
        { toolCalls: [{ capability: 'skill_view', input: { name: 'greetings' } }] },
        {
          toolCalls: [
            {
              capability: 'skill_manage',
              input: {
                operations: [
                  { action: 'patch', name: 'greetings', old_string: 'Say hi.', new_string: 'Say hi, briefly.' },
                ],
              },
            },
          ],
        },
      ]),
      { match: 'look', steps: looks(10), finalText: 'looked' },
    ]);
    const run = await host.startRun({ goal: 'look at my skills', mode: 'plan_only', actor: 'user:alice' });
    await driveEnded(host, run.id, ['succeeded']);
    await host.learning!.idle();
    expect(reports.map((r) => r.due)).toEqual([{ memory: false, skills: true }]);
    expect(reports[0]!.result.calls.map((c) => [c.tool, c.outcome])).toEqual([
      ['skill_manage', 'ok'],
      ['skill_view', 'ok'],
      ['skill_manage', 'ok'],
    ]);
    const skills = new FileSkillStore({ dataDir: join(dir, 'learning') });
    expect((await skills.view('alice', 'greetings')).content).toContain('Say hi, briefly.');
    // The review created it, so the review owns it (and may maintain it later).
    expect((await skills.view('alice', 'greetings')).editable).toBe(true);
  });

  it('a review trying download.submit is denied and audited, and no job is submitted', async () => {
    const { host, reports, jobs, storage } = await start([
      learningReviewScript({
        forbidden: [
          { capability: 'download.submit', input: { planId: 'p1' } },
          { capability: 'execute_command', input: { command: 'rm -rf /' } },
        ],
      }),
      { match: 'look', steps: looks(10), finalText: 'looked' },
    ]);
    const run = await host.startRun({ goal: 'look at my skills', mode: 'plan_only', actor: 'user:alice' });
    await driveEnded(host, run.id, ['succeeded']);
    await host.learning!.idle();
    expect(reports[0]!.result.calls).toEqual([
      { tool: 'download.submit', outcome: 'denied' },
      { tool: 'execute_command', outcome: 'denied' },
    ]);
    expect(jobs).toEqual([]);
    const entries = await storage.ledger.listByState(['running', 'succeeded', 'failed', 'pending', 'unknown']);
    expect(entries.filter((e) => e.capabilityId === 'download.submit')).toEqual([]);
    const audit = (await storage.audit.list({ action: 'capability.denied' })).filter((a) => a.runId === run.id);
    expect(audit.map((a) => [a.capabilityId, a.actor, a.reason?.split(':')[0]])).toEqual([
      ['download.submit', `agent:${run.id}`, 'SKILL_REVIEW_TOOL_DENIED'],
      ['execute_command', `agent:${run.id}`, 'SKILL_REVIEW_TOOL_DENIED'],
    ]);
    // The denial tells the model what it may use instead.
    const tool = reports[0]!.result.transcript.find((m) => m.role === 'tool')!;
    expect(JSON.stringify(tool)).toContain('skill_view');
  });

  it('new input cancels a running review within the wait, and the review then writes nothing', async () => {
    const create = {
      toolCalls: [
        {
          capability: 'skill_manage',
          input: {
            operations: [
              { action: 'create', name: 'late', content: '---\nname: late\ndescription: Late\n---\nToo late.\n' },
            ],
          },
        },
      ],
    };
    const { host, reports, dir } = await start(
      [
        reviewScript([...Array.from({ length: 8 }, () => list), create]),
        { match: 'again', finalText: 'sure' },
        { match: 'look', steps: looks(10), finalText: 'looked' },
      ],
      { delayMs: 5 },
    );
    const run = await host.startRun({ goal: 'look at my skills', mode: 'plan_only', actor: 'user:alice' });
    await driveEnded(host, run.id, ['succeeded']);
    expect(host.learning!.running()).toEqual([run.id]);
    await host.appendToInbox(run.id, 'again please', 'user:alice');
    await driveEnded(host, run.id, ['succeeded']);
    await host.learning!.idle();
    expect(reports).toHaveLength(1);
    expect(reports[0]!.result.ended).toBe('cancelled');
    expect(reports[0]!.result.calls.map((c) => c.tool)).not.toContain('skill_manage');
    expect(await new FileSkillStore({ dataDir: join(dir, 'learning') }).list('alice')).toEqual([]);
  });

  it('skips the review of a request that carried a provider-native tool', async () => {
    const hosted: RunMiddleware = {
      name: 'hosted-search',
      beforeModelRequest(ctx) {
        ctx.tools.push({ type: 'web_search_20250305', name: 'web_search', description: 'Search', inputSchema: {} });
      },
    };
    const { host, reports } = await start(
      [
        learningReviewScript({}),
        { match: 'look', steps: looks(10), finalText: 'looked' },
        { match: 'again', steps: looks(10), finalText: 'looked again' },
      ],
      { middleware: [hosted] },
    );
    const run = await host.startRun({ goal: 'look at my skills', mode: 'plan_only', actor: 'user:alice' });
    await driveEnded(host, run.id, ['succeeded']);
    await host.learning!.idle();
    expect(host.learning!.running()).toEqual([]);
    expect(reports).toEqual([]);
  });

  it('never reviews background runs; a due review carries over a failed turn to the next delivered one', async () => {
    // The model fails the second call of the turn whose input says "break" (after one tool-calling response).
    const failing = (scripted: ScriptedProvider): ModelProvider => ({
      id: scripted.id,
      async *stream(request, signal): AsyncIterable<ModelEvent> {
        const lastUser = request.messages.filter((m) => m.role === 'user').at(-1);
        if (request.messages.at(-1)?.role === 'tool' && JSON.stringify(lastUser).includes('break')) {
          const error = Object.assign(new Error('overloaded'), { code: 'PROVIDER_HTTP' });
          yield { type: 'error', error: error as never };
          yield { type: 'done', stopReason: 'error' };
          return;
        }
        yield* scripted.stream(request, signal);
      },
    });
    const { host, reports } = await start(
      [
        learningReviewScript({}),
        { match: 'fine', finalText: 'ok' },
        { match: 'look', steps: looks(10), finalText: 'looked' },
        { match: 'tools', steps: looks(9), finalText: 'nine' },
      ],
      { provider: failing },
    );
    const background = await host.startRun({
      goal: 'look at my skills',
      mode: 'plan_only',
      actor: 'user:alice',
      origin: 'background',
    });
    await driveEnded(host, background.id, ['succeeded']);
    await host.learning!.idle();
    expect(reports).toEqual([]);

    const run = await host.startRun({ goal: 'tools', mode: 'plan_only', actor: 'user:alice' });
    await driveEnded(host, run.id, ['succeeded']);
    // The 10th tool-calling response comes in a turn that then fails: no review yet.
    await host.appendToInbox(run.id, 'look once more and break', 'user:alice');
    await driveEnded(host, run.id, ['failed']);
    await host.learning!.idle();
    expect(reports).toEqual([]);
    await host.appendToInbox(run.id, 'fine, thanks', 'user:alice');
    await driveEnded(host, run.id, ['succeeded']);
    await host.learning!.idle();
    expect(reports.map((r) => r.due)).toEqual([{ memory: false, skills: true }]);
  });

  it("compacts the review's own conversation when a request passes 85 % of the window, keeping the prompt", async () => {
    // A provider that caches the prompt prefix, as Anthropic does: little uncached input is reported.
    const cached = (scripted: ScriptedProvider): ModelProvider => ({
      id: scripted.id,
      async *stream(request, signal): AsyncIterable<ModelEvent> {
        for await (const event of scripted.stream(request, signal))
          yield event.type === 'usage'
            ? { type: 'usage', usage: { ...event.usage, inputTokens: 10, cacheReadTokens: event.usage.inputTokens } }
            : event;
      },
    });
    const big = `---\nname: notes\ndescription: Notes\n---\n${'Prefer the original language with subtitles. '.repeat(200)}\n`;
    const { host, reports, scripted } = await start(
      [
        { match: 'You compact the history', finalText: 'The review viewed the notes skill.' },
        reviewScript([
          {
            toolCalls: [
              {
                capability: 'skill_manage',
                input: { operations: [{ action: 'create', name: 'notes', content: big }] },
              },
            ],
          },
          ...Array.from({ length: 6 }, () => ({ toolCalls: [{ capability: 'skill_view', input: { name: 'notes' } }] })),
          ...Array.from({ length: 4 }, () => list),
        ]),
        { match: 'look', steps: looks(10), finalText: 'looked' },
      ],
      {
        provider: cached,
        extra: { runs: { pollMs: 5, leaseMs: 60_000, contextWindowTokens: 12_000, compactionThreshold: 0 } },
      },
    );
    const run = await host.startRun({ goal: 'look at my skills', mode: 'plan_only', actor: 'user:alice' });
    await driveEnded(host, run.id, ['succeeded']);
    await host.learning!.idle();
    const result = reports[0]!.result;
    expect(result.compactions).toBeGreaterThan(0);
    const after = scripted.requests.filter((r) => JSON.stringify(r.messages).includes('[context summary]'));
    expect(after.length).toBeGreaterThan(0);
    // The prompt survives every compaction.
    for (const r of after) expect(JSON.stringify(r.messages)).toContain('background review');
    expect(result.ended).toBe('done');
  });

  it('refuses bad learning options when the host is made, and is off without skills and memory', () => {
    const bad: unknown[] = [
      'yes',
      { review: 'no' },
      { maxModelCalls: 0 },
      { maxModelCalls: 17 },
      { maxModelCalls: 2.5 },
      { cancelWaitMs: -1 },
      { cancelWaitMs: Number.NaN },
      { onReview: 'log' },
      { prompt: 'Review.' },
    ];
    for (const learning of bad)
      expect(() =>
        createAgentHost({ skills: { dataDir: tmp() }, learning: learning as AgentOptions['learning'] }),
      ).toThrow(expect.objectContaining({ code: 'OPTIONS_INVALID' }));
    expect(createAgentHost({}).learning).toBeUndefined();
    expect(createAgentHost({ skills: { dataDir: tmp() }, learning: { review: false } }).learning).toBeUndefined();
    expect(createAgentHost({ skills: { dataDir: tmp() } }).learning?.running()).toEqual([]);
    for (const model of [{ thinking: 'max' }, { temperature: 3 }, { temperature: Number.NaN }])
      expect(() => createAgentHost({ model: model as AgentOptions['model'] })).toThrow(
        expect.objectContaining({ code: 'OPTIONS_INVALID' }),
      );
  });
});
