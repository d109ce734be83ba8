import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SystemClock } from '../../src/index';
import { MemoryService } from '../../src/memory';
import { MarkdownMemoryStore } from '../../src/memory';
import { SKILL_MODEL_TOOLS } from '../../src/skills';
import { memoryReviewHook } from '../../src/runtime/middleware/learning-review';
import type { ModelMessage, ModelTool } from '../../src/models/types';
import { runLearningReview } from '../../src/skills/review-run';
import {
  countModelResponse,
  countUserTurn,
  initialCounters,
  type LearningCounters,
  reviewAfterTurn,
  reviewInputBudget,
  unconstrainedTools,
} from '../../src/skills/review-triggers';
import { MEMORY_UNAVAILABLE, REVIEW_DENIAL, reviewDispatch } from '../../src/skills/review-whitelist';
import { FileSkillStore } from '../../src/skills/file-skill-store';
import { ScriptedProvider, type FakeScript } from '../../src/testing';

const delivered = { outcome: 'delivered', interactive: true, reviewRunning: false, nativeTools: false } as const;

describe('learning review triggers', () => {
  it('launches a memory review on the 10th delivered user turn and a skill review after 10 tool-calling responses, resetting on skill_manage, carrying a due review over failed turns', () => {
    let c: LearningCounters = initialCounters();
    for (let i = 0; i < 9; i++) {
      c = countUserTurn(c);
      const d = reviewAfterTurn(c, delivered);
      expect(d.launch).toBeUndefined();
      c = d.counters;
    }
    c = countUserTurn(c);
    // The 10th turn fails: the due memory review waits for the next delivered turn.
    expect(reviewAfterTurn(c, { ...delivered, outcome: 'failed' }).launch).toBeUndefined();
    expect(reviewAfterTurn(c, { ...delivered, interactive: false }).launch).toBeUndefined();
    let d = reviewAfterTurn(c, delivered);
    expect(d.launch).toEqual({ memory: true, skills: false });
    c = d.counters;

    for (let i = 0; i < 9; i++) c = countModelResponse(c, { toolCalls: 3, calledSkillManage: false });
    c = countModelResponse(c, { toolCalls: 1, calledSkillManage: true }); // skill_manage resets the count
    for (let i = 0; i < 9; i++) c = countModelResponse(c, { toolCalls: 1, calledSkillManage: false });
    c = countModelResponse(c, { toolCalls: 0, calledSkillManage: false }); // a reply without calls does not count
    expect(reviewAfterTurn(c, delivered).launch).toBeUndefined();
    c = countModelResponse(c, { toolCalls: 2, calledSkillManage: false });
    expect(reviewAfterTurn(c, { ...delivered, reviewRunning: true }).launch).toBeUndefined();
    d = reviewAfterTurn(c, delivered);
    expect(d.launch).toEqual({ memory: false, skills: true });
    expect(d.counters).toMatchObject({ toolResponses: 0, skillDue: false });
    // Provider-native tools: the review is skipped, not carried.
    const native = reviewAfterTurn({ ...d.counters, skillDue: true }, { ...delivered, nativeTools: true });
    expect(native.launch).toBeUndefined();
    expect(native.counters.skillDue).toBe(false);
    // A restored conversation starts from the genuine user messages it holds.
    expect(reviewAfterTurn(countUserTurn(initialCounters(19)), delivered).launch).toEqual({
      memory: true,
      skills: false,
    });
  });

  it('budgets a review at min(600 000, 75 % of the window), 120 000 when the window is unknown', () => {
    expect(reviewInputBudget(1_000_000)).toBe(600_000);
    expect(reviewInputBudget(128_000)).toBe(96_000);
    expect(reviewInputBudget(undefined)).toBe(120_000);
  });

  it('names the tools a review cannot constrain: provider-native tools, schema-less tools, structured output', () => {
    expect(unconstrainedTools({ tools })).toEqual([]);
    expect(unconstrainedTools({ tools: [{ ...downloadTool, type: 'function' }] })).toEqual([]);
    expect(
      unconstrainedTools({
        tools: [
          ...tools,
          { type: 'web_search_20250305', name: 'web_search', description: '', inputSchema: {} },
          { name: 'broken', description: '', inputSchema: null as never },
        ],
      }),
    ).toEqual(['web_search', 'broken']);
    expect(unconstrainedTools({ tools, response_format: { type: 'json_object' } } as never)).toEqual([
      'response_format',
    ]);
  });

  it('executes only skill tools, memory when due, and maps skill reads; everything else is denied with the substitutes', () => {
    const skills = new Set(['subtitles']);
    expect(reviewDispatch('skill_manage', { operations: [] }, false, skills).kind).toBe('skill');
    expect(reviewDispatch('memory', {}, false, skills)).toEqual({ kind: 'deny', message: MEMORY_UNAVAILABLE });
    expect(reviewDispatch('memory', {}, true, skills).kind).toBe('memory');
    expect(reviewDispatch('read_skill', { name: 'subtitles' }, false, skills)).toEqual({
      kind: 'skill',
      tool: 'skill_view',
      input: { name: 'subtitles' },
    });
    expect(reviewDispatch('read_file', { path: 'media/subtitles/references/a.md' }, false, skills)).toEqual({
      kind: 'skill',
      tool: 'skill_view',
      input: { name: 'subtitles', file_path: 'references/a.md' },
    });
    expect(reviewDispatch('read_file', { path: '/etc/passwd' }, false, skills)).toEqual({
      kind: 'deny',
      message: REVIEW_DENIAL,
    });
    expect(reviewDispatch('execute_command', { cmd: 'ls' }, true, skills)).toEqual({
      kind: 'deny',
      message: REVIEW_DENIAL,
    });
  });
});

const doc = (name: string, body: string) => `---\nname: ${name}\ndescription: ${name} rules\n---\n${body}`;
const downloadTool: ModelTool = {
  name: 'download.submit',
  description: 'Submit a download',
  inputSchema: { type: 'object', properties: { planId: { type: 'string' } }, additionalProperties: false },
};
const memoryTool: ModelTool = {
  name: 'memory',
  description: 'Save durable facts',
  inputSchema: {
    type: 'object',
    properties: {
      action: { type: 'string' },
      target: { type: 'string' },
      content: { type: 'string' },
      old_text: { type: 'string' },
    },
    additionalProperties: false,
  },
};
const tools = [...SKILL_MODEL_TOOLS, downloadTool, memoryTool];
const conversation: ModelMessage[] = [
  { role: 'user', content: 'get Dune with subtitles' },
  { role: 'assistant', content: [{ type: 'text', text: 'Done: Dune is downloading, with English SRT subtitles.' }] },
];

let dir: string;
let store: FileSkillStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ma-review-'));
  store = new FileSkillStore({ dataDir: dir });
  await store.manage(
    'alice',
    [{ action: 'create', name: 'subtitles', content: doc('subtitles', '# Subtitles\nPrefer SRT.\n') }],
    { mode: 'background' },
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function review(script: FakeScript, extra: Partial<Parameters<typeof runLearningReview>[0]> = {}) {
  const provider = new ScriptedProvider({ scripts: [{ match: 'background review', ...script }] });
  return {
    provider,
    run: runLearningReview({
      provider,
      request: { model: 'scripted', messages: conversation, tools },
      due: { memory: false, skills: true },
      store,
      userId: 'alice',
      ...extra,
    }),
  };
}

describe('a learning review run', () => {
  it('reuses the conversation and its tool schemas, patches an owned skill after viewing it, and denies business and memory calls in a skills-only review', async () => {
    const denied: string[] = [];
    const { provider, run } = review(
      {
        steps: [
          { toolCalls: [{ capability: 'skill_view', input: { name: 'subtitles' } }] },
          {
            toolCalls: [
              {
                capability: 'skill_manage',
                input: {
                  operations: [
                    {
                      action: 'patch',
                      name: 'subtitles',
                      old_string: 'Prefer SRT.',
                      new_string: 'Prefer SRT; English first.',
                    },
                  ],
                },
              },
              { capability: 'download.submit', input: { planId: 'p1' } },
              { capability: 'memory', input: { action: 'add', content: 'likes SRT' } },
            ],
          },
        ],
        finalText: 'Nothing more to save.',
      },
      { onDenied: (tool) => void denied.push(tool), origin: { sessionId: 'chat-1', messageIds: ['m1'] } },
    );
    const result = await run;
    expect(result).toMatchObject({ ended: 'done', modelCalls: 3, writes: 1 });
    expect(result.calls).toEqual([
      { tool: 'skill_view', outcome: 'ok' },
      { tool: 'skill_manage', outcome: 'ok' },
      { tool: 'download.submit', outcome: 'denied' },
      { tool: 'memory', outcome: 'denied' },
    ]);
    expect(denied).toEqual(['download.submit', 'memory']);
    expect((await store.view('alice', 'subtitles')).content).toContain('Prefer SRT; English first.');
    const first = provider.requests[0]!;
    expect(first.tools).toEqual(tools);
    expect(first.messages.slice(0, 2)).toEqual(conversation);
    const lastTool = provider.requests[2]!.messages.filter((m) => m.role === 'tool').map((m) => m.content as string);
    expect(lastTool.at(-1)).toContain(MEMORY_UNAVAILABLE);
    expect(lastTool.at(-2)).toContain('only skills_list, skill_view and skill_manage run here');
    expect(result.inputTokens).toBeGreaterThan(0);
  });

  it('a provider that throws mid-stream ends the review as model_error, with the estimated usage of that call', async () => {
    const provider = {
      id: 'broken',
      // biome-ignore lint/correctness/useYield: the stream fails before its first event
      async *stream(): AsyncIterable<never> {
        throw new Error('socket hang up');
      },
    };
    const result = await runLearningReview({
      provider,
      request: { model: 'scripted', messages: conversation, tools },
      due: { memory: false, skills: true },
      store,
      userId: 'alice',
    });
    expect(result).toMatchObject({ ended: 'model_error', modelCalls: 1, writes: 0 });
    expect(result.inputTokens).toBeGreaterThan(0);
  });

  it('refuses a write attempted after new input cancelled the review and leaves the files unchanged', async () => {
    const before = readFileSync(join(store.libraryOf('alice'), 'subtitles', 'SKILL.md'));
    const controller = new AbortController();
    const { run } = review(
      {
        steps: [
          { toolCalls: [{ capability: 'skill_view', input: { name: 'subtitles' } }] },
          {
            toolCalls: [
              { capability: 'download.submit', input: { planId: 'p1' } },
              {
                capability: 'skill_manage',
                input: {
                  operations: [
                    { action: 'patch', name: 'subtitles', old_string: 'Prefer SRT.', new_string: 'Prefer ASS.' },
                  ],
                },
              },
            ],
          },
        ],
      },
      // New foreground input arrives while the review is executing its calls.
      { signal: controller.signal, onDenied: () => controller.abort() },
    );
    const result = await run;
    expect(result.ended).toBe('cancelled');
    expect(result.calls.at(-1)).toEqual({ tool: 'skill_manage', outcome: 'error', code: 'SKILL_REVIEW_CANCELLED' });
    expect(readFileSync(join(store.libraryOf('alice'), 'subtitles', 'SKILL.md'))).toEqual(before);
  });

  it('sends memory calls to the host hook only when a memory review is due, and stops at the input budget', async () => {
    const seen: unknown[] = [];
    const { run } = review(
      {
        steps: [{ toolCalls: [{ capability: 'memory', input: { action: 'add', content: 'prefers SRT subtitles' } }] }],
        finalText: 'Nothing to save.',
      },
      {
        due: { memory: true, skills: false },
        memory: {
          call: async (user, input) => {
            seen.push([user, input]);
            return { success: true };
          },
        },
      },
    );
    expect(await run).toMatchObject({ ended: 'done', writes: 1 });
    expect(seen).toEqual([['alice', { action: 'add', content: 'prefers SRT subtitles' }]]);
    // A window of 100 tokens: the budget is 75 input tokens, spent by the first call.
    const tiny = review(
      { steps: [{ toolCalls: [{ capability: 'skills_list', input: {} }] }], finalText: 'x' },
      { contextWindowTokens: 100 },
    );
    expect(await tiny.run).toMatchObject({ ended: 'budget', modelCalls: 1 });
  });

  it('refuses a custom prompt that is not a non-empty string before any model call', async () => {
    for (const prompt of ['', '  \n', 42, undefined as unknown]) {
      const { provider, run } = review({ finalText: 'x' }, { prompt: prompt as string });
      if (prompt === undefined) {
        expect((await run).ended).toBe('done');
        continue;
      }
      await expect(run).rejects.toMatchObject({ code: 'OPTIONS_INVALID', details: { option: 'learning.prompt' } });
      expect(provider.requests).toEqual([]);
    }
  });

  it('writes memory adds through the host memory and stages a replace or remove for the person to approve', async () => {
    const memory = new MemoryService({
      store: new MarkdownMemoryStore(join(dir, 'memory')),
      clock: new SystemClock(),
      roleOf: () => 'user',
    });
    await memory.write('user:alice', { action: 'add', target: 'user', content: 'Likes 4K HDR' });
    const { run } = review(
      {
        steps: [
          {
            toolCalls: [
              {
                capability: 'memory',
                input: { action: 'add', target: 'user', content: 'Prefers English SRT subtitles' },
              },
            ],
          },
          { toolCalls: [{ capability: 'memory', input: { action: 'remove', target: 'user', old_text: '4K HDR' } }] },
        ],
      },
      { due: { memory: true, skills: false }, memory: memoryReviewHook(memory) },
    );
    const result = await run;
    expect(result.calls).toEqual([
      { tool: 'memory', outcome: 'ok' },
      { tool: 'memory', outcome: 'ok' },
    ]);
    expect(await memory.currentEntries('user:alice', 'user')).toEqual([
      'Likes 4K HDR',
      'Prefers English SRT subtitles',
    ]);
    expect(await memory.listProposals('user:alice')).toHaveLength(1);
  });
});
