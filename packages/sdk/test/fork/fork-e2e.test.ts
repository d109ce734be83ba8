/**
 * Forks and undo of the last turn end to end (docs/forks.md): the real host and run loop, the sandbox world, the
 * scripted model, on memory storage AND a real SQLite file. Every case drives real runs, then forks them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeScript, ScriptContext } from '../../src/models/scripted';
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
import { FORK_NOTE_PREFIX } from '../../src/runtime/fork/fork-note';

const TITLE = { mediaSource: 'tmdb', mediaId: '693134' } as const;
const DUNE = { ...TITLE, kind: 'movie' } as const;
const GOAL = 'Add Dune: Part Two to the library';
const TERMINAL = ['succeeded', 'failed', 'cancelled', 'budget_exceeded'] as const;

/** The original: search, plan, submit; then it waits for the import (the world does not import on its own). */
const addDune: FakeScript = {
  name: 'add dune',
  match: 'Add Dune',
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

/** A fork that submits the plan of its copied conversation again (after an approval too: the decision note matches). */
const resubmit: FakeScript = {
  name: 'fork resubmits',
  match: /forked conversation|was approved/,
  steps: [
    {
      text: 'Submitting the plan again. ',
      toolCalls: [{ capability: 'download.submit', input: { planId: '{{download.plan.plan.id}}' } }],
    },
  ],
  finalText: 'Done with the fork.',
};

/** A fork with a new goal that makes a new plan for the same title (it joins the original's job). */
const newPlan: FakeScript = {
  name: 'fork plans again',
  // The note of a fork with a new goal says so (the scripted model's "goal" is the first message: the original's).
  match: 'changed the goal',
  steps: [
    {
      text: 'Making a fresh plan. ',
      toolCalls: [
        { capability: 'download.plan', input: { ...DUNE, releaseId: '{{release.search.releases.0.releaseId}}' } },
      ],
    },
  ],
  finalText: 'The title is already being fetched.',
};

/** Steering: answers a question without tools. */
const steer: FakeScript = { name: 'steer', match: 'how big', finalText: 'It is about 58 GB.' };
/** The person's message after an undo. */
const instead: FakeScript = { name: 'instead', match: 'smaller release', finalText: 'Noted: the smaller release.' };
/** A background run that only answers. */
const answer: FakeScript = { name: 'answer', match: 'What is', finalText: 'An answer.' };

/** A provider that records the model id of each request, then answers with the scripted model. */
class CapturingProvider implements ModelProvider {
  readonly id = 'scripted';
  readonly models: string[] = [];
  readonly requests: ModelRequest[] = [];
  constructor(private readonly inner: ScriptedProvider) {}
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent> {
    this.models.push(request.model);
    this.requests.push(request);
    return this.inner.stream(request, signal);
  }
}

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

type Kind = 'memory' | 'sqlite';

async function makeHost(kind: Kind) {
  let storage: StorageAdapter;
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-fork-'));
    dirs.push(dir);
    storage = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
  } else storage = new MemoryStorage();
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const world = new SandboxWorld({ clock, autoImport: false });
  const provider = new CapturingProvider(
    new ScriptedProvider({ scripts: [newPlan, resubmit, steer, instead, answer, addDune] }),
  );
  const host = createAgentHost({
    storage,
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider, model: 'host-model' },
    goalFacts: world,
    runs: { pollMs: 5, goalPollSec: 1 },
    identity: { roleOf: (actor: string) => (actor === 'user:admin' ? 'admin' : 'user') },
  } as never);
  registerSandboxCapabilities(host, world);
  await host.start();
  hosts.push(host);
  for (const action of ['download.plan', 'download.submit']) await host.grants.create({ action, actor: 'user:admin' });
  return { host, clock, world, storage, provider };
}

const events = async (host: AgentHost, runId: string): Promise<RunEvent[]> =>
  (await host.getRun(runId, { limit: 1000 })).events;

/** Every row count a refused fork could have changed. */
async function rowCounts(storage: StorageAdapter) {
  const runs = await storage.runs.list({ limit: 1000 });
  let messages = 0;
  for (const r of runs) messages += (await storage.messages.list(r.id)).length;
  return { runs: runs.length, events: (await storage.events.listAfter(0, 100_000)).length, messages };
}

/** The original run, submitted and waiting for the import. */
async function submittedOriginal(host: AgentHost, clock: ManualClock) {
  const run = await host.startRun({ goal: GOAL, actor: 'user:alice' });
  const waiting = await waitForRunStatus(host, run.id, ['waiting', ...TERMINAL], { clock, tickMs: 10 });
  expect(waiting.status).toBe('waiting');
  return run;
}

describe.each<Kind>(['memory', 'sqlite'])('forks end to end (%s)', (kind) => {
  it('fork after a submit: the forked event lists it; the same plan again is refused FORK_DUPLICATE_EFFECT and asks for an approval; approved, it runs under the fork key; a fresh plan joins the job — one download throughout', async () => {
    const { host, clock, world, storage, provider } = await makeHost(kind);
    const original = await submittedOriginal(host, clock);
    expect(world.downloads()).toHaveLength(1);
    const points = await host.listForkPoints(original.id, { actor: 'user:alice' });
    // The last fork point before the submit's step: after the plan.
    const afterPlan = points.filter((p) => p.label === 'after tool download.plan (succeeded)').at(-1)!;
    expect(afterPlan).toBeDefined();
    const submitEntry = (await storage.ledger.listByRun(original.id, { limit: 100 })).find(
      (e) => e.capabilityId === 'download.submit',
    )!;
    expect(submitEntry.state).toBe('pending');

    const fork = await host.forkRun(original.id, { atSeq: afterPlan.seq, actor: 'user:alice' });
    expect(fork).toMatchObject({
      status: 'queued',
      startedBy: 'user:alice',
      forkedFrom: { runId: original.id, atSeq: afterPlan.seq },
    });
    const first = (await events(host, fork.id))[0]!;
    expect(first).toMatchObject({ seq: 1, type: 'forked' });
    expect(first.data).toMatchObject({
      fromRunId: original.id,
      atSeq: afterPlan.seq,
      effectsAfter: [
        {
          key: submitEntry.key,
          capabilityId: 'download.submit',
          outcome: 'pending',
          argsHash: submitEntry.argsHash,
          invocationId: submitEntry.invocationId,
          runId: original.id,
        },
      ],
    });
    // The fork's model was shown the note naming the submit and its key.
    await waitForRunStatus(host, fork.id, ['waiting', ...TERMINAL], { clock, tickMs: 10 });
    const forkMessages = (await storage.messages.list(fork.id)).map(
      (m) => m.message as { role: string; content: unknown },
    );
    const note = forkMessages[afterPlan.messageCount]!;
    expect(note.role).toBe('user');
    expect(String(note.content).startsWith(FORK_NOTE_PREFIX)).toBe(true);
    expect(String(note.content)).toContain(submitEntry.key);
    // …and the model was sent it.
    expect(
      provider.requests.some((r) =>
        r.messages.some((m) => m.role === 'user' && String(m.content).startsWith(FORK_NOTE_PREFIX)),
      ),
    ).toBe(true);
    // The same plan again: refused as a duplicate, audited, and an approval asked for.
    const refusedResult = forkMessages.find(
      (m) => m.role === 'tool' && String(m.content).includes('FORK_DUPLICATE_EFFECT'),
    );
    expect(refusedResult).toBeDefined();
    const denials = (await storage.audit.list({ capabilityId: 'download.submit', limit: 100 })).filter(
      (a) => a.action === 'capability.denied' && a.runId === fork.id,
    );
    expect(denials).toHaveLength(1);
    expect(denials[0]!.reason).toMatch(/^FORK_DUPLICATE_EFFECT: /);
    const requested = (await events(host, fork.id)).filter((e) => e.type === 'approval_requested');
    expect(requested).toHaveLength(1);
    expect(await storage.ledger.listByRun(fork.id, { limit: 100 })).toEqual([]);
    expect(world.downloads()).toHaveLength(1);

    // A person approves: the call runs under the fork's own key (the downloader refuses a plan it already has).
    const approvalId = (requested[0]!.data as { approvalId: string }).approvalId;
    const plan = await host.plans.get((requested[0]!.data as { planId: string }).planId);
    await host.approvals.decide(approvalId, { status: 'approved', actor: 'user:admin', payloadHash: plan.payloadHash });
    await waitForRunStatus(host, fork.id, [...TERMINAL], { clock, tickMs: 1000, timeoutMs: 20_000 }).catch(
      () => undefined,
    );
    const forkEntries = await storage.ledger.listByRun(fork.id, { limit: 100 });
    expect(forkEntries).toHaveLength(1);
    expect(forkEntries[0]).toMatchObject({
      capabilityId: 'download.submit',
      scopeId: fork.id,
      approvalId,
      argsHash: submitEntry.argsHash,
    });
    expect(forkEntries[0]!.key).not.toBe(submitEntry.key);
    expect(world.downloads()).toHaveLength(1);

    // Another fork from the same point with a fresh plan for the same title joins the original's job.
    const fresh = await host.forkRun(original.id, {
      atSeq: afterPlan.seq,
      actor: 'user:alice',
      goal: 'Add Dune: Part Two with a fresh plan',
    });
    expect(fresh.goal).toBe('Add Dune: Part Two with a fresh plan');
    await waitForRunStatus(host, fresh.id, ['waiting', ...TERMINAL], { clock, tickMs: 10 });
    const planResults = (await storage.messages.list(fresh.id))
      .map((m) => m.message as { role: string; name?: string; content: unknown })
      .filter((m) => m.role === 'tool' && m.name === 'download.plan');
    expect(planResults.at(-1)!.content).toContain('INTENT_IN_PROGRESS');
    expect(world.downloads()).toHaveLength(1);
    expect((await events(host, fresh.id))[0]!.data).toMatchObject({ goalChanged: true });
  });

  it('fork before the submit: the submit is listed after atSeq; the original is untouched, byte for byte', async () => {
    const { host, clock, storage } = await makeHost(kind);
    const original = await submittedOriginal(host, clock);
    const snapshot = async () =>
      JSON.stringify({
        run: await storage.runs.get(original.id),
        events: await storage.events.listByRun(original.id, { limit: 10_000 }),
        messages: await storage.messages.list(original.id),
        ledger: await storage.ledger.listByRun(original.id, { limit: 1000 }),
      });
    const before = await snapshot();
    const points = await host.listForkPoints(original.id);
    const afterSearch = points.find((p) => p.label === 'after tool release.search (succeeded)')!;
    const fork = await host.forkRun(original.id, { atSeq: afterSearch.seq, actor: 'user:alice' });
    const effects = ((await events(host, fork.id))[0]!.data as { effectsAfter: Array<{ capabilityId: string }> })
      .effectsAfter;
    expect(effects.map((e) => e.capabilityId)).toEqual(['download.plan', 'download.submit']);
    expect((await storage.messages.list(fork.id)).slice(0, afterSearch.messageCount).map((m) => m.message)).toEqual(
      (await storage.messages.list(original.id)).slice(0, afterSearch.messageCount).map((m) => m.message),
    );
    await waitForRunStatus(host, fork.id, ['waiting', ...TERMINAL], { clock, tickMs: 10 });
    expect(await snapshot()).toBe(before);
  });

  it('undo after a steering message: the fork ends before it, the original is cancelled, the fork waits, a new message continues it', async () => {
    const { host, clock, storage } = await makeHost(kind);
    const original = await submittedOriginal(host, clock);
    await host.appendToInbox(original.id, 'how big is it?', { actor: 'user:alice' });
    await waitForRunStatus(host, original.id, ['waiting'], { clock, tickMs: 10 });
    // wait until the steering reply is stored
    for (let i = 0; i < 200 && !(await events(host, original.id)).some((e) => e.type === 'inbox_applied'); i++)
      await new Promise((r) => setTimeout(r, 10));
    await waitForRunStatus(host, original.id, ['waiting'], { clock, tickMs: 10 });

    const undone = await host.undoLastTurn(original.id, 'user:alice');
    expect(undone.undoneMessage.text).toBe('how big is it?');
    expect(undone.originalCancelled).toBe(true);
    expect(undone.run).toMatchObject({
      status: 'waiting',
      startedBy: 'user:alice',
      forkedFrom: { runId: original.id, atSeq: undone.forkedAt },
    });
    const ended = await waitForRunStatus(host, original.id, ['cancelled'], { clock, tickMs: 10 });
    expect(ended.abortReason ?? (await events(host, original.id)).at(-1)?.data).toBeTruthy();
    const lastStatus = (await events(host, original.id)).filter((e) => e.type === 'run_status').at(-1)!;
    expect(lastStatus.data).toMatchObject({ status: 'cancelled', reason: `undone: continued in ${undone.run.id}` });
    const forkText = (await storage.messages.list(undone.run.id)).map((m) => JSON.stringify(m.message));
    expect(forkText.some((t) => t.includes('how big'))).toBe(false);
    expect((await events(host, undone.run.id))[0]).toMatchObject({ type: 'forked', data: { undo: true } });
    // It waits for the person: nothing drives it until a message comes.
    clock.advance(5000);
    await new Promise((r) => setTimeout(r, 50));
    expect((await host.getRun(undone.run.id)).run.status).toBe('waiting');
    await host.appendToInbox(undone.run.id, 'take the smaller release', { actor: 'user:alice' });
    await waitForRunStatus(host, undone.run.id, ['waiting', ...TERMINAL], { clock, tickMs: 10 });
    for (let i = 0; i < 200; i++) {
      const texts = (await storage.messages.list(undone.run.id)).map((m) => JSON.stringify(m.message));
      if (texts.some((t) => t.includes('Noted: the smaller release.'))) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const after = (await storage.messages.list(undone.run.id)).map((m) => JSON.stringify(m.message));
    expect(after.some((t) => t.includes('take the smaller release'))).toBe(true);
    expect(after.some((t) => t.includes('Noted: the smaller release.'))).toBe(true);
  });

  it('refuses bad input with typed codes and writes nothing', async () => {
    const { host, clock, storage } = await makeHost(kind);
    const original = await submittedOriginal(host, clock);
    const points = await host.listForkPoints(original.id);
    const counts = await rowCounts(storage);
    const code = async (p: Promise<unknown>) => {
      try {
        await p;
        return 'resolved';
      } catch (error) {
        return (error as { code?: string }).code;
      }
    };
    // Another person's run: as if it did not exist.
    expect(await code(host.forkRun(original.id, { atSeq: points[0]!.seq, actor: 'user:bob' }))).toBe('RUN_NOT_FOUND');
    expect(await code(host.listForkPoints(original.id, { actor: 'user:bob' }))).toBe('RUN_NOT_FOUND');
    expect(await code(host.forkRun('run_nope', { atSeq: 1, actor: 'user:alice' }))).toBe('RUN_NOT_FOUND');
    // Mid-step: the `started` event of the submit (its step committed with the claim; its result was not in yet).
    const started = (await storage.events.listByRun(original.id, { limit: 1000 })).find(
      (e) =>
        e.type === 'tool_call' &&
        (e.data as { capabilityId: string; phase: string }).capabilityId === 'download.submit' &&
        (e.data as { phase: string }).phase === 'started',
    )!;
    expect(started.messageCount).toBeDefined();
    let error: unknown;
    try {
      await host.forkRun(original.id, { atSeq: started.seq, actor: 'user:alice' });
    } catch (e) {
      error = e;
    }
    const before = points.filter((p) => p.seq < started.seq).at(-1)!.seq;
    const after = points.find((p) => p.seq > started.seq)!.seq;
    expect(error).toMatchObject({
      code: 'FORK_POINT_INVALID',
      details: { runId: original.id, atSeq: started.seq, before, after },
    });
    expect((error as Error).message).toContain(`${before} before`);
    const last = points.at(-1)!.seq;
    const all = await storage.events.listByRun(original.id, { limit: 1000 });
    expect(await code(host.forkRun(original.id, { atSeq: all.at(-1)!.seq + 5, actor: 'user:alice' }))).toBe(
      'FORK_POINT_INVALID',
    );
    expect(await code(host.forkRun(original.id, { atSeq: 0, actor: 'user:alice' }))).toBe('FORK_POINT_INVALID');
    expect(await code(host.forkRun(original.id, { atSeq: 1.5, actor: 'user:alice' }))).toBe('FORK_POINT_INVALID');
    expect(await code(host.forkRun(original.id, { atSeq: last, actor: 'user:alice', model: '' }))).toBe(
      'RUN_REQUEST_INVALID',
    );
    expect(await code(host.forkRun(original.id, { atSeq: last, actor: 'user:alice', model: 'x'.repeat(201) }))).toBe(
      'RUN_REQUEST_INVALID',
    );
    expect(await code(host.forkRun(original.id, { atSeq: last, actor: 'user:alice', goal: ' ' }))).toBe(
      'RUN_REQUEST_INVALID',
    );
    expect(await code(host.forkRun(original.id, { atSeq: last, actor: 'alice' }))).toBe('ACTOR_INVALID');
    // No steering message: nothing to undo.
    expect(await code(host.undoLastTurn(original.id, 'user:alice'))).toBe('UNDO_NO_TURN');
    expect(await code(host.undoLastTurn(original.id, 'user:bob'))).toBe('RUN_NOT_FOUND');
    // A background run cannot undo a turn.
    const bg = await host.startRun({ goal: 'What is Dune?', actor: 'user:alice', origin: 'background' });
    await waitForRunStatus(host, bg.id, ['waiting', ...TERMINAL], { clock, tickMs: 10 });
    const counts2 = await rowCounts(storage);
    expect(await code(host.undoLastTurn(bg.id, 'user:alice'))).toBe('UNDO_NOT_INTERACTIVE');
    // A subagent run: fork its top-level run instead.
    const child = await storage.transaction(async (s) => {
      const run = { ...(await s.runs.get(bg.id))!, id: 'run_child', parentRunId: bg.id, depth: 1 };
      await s.runs.insert(run);
      return run;
    });
    const counts3 = await rowCounts(storage);
    expect(await code(host.forkRun(child.id, { atSeq: 1, actor: 'user:alice' }))).toBe('FORK_SUBAGENT_RUN');
    expect(await code(host.undoLastTurn(child.id, 'user:alice'))).toBe('FORK_SUBAGENT_RUN');
    expect(await rowCounts(storage)).toEqual(counts3);
    expect(counts3.runs).toBe(counts2.runs + 1);
    expect(counts2.runs).toBe(counts.runs + 1);
    expect((await storage.runs.list({ limit: 100 })).filter((r) => r.forkedFrom !== undefined)).toEqual([]);
  });

  it('a fork of a fork records its lineage and lists the lineage effects; the model option reaches the model calls and is inherited', async () => {
    const { host, clock, storage, provider } = await makeHost(kind);
    const original = await submittedOriginal(host, clock);
    expect(provider.models.every((m) => m === 'host-model')).toBe(true);
    const points = await host.listForkPoints(original.id);
    const early = points.find((p) => p.label === 'after tool release.search (succeeded)')!;
    const calls = provider.models.length;
    const fork = await host.forkRun(original.id, { atSeq: early.seq, actor: 'user:alice', model: 'other-model' });
    await waitForRunStatus(host, fork.id, ['waiting', ...TERMINAL], { clock, tickMs: 10 });
    const forkCalls = provider.models.slice(calls);
    expect(forkCalls.length).toBeGreaterThan(0);
    expect(forkCalls.every((m) => m === 'other-model')).toBe(true);
    expect((await events(host, fork.id))[0]!.data).toMatchObject({ model: 'other-model' });
    const usage = (await host.getRun(fork.id)).run.usage;
    expect(Object.keys(usage.byModel ?? {})).toEqual(['scripted/other-model']);

    // Fork the fork at its start (seq 2: the queued event after the copied conversation and the note).
    const forkPoints = await host.listForkPoints(fork.id);
    expect(forkPoints[0]).toMatchObject({ seq: 2 });
    const grand = await host.forkRun(fork.id, { atSeq: 2, actor: 'user:alice' });
    expect(grand.forkedFrom).toEqual({ runId: fork.id, atSeq: 2 });
    const listed = (
      (await events(host, grand.id))[0]!.data as { effectsAfter: Array<{ capabilityId: string; runId: string }> }
    ).effectsAfter;
    expect(listed.filter((e) => e.runId === original.id).map((e) => e.capabilityId)).toEqual([
      'download.plan',
      'download.submit',
    ]);
    const before = provider.models.length;
    await waitForRunStatus(host, grand.id, ['waiting', ...TERMINAL], { clock, tickMs: 10 });
    expect(provider.models.slice(before).every((m) => m === 'other-model')).toBe(true);
    // The admin may fork alice's run; the fork is theirs.
    const adminFork = await host.forkRun(original.id, { atSeq: early.seq, actor: 'user:admin' });
    expect(adminFork.startedBy).toBe('user:admin');
  });
});
