// Shared parts of the fork trial tests: a sandbox host on memory or a real SQLite file, scripts anchored on their
// goal, and small readers. Real host, real run loop, real sandbox world, scripted model.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeScript } from '../../src/models/scripted';
import type { ModelEvent, ModelProvider, ModelRequest } from '../../src/models/types';
import {
  ConsoleLogger,
  createAgentHost,
  ManualClock,
  SequentialIdGenerator,
  type AgentHost,
  type RunEvent,
  type StorageAdapter,
} from '../../src/index';
import { MemoryStorage } from '../../src/storage';
import { SqliteStorage } from '../../src/sqlite';
import { registerSandboxCapabilities, SandboxWorld, ScriptedProvider, waitForRunStatus } from '../../src/testing';

export const TITLE = { mediaSource: 'tmdb', mediaId: '693134' } as const;
export const DUNE = { ...TITLE, kind: 'movie' } as const;
export const GOAL = 'Add Dune: Part Two to the library';
export const TERMINAL = ['succeeded', 'failed', 'cancelled', 'budget_exceeded'] as const;

/** search, plan, submit; then waits for the import (autoImport off). */
export const addDune: FakeScript = {
  name: 'add dune',
  match: /^Add Dune: Part Two to the library$/,
  steps: [
    { text: 'Searching releases. ', toolCalls: [{ capability: 'release.search', input: { ...TITLE, limit: 5 } }] },
    {
      text: 'Planning the best release. ',
      toolCalls: [
        { capability: 'download.plan', input: { ...DUNE, releaseId: '{{release.search.releases.0.releaseId}}' } },
      ],
    },
    {
      text: 'Submitting the plan. ',
      toolCalls: [{ capability: 'download.submit', input: { planId: '{{download.plan.plan.id}}' } }],
    },
  ],
  finalText: 'Submitted; waiting for the import.',
};
/** Steering with a tool: another search. */
export const searchAgain: FakeScript = {
  name: 'search again',
  match: /^search again$/,
  steps: [{ text: 'Searching again. ', toolCalls: [{ capability: 'release.search', input: { ...TITLE, limit: 3 } }] }],
  finalText: 'Same releases as before.',
};
/** Steering without tools. */
export const howBig: FakeScript = { name: 'how big', match: /^how big is it\?$/, finalText: 'It is about 58 GB.' };
/** A fork's first turn: it only answers (no effect). */
export const forkAnswers: FakeScript = {
  name: 'fork answers',
  match: /^\[runtime note: forked conversation\]/,
  finalText: 'Understood, nothing to repeat.',
};
/** A fork's first turn that submits the copied plan again. */
export const forkResubmits: FakeScript = {
  name: 'fork resubmits',
  match: /^\[runtime note: forked conversation\]/,
  steps: [
    {
      text: 'Submitting the plan again. ',
      toolCalls: [{ capability: 'download.submit', input: { planId: '{{download.plan.plan.id}}' } }],
    },
  ],
  finalText: 'Done with the fork.',
};

/** A provider that records the requests, then answers with the scripted model. */
export class CapturingProvider implements ModelProvider {
  readonly id = 'scripted';
  readonly models: string[] = [];
  readonly requests: ModelRequest[] = [];
  constructor(readonly inner: ScriptedProvider) {}
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent> {
    this.models.push(request.model);
    this.requests.push(request);
    return this.inner.stream(request, signal);
  }
}

export type Kind = 'memory' | 'sqlite';

const hosts: AgentHost[] = [];
const dirs: string[] = [];
/** Stops the hosts and removes the folders made since the last call (call in afterEach). */
export async function cleanup(): Promise<void> {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}
/** A fresh temp folder, removed by {@link cleanup}. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-fork-trial-'));
  dirs.push(dir);
  return dir;
}

export interface TrialHost {
  host: AgentHost;
  clock: ManualClock;
  world: SandboxWorld;
  storage: StorageAdapter;
  provider: CapturingProvider;
  path?: string;
}

/** A started sandbox host; `grants` are given to user:admin (an administrator) and to user:alice. */
export async function makeHost(
  kind: Kind,
  options: { scripts?: FakeScript[]; grants?: string[]; runs?: Record<string, unknown>; path?: string } = {},
): Promise<TrialHost> {
  let storage: StorageAdapter;
  let path: string | undefined;
  if (kind === 'sqlite') {
    path = options.path ?? join(tempDir(), 'agent.sqlite');
    storage = new SqliteStorage({ path });
  } else storage = new MemoryStorage();
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const world = new SandboxWorld({ clock, autoImport: false });
  const provider = new CapturingProvider(
    new ScriptedProvider({ scripts: options.scripts ?? [forkAnswers, howBig, searchAgain, addDune] }),
  );
  const host = createAgentHost({
    storage,
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider, model: 'host-model' },
    goalFacts: world,
    runs: { pollMs: 5, goalPollSec: 1, ...options.runs },
    identity: { roleOf: (actor: string) => (actor === 'user:admin' ? 'admin' : 'user') },
  } as never);
  registerSandboxCapabilities(host, world);
  await host.start();
  hosts.push(host);
  for (const action of options.grants ?? ['download.plan', 'download.submit']) {
    await host.grants.create({ action, actor: 'user:admin' });
  }
  return { host, clock, world, storage, provider, ...(path ? { path } : {}) };
}

export const events = async (host: AgentHost, runId: string): Promise<RunEvent[]> =>
  (await host.getRun(runId, { limit: 1000 })).events;

/** Every row count a refused request could have changed. */
export async function rowCounts(storage: StorageAdapter) {
  const runs = await storage.runs.list({ limit: 1000 });
  let messages = 0;
  for (const r of runs) messages += (await storage.messages.list(r.id)).length;
  return { runs: runs.length, events: (await storage.events.listAfter(0, 100_000)).length, messages };
}

/** The error code a promise rejects with, or 'resolved'. */
export async function code(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return 'resolved';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

/** Waits (real time) until `pred` holds for the run's events. */
export async function untilEvents(
  host: AgentHost,
  runId: string,
  pred: (es: RunEvent[]) => boolean,
  clock?: ManualClock,
): Promise<RunEvent[]> {
  for (let i = 0; i < 600; i++) {
    const es = await events(host, runId);
    if (pred(es)) return es;
    clock?.advance(10);
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`run ${runId}: condition not reached`);
}

/** The original (search, plan, submit), waiting for the import. */
export async function submittedOriginal(t: TrialHost, actor = 'user:alice') {
  const run = await t.host.startRun({ goal: GOAL, actor });
  const waiting = await waitForRunStatus(t.host, run.id, ['waiting', ...TERMINAL], { clock: t.clock, tickMs: 10 });
  if (waiting.status !== 'waiting') throw new Error(`original ended ${waiting.status}`);
  return run;
}

/** Sends a steering message and waits until it was applied and the run waits again. */
export async function steer(t: TrialHost, runId: string, text: string, actor = 'user:alice') {
  const before = (await events(t.host, runId)).filter((e) => e.type === 'inbox_applied').length;
  await t.host.appendToInbox(runId, text, { actor });
  await untilEvents(t.host, runId, (es) => es.filter((e) => e.type === 'inbox_applied').length > before, t.clock);
  await waitForRunStatus(t.host, runId, ['waiting', ...TERMINAL], { clock: t.clock, tickMs: 10 });
  // the reply to the steering message is stored once the run waits again
  for (let i = 0; i < 50; i++) {
    const last = (await t.storage.messages.list(runId)).at(-1)?.message as { role: string } | undefined;
    if (last?.role === 'assistant') break;
    await new Promise((r) => setTimeout(r, 10));
  }
}

export { waitForRunStatus };
