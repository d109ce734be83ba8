// Found by trying the SDK as a new user would (README and docs only); each case failed before its fix.
import { describe, expect, it } from 'vitest';
import Type from 'typebox';
import { createAgentHost, defineCapability } from '@media-agent/sdk';
import {
  addToLibraryScript,
  registerSandboxCapabilities,
  SandboxWorld,
  ScriptedProvider,
  waitForRunStatus,
} from '@media-agent/sdk/testing';

const END = ['succeeded', 'failed', 'cancelled', 'budget_exceeded'] as const;
const T = 'Dune: Part Two';
const toSubmit = [
  { toolCalls: [{ capability: 'catalog.lookup', input: { query: T, limit: 1 } }] },
  {
    toolCalls: [
      {
        capability: 'release.search',
        input: {
          mediaSource: '{{catalog.lookup.items.0.mediaSource}}',
          mediaId: '{{catalog.lookup.items.0.mediaId}}',
          limit: 5,
        },
      },
    ],
  },
  {
    toolCalls: [
      {
        capability: 'download.plan',
        input: {
          mediaSource: '{{catalog.lookup.items.0.mediaSource}}',
          mediaId: '{{catalog.lookup.items.0.mediaId}}',
          kind: '{{catalog.lookup.items.0.kind}}',
          releaseId: '{{release.search.releases.0.releaseId}}',
        },
      },
    ],
  },
  { toolCalls: [{ capability: 'download.submit', input: { planId: '{{download.plan.plan.id}}' } }] },
];

describe('trial: completion report', () => {
  it('a run waiting for an approval has no verified `failed` report', async () => {
    const world = new SandboxWorld({ durations: { queuedMs: 10, downloadMs: 50, importMs: 10 } });
    const host = createAgentHost({
      model: { provider: { provider: 'scripted', scripts: addToLibraryScript(T) }, model: 'scripted' },
      goalFacts: world,
      runs: { goalPollSec: 1, pollMs: 20 },
    });
    registerSandboxCapabilities(host, world);
    await host.start();
    await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
    const run = await host.startRun({ goal: `Add ${T} to the library`, actor: 'user:admin' });
    await waitForRunStatus(host, run.id, ['waiting'], { timeoutMs: 30_000 });
    const { run: r, report } = await host.getRun(run.id);
    await host.stop();
    expect(r.status).toBe('waiting');
    // observed: { status: 'failed', verified: true, summary: 'download.submit was not run (AUTH_NO_AUTHORIZATION)' }
    expect(report?.status).not.toBe('failed');
  });

  it('a download the run itself cancelled (task.cancel) is not a failure', async () => {
    const world = new SandboxWorld({ durations: { queuedMs: 50, downloadMs: 60_000, importMs: 50 } });
    const scripts = [
      {
        match: 'cancel',
        finalText: 'Cancelled.',
        steps: [
          ...toSubmit,
          { toolCalls: [{ capability: 'task.inspect', input: { planId: '{{download.plan.plan.id}}' } }] },
          { toolCalls: [{ capability: 'task.cancel', input: { taskId: '{{task.inspect.tasks.0.id}}' } }] },
        ],
      },
    ];
    const host = createAgentHost({
      model: { provider: new ScriptedProvider({ scripts }) },
      goalFacts: world,
      runs: { goalPollSec: 1, pollMs: 20 },
    });
    registerSandboxCapabilities(host, world);
    await host.start();
    for (const action of ['download.plan', 'download.submit', 'task.cancel'])
      await host.grants.create({ action, actor: 'user:admin' });
    const run = await host.startRun({ goal: `Add ${T}, then cancel it`, actor: 'user:admin' });
    await waitForRunStatus(host, run.id, [...END]);
    const { report } = await host.getRun(run.id);
    await host.stop();
    expect(report?.request).toEqual(['download', 'cancel']);
    // observed: failed, "the goal's Dune: Part Two (2024, tmdb:693134) is not in the library; this run downloaded Dune: Part Two (removed)"
    expect(report?.status).toBe('succeeded');
  });

  it('a failed setting is not hidden by a later success of the same capability on another input', async () => {
    const state: Record<string, string> = {};
    const set = defineCapability({
      id: 'settings.set',
      version: 1,
      title: 'set',
      description: 'set one setting',
      kind: 'execute',
      replay: 'never',
      effect: 'setting',
      input: Type.Object({ key: Type.String(), value: Type.String() }),
      output: Type.Object({ ok: Type.Boolean() }),
      verify: async ({ input }) =>
        state[input.key] === input.value
          ? { status: 'succeeded', output: { ok: true } }
          : { status: 'failed', reason: 'not set' },
      handler: async (input) => {
        if (input.value === 'bad') throw new Error('rejected by host');
        state[input.key] = input.value;
        return { ok: true };
      },
    });
    const scripts = [
      {
        match: 'both',
        finalText: 'Both set.',
        steps: [
          { toolCalls: [{ capability: 'settings.set', input: { key: 'quality', value: 'bad' } }] },
          { toolCalls: [{ capability: 'settings.set', input: { key: 'language', value: 'en' } }] },
        ],
      },
    ];
    const host = createAgentHost({
      model: { provider: new ScriptedProvider({ scripts }) },
      runs: { goalPollSec: 1, pollMs: 20 },
    });
    host.capabilities.register(set);
    await host.start();
    await host.grants.create({ action: 'settings.set', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'set both quality and language', actor: 'user:admin' });
    await waitForRunStatus(host, run.id, [...END]);
    const { report } = await host.getRun(run.id);
    await host.stop();
    expect(state.quality).toBeUndefined();
    // observed: succeeded, "setting confirmed by reading it back (settings.set)"
    expect(report?.status).toBe('failed');
  });
  it('an aborted run (cancelled) does not keep a `waiting` report', async () => {
    const world = new SandboxWorld({ durations: { queuedMs: 50, downloadMs: 60_000, importMs: 50 } });
    const host = createAgentHost({
      model: { provider: { provider: 'scripted', scripts: addToLibraryScript(T) }, model: 'scripted' },
      goalFacts: world,
      runs: { goalPollSec: 1, pollMs: 20 },
    });
    registerSandboxCapabilities(host, world);
    await host.start();
    for (const action of ['download.plan', 'download.submit'])
      await host.grants.create({ action, actor: 'user:admin' });
    const run = await host.startRun({ goal: `Add ${T} to the library`, actor: 'user:admin' });
    await waitForRunStatus(host, run.id, ['waiting'], { timeoutMs: 30_000 });
    await host.abort(run.id, 'changed my mind');
    await waitForRunStatus(host, run.id, [...END]);
    const { run: r, report } = await host.getRun(run.id);
    await host.stop();
    expect(r.status).toBe('cancelled');
    // observed: { status: 'waiting', summary: 'submitted is not imported: Dune: Part Two queued' } on a terminal run
    expect(report?.status).not.toBe('waiting');
  });
});
