import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  createAgentHost,
  ManualClock,
  SequentialIdGenerator,
  type AgentHost,
  type LearningReviewResult,
} from '../../src/index';
import { FileSkillStore } from '../../src/skills';
import { learningReviewMiddleware } from '../../src/runtime/middleware/learning-review';
import { MemoryStorage } from '../../src/storage';
import { learningReviewScript, ScriptedProvider, type FakeScript, waitForRunStatus } from '../../src/testing';

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function start(scripts: FakeScript[], withMemory: boolean, delayMs = 0) {
  const dir = mkdtempSync(join(tmpdir(), 'ma-learning-'));
  dirs.push(dir);
  const store = new FileSkillStore({ dataDir: dir });
  const provider = new ScriptedProvider({ scripts, delayMs });
  const reviews: Array<{ kind: { memory: boolean; skills: boolean }; result: LearningReviewResult }> = [];
  const memoryCalls: unknown[] = [];
  const denied: Array<[string, string]> = [];
  const middleware = learningReviewMiddleware({
    store,
    provider,
    model: 'scripted',
    onReview: (_run, kind, result) => reviews.push({ kind, result }),
    systemPrompt: 'You help with a media library.',
    onDenied: (runId, tool) => denied.push([runId, tool]),
    ...(withMemory
      ? {
          memory: {
            call: async (_user: string, input: unknown) => {
              memoryCalls.push(input);
              return { success: true };
            },
          },
        }
      : {}),
  });
  const host = createAgentHost({
    storage: new MemoryStorage(),
    clock: new ManualClock(Date.UTC(2026, 10, 30, 12)),
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider, model: 'scripted' },
    skills: { store },
    runs: { pollMs: 5, leaseMs: 60_000, refusedTurnPauseMs: 1, middleware: [middleware] },
  });
  await host.start();
  hosts.push(host);
  return { host, store, provider, middleware, reviews, memoryCalls, denied };
}

const reviewScript = (steps: FakeScript['steps']): FakeScript => ({
  match: 'background review',
  steps,
  finalText: 'Nothing more to save.',
});

describe('background learning reviews in a host', () => {
  it('starts a memory review after the 10th delivered user turn, not before, with the conversation copied', async () => {
    const { host, middleware, reviews, memoryCalls, provider, denied } = await start(
      [
        learningReviewScript({
          memory: [{ action: 'add', content: 'answers in English' }],
          forbidden: [{ capability: 'download.submit', input: { planId: 'p1' } }],
        }),
        { match: 'hello', finalText: 'hi' },
      ],
      true,
    );
    const run = await host.startRun({ goal: 'hello 1', mode: 'plan_only', actor: 'user:alice' });
    await waitForRunStatus(host, run.id, ['succeeded']);
    for (let turn = 2; turn <= 9; turn++) {
      await host.appendToInbox(run.id, `hello ${turn}`, 'user:alice');
      await waitForRunStatus(host, run.id, ['succeeded']);
      await middleware.idle();
    }
    expect(reviews).toEqual([]);
    await host.appendToInbox(run.id, 'hello 10', 'user:alice');
    await waitForRunStatus(host, run.id, ['succeeded']);
    await middleware.idle();
    expect(reviews.map((r) => [r.kind, r.result.ended])).toEqual([[{ memory: true, skills: false }, 'done']]);
    expect(reviews[0]!.result.calls).toEqual([
      { tool: 'memory', outcome: 'ok' },
      { tool: 'download.submit', outcome: 'denied' },
    ]);
    expect(memoryCalls).toEqual([{ action: 'add', content: 'answers in English' }]);
    expect(denied).toEqual([[run.id, 'download.submit']]);
    const reviewRequest = provider.requests.find((r) => JSON.stringify(r.messages).includes('background review'))!;
    expect(reviewRequest.messages.filter((m) => m.role === 'user')).toHaveLength(11);
    expect(reviewRequest.messages[0]).toEqual({ role: 'system', content: 'You help with a media library.' });
  });

  it('starts a skill review after 10 tool-calling responses and the delivered reply; the review patches the skill it created', async () => {
    const list = { toolCalls: [{ capability: 'skills_list', input: {} }] };
    const { host, store, middleware, reviews } = await start(
      [
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
          { toolCalls: [{ capability: 'execute_command', input: {} }] },
        ]),
        { match: 'look', steps: Array.from({ length: 10 }, () => list), finalText: 'looked' },
      ],
      false,
    );
    const run = await host.startRun({ goal: 'look at my skills', mode: 'plan_only', actor: 'user:alice' });
    await waitForRunStatus(host, run.id, ['succeeded']);
    await middleware.idle();
    expect(reviews).toHaveLength(1);
    expect(reviews[0]!.kind).toEqual({ memory: false, skills: true });
    expect(reviews[0]!.result.calls.map((c) => [c.tool, c.outcome])).toEqual([
      ['skill_manage', 'ok'],
      ['skill_view', 'ok'],
      ['skill_manage', 'ok'],
      ['execute_command', 'denied'],
    ]);
    expect((await store.view('alice', 'greetings')).content).toContain('Say hi, briefly.');
    // The skill was created by the review, so the review owns it.
    expect((await store.list('alice')).map((s) => s.name)).toEqual(['greetings']);
  });

  it('new input to the conversation cancels a running review, which then writes nothing', async () => {
    const list = { toolCalls: [{ capability: 'skills_list', input: {} }] };
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
    const { host, store, middleware, reviews } = await start(
      [
        reviewScript([...Array.from({ length: 8 }, () => list), create]),
        { match: 'again', finalText: 'sure' },
        { match: 'look', steps: Array.from({ length: 10 }, () => list), finalText: 'looked' },
      ],
      false,
      5,
    );
    const run = await host.startRun({ goal: 'look at my skills', mode: 'plan_only', actor: 'user:alice' });
    await waitForRunStatus(host, run.id, ['succeeded']);
    await host.appendToInbox(run.id, 'again please', 'user:alice');
    await waitForRunStatus(host, run.id, ['succeeded']);
    await middleware.idle();
    expect(reviews).toHaveLength(1);
    expect(reviews[0]!.result.ended).toBe('cancelled');
    expect(reviews[0]!.result.calls.map((c) => c.tool)).not.toContain('skill_manage');
    expect((await store.list('alice')).map((s) => s.name)).toEqual([]);
  });
});
