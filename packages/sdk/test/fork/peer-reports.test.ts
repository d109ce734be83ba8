// Public bug reports of peer projects about forking, time travel, rewinding a turn and replaying a run, each turned
// into a test of the same failure here, against the conversation-control API (fork, undo the last turn, replay
// without side effects). Real parts only: hosts made with createAgentHost, the sandbox world and its capabilities,
// the scripted model through the real run loop, memory storage or a real SQLite file.
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
  type RunEvent,
  type StorageAdapter,
} from '../../src/index';
import type { FakeScript } from '../../src/models/scripted';
import { SqliteStorage } from '../../src/sqlite';
import { MemoryStorage } from '../../src/storage';
import {
  addToLibraryScript,
  approveRequested,
  listRunEvents,
  registerSandboxCapabilities,
  requestedApproval,
  sandboxCapabilities,
  SandboxWorld,
  ScriptedProvider,
  waitForRunStatus,
} from '../../src/testing';

const ADMIN = 'user:admin';
const TERMINAL = ['succeeded', 'failed', 'cancelled', 'budget_exceeded'] as const;
const DUNE_GOAL = 'Add Dune: Part Two to the library';
/**
 * The add-to-library conversation, selected by the goal only: the scripted model restarts a script at the latest
 * user message its `match` finds, and a fork's runtime note names the title (in the recorded outputs it lists), so a
 * plain title match would restart the script at the note instead of continuing where the fork starts.
 */
const ADD_DUNE: FakeScript = { ...addToLibraryScript('Dune: Part Two'), match: /^Add Dune: Part Two to the library/ };

/** The payload of the `forked` event, as the contract defines it (the fork's first event). */
interface ForkedData {
  fromRunId: string;
  atSeq: number;
  effectsAfter: Array<{
    key: string;
    capabilityId: string;
    argsHash: string;
    outcome: 'succeeded' | 'pending' | 'unknown' | 'failed' | 'running';
    invocationId: string;
    output?: unknown;
    error?: { code: string; message: string };
    runId: string;
  }>;
  model?: string;
  goalChanged?: boolean;
  undo?: boolean;
}
interface ToolCallData {
  callId: string;
  capabilityId: string;
  phase: string;
  invocationId?: string;
  idempotencyKey?: string;
  error?: { code: string; message: string };
  output?: unknown;
}

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * A started host on the sandbox world (the world is also the goal facts), with the scripted model under the model id
 * `scripted-a`, and the administrator's standing grants to plan and submit downloads (so a submit needs no approval
 * and a refusal in a fork is the fork's own).
 */
async function sandboxHost(
  scripts: FakeScript | FakeScript[],
  options: { storage?: StorageAdapter; clock?: ManualClock; world?: SandboxWorld } = {},
) {
  const clock = options.clock ?? new ManualClock(Date.UTC(2026, 10, 30, 12));
  const world = options.world ?? new SandboxWorld({ clock });
  const storage = options.storage ?? new MemoryStorage();
  const provider = new ScriptedProvider({ scripts });
  const host = createAgentHost({
    storage,
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider, model: 'scripted-a' },
    goalFacts: world,
    runs: { pollMs: 5, goalPollSec: 1 },
  });
  registerSandboxCapabilities(host, world);
  await host.start();
  hosts.push(host);
  await host.grants.create({ action: 'download.plan', actor: ADMIN });
  await host.grants.create({ action: 'download.submit', actor: ADMIN });
  return { host, clock, world, provider, storage };
}

type Sandbox = Awaited<ReturnType<typeof sandboxHost>>;

/** Adds Dune: Part Two: inventory, lookup, search, plan, submit (granted), import over time; the run ends succeeded. */
async function addDune(s: Sandbox) {
  const run = await s.host.startRun({ goal: DUNE_GOAL, actor: ADMIN });
  const done = await waitForRunStatus(s.host, run.id, [...TERMINAL], {
    clock: s.clock,
    tickMs: 1000,
    timeoutMs: 15_000,
  });
  expect(done.status).toBe('succeeded');
  expect(s.world.downloads()).toHaveLength(1);
  return done;
}

const toolCalls = (events: RunEvent[], capabilityId: string) =>
  events
    .filter((e) => e.type === 'tool_call' && (e.data as ToolCallData).capabilityId === capabilityId)
    .map((e) => ({ seq: e.seq, ...(e.data as ToolCallData) }));

const handlerCalls = (world: SandboxWorld, capability: string) =>
  world.handlerCalls().filter((c) => c.capability === capability).length;

/** The original's settled `download.submit` call (its ledger key and invocation). */
async function originalSubmit(host: AgentHost, runId: string) {
  const calls = toolCalls(await listRunEvents(host, runId), 'download.submit');
  const settled = calls.filter((c) => c.phase !== 'started');
  expect(settled).toHaveLength(1);
  return { started: calls.find((c) => c.phase === 'started')!, settled: settled[0]! };
}

/** The latest fork point of `runId` strictly before the event `seq`. */
async function forkPointBefore(host: AgentHost, runId: string, seq: number) {
  const points = (await host.listForkPoints(runId, { actor: ADMIN })).filter((p) => p.seq < seq);
  expect(points.length).toBeGreaterThan(0);
  return points.at(-1)!;
}

/** The fork point right after `download.plan` and before `download.submit` of the Dune run. */
async function beforeSubmit(host: AgentHost, runId: string) {
  return forkPointBefore(host, runId, (await originalSubmit(host, runId)).started.seq);
}

/** Waits until the run is in one of `statuses` with no worker holding it (its drive ended). */
async function settled(host: AgentHost, runId: string, statuses: readonly string[] = ['waiting', ...TERMINAL]) {
  for (let i = 0; i < 3000; i++) {
    const { run } = await host.getRun(runId);
    if (statuses.includes(run.status) && run.leaseOwner === null) return run;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`run ${runId} did not settle in ${statuses.join('/')}`);
}

const messagesOf = async (storage: StorageAdapter, runId: string) =>
  (await storage.messages.list(runId)).map((m) => m.message as { role: string; content: unknown });

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p: { type?: string; text?: string }) => (p.type === 'text' ? (p.text ?? '') : '')).join('')
      : '';

/** Whether every assistant tool call in `messages` has its tool result in `messages`. */
function closed(messages: Array<{ role: string; content: unknown; toolCallId?: string }>): boolean {
  const called = new Set<string>();
  const answered = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant' && Array.isArray(m.content))
      for (const p of m.content as Array<{ type: string; id?: string }>) if (p.type === 'tool_call') called.add(p.id!);
    if (m.role === 'tool') answered.add(m.toolCallId!);
  }
  return [...called].every((id) => answered.has(id));
}

/** The fork's events; the first one must be `forked`. */
async function forkedOf(host: AgentHost, forkId: string) {
  const events = await listRunEvents(host, forkId);
  expect(events[0]).toMatchObject({ seq: 1, type: 'forked' });
  return { events, forked: events[0]!.data as unknown as ForkedData };
}

/**
 * An interactive conversation on the sandbox world: is Dune: Part Two in the library (no), is Blade Runner 2049
 * (no), then "yes, download Dune: Part Two": lookup, search, plan, submit. One model turn per step.
 */
const chat: FakeScript = {
  name: 'chat',
  match: 'in my library',
  steps: [
    {
      text: 'Checking the library. ',
      toolCalls: [{ capability: 'inventory.query', input: { query: 'Dune: Part Two' } }],
    },
    { text: 'Dune: Part Two is not in the library. Shall I get it?' },
    {
      text: 'Checking Blade Runner 2049. ',
      toolCalls: [{ capability: 'inventory.query', input: { query: 'Blade Runner 2049' } }],
    },
    { text: 'Blade Runner 2049 is not there either.' },
    {
      text: 'Looking it up. ',
      toolCalls: [{ capability: 'catalog.lookup', input: { query: 'Dune: Part Two', limit: 1 } }],
    },
    {
      text: 'Searching releases. ',
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
      text: 'Planning. ',
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
    {
      text: 'Submitting. ',
      toolCalls: [{ capability: 'download.submit', input: { planId: '{{download.plan.plan.id}}' } }],
    },
  ],
  finalText: 'Submitted: Dune: Part Two is on its way.',
};
const ASK_1 = 'Is Blade Runner 2049 there too?';
const ASK_2 = 'Yes, download Dune: Part Two';

/** Waits until `count` steering messages were applied and the run's drive ended. */
async function appliedAndSettled(host: AgentHost, runId: string, count: number) {
  for (let i = 0; i < 3000; i++) {
    const { run, events } = await host.getRun(runId, { limit: 1000 });
    const applied = events.filter((e) => e.type === 'inbox_applied').length;
    if (applied >= count && ['waiting', ...TERMINAL].includes(run.status) && run.leaseOwner === null) return run;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`run ${runId} did not apply ${count} messages`);
}

/** The whole conversation: goal, ASK_1, ASK_2; the run ends waiting for the download to import. */
async function conversation(s: Sandbox) {
  const run = await s.host.startRun({ goal: 'Is Dune: Part Two in my library?', actor: ADMIN });
  await appliedAndSettled(s.host, run.id, 0);
  await s.host.appendToInbox(run.id, ASK_1, { actor: ADMIN });
  await appliedAndSettled(s.host, run.id, 1);
  await s.host.appendToInbox(run.id, ASK_2, { actor: ADMIN });
  const after = await appliedAndSettled(s.host, run.id, 2);
  expect(s.world.downloads()).toHaveLength(1);
  return after;
}

describe('peer reports: replay re-executes what it should only read', () => {
  // langchain-ai/langchain-academy#40: "replaying" from a checkpoint re-ran every later step — new LLM calls, new
  // answers — although it was taught as a replay of what was stored.
  it('langchain-ai/langchain-academy#40: replaying a stored run calls the model zero times', async () => {
    const s = await sandboxHost(ADD_DUNE);
    const run = await addDune(s);
    const requests = s.provider.requests.length;
    const stored = await messagesOf(s.storage, run.id);
    const storedTurns = stored.filter((m) => m.role === 'assistant');
    const storedCalls = storedTurns.flatMap((m) =>
      (m.content as Array<{ type: string }>).filter((p) => p.type === 'tool_call'),
    );

    const report = await s.host.replayRun(run.id, { actor: ADMIN });

    expect(report.modelCalls).toBe(0);
    expect(s.provider.requests).toHaveLength(requests);
    expect(report).toMatchObject({ runId: run.id, status: 'same', divergences: [] });
    expect(report.turns).toBe(storedTurns.length - 1); // its final reply is not counted
    expect(report.toolCalls).toBe(storedCalls.length);
    expect(report.replayedReport).toEqual(report.storedReport);
    expect(report.storedReport).toMatchObject({ status: 'succeeded' });
  });

  // mastra-ai/mastra#17466: re-running a recorded agent for an evaluation executed its tools live, so every
  // evaluation wrote to production again (a real ticket comment per run).
  it('mastra-ai/mastra#17466: replaying a run calls no handler and writes nothing: the downloader keeps one job', async () => {
    const s = await sandboxHost(ADD_DUNE);
    const run = await addDune(s);
    const calls = s.world.handlerCalls();
    const ledger = await s.storage.ledger.listByRun(run.id);
    const events = await s.storage.events.listAfter(0, 100_000);
    const audit = await s.storage.audit.list({ limit: 100_000 });

    const report = await s.host.replayRun(run.id, { actor: ADMIN });

    expect(report.handlerCalls).toBe(0);
    expect(report.ledgerWrites).toBe(0);
    expect(s.world.handlerCalls()).toEqual(calls);
    expect(s.world.downloads()).toHaveLength(1);
    expect(await s.storage.ledger.listByRun(run.id)).toEqual(ledger);
    expect(await s.storage.events.listAfter(0, 100_000)).toEqual(events);
    expect(await s.storage.audit.list({ limit: 100_000 })).toEqual(audit);
  });
});

describe('peer reports: a replay against a runtime that changed', () => {
  /** Dune added on a SQLite file by one host; a second host on the same file lacks `release.search`. */
  async function changedRuntime() {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-fork-peers-'));
    dirs.push(dir);
    const path = join(dir, 'agent.sqlite');
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
    const world = new SandboxWorld({ clock });
    const first = await sandboxHost(ADD_DUNE, {
      storage: new SqliteStorage({ path }),
      clock,
      world,
    });
    const run = await addDune(first);
    await first.host.stop();

    const storage = new SqliteStorage({ path });
    const provider = new ScriptedProvider({ scripts: ADD_DUNE });
    const host = createAgentHost({
      storage,
      clock,
      logger: new ConsoleLogger('silent'),
      model: { provider, model: 'scripted-a' },
      goalFacts: world,
      runs: { pollMs: 5, goalPollSec: 1 },
    });
    const all = sandboxCapabilities(world, { plans: host.plans });
    for (const [id, capability] of Object.entries(all))
      if (id !== 'release.search') host.capabilities.register(capability!);
    await host.start({ workers: false });
    hosts.push(host);
    return { run, host, storage, provider, world };
  }

  // mastra-ai/mastra#21137: time travel against a graph whose step ids no longer matched the recording rebuilt the
  // state with {} and wrote that reconstruction over the recorded snapshot: the evidence of the failed run was gone.
  it('mastra-ai/mastra#21137: a replay on a changed runtime leaves every stored row of the run as it was', async () => {
    const c = await changedRuntime();
    const before = {
      run: (await c.host.getRun(c.run.id)).run,
      events: await c.storage.events.listByRun(c.run.id, { limit: 100_000 }),
      messages: await c.storage.messages.list(c.run.id),
      ledger: await c.storage.ledger.listByRun(c.run.id),
      all: await c.storage.events.listAfter(0, 100_000),
    };

    const report = await c.host.replayRun(c.run.id, { actor: ADMIN });

    expect(report.ledgerWrites).toBe(0);
    expect((await c.host.getRun(c.run.id)).run).toEqual(before.run);
    expect(await c.storage.events.listByRun(c.run.id, { limit: 100_000 })).toEqual(before.events);
    expect(await c.storage.messages.list(c.run.id)).toEqual(before.messages);
    expect(await c.storage.ledger.listByRun(c.run.id)).toEqual(before.ledger);
    expect(await c.storage.events.listAfter(0, 100_000)).toEqual(before.all);
  });

  // openai/openai-agents-js#1067: a resumed run whose runtime tools were gone went on and failed later with "Tool
  // <name> not found" instead of saying up front what no longer matched.
  it('openai/openai-agents-js#1067: a capability that no longer exists is reported as a divergence, not thrown', async () => {
    const c = await changedRuntime();
    const handlerCallsBefore = c.world.handlerCalls().length;

    const report = await c.host.replayRun(c.run.id, { actor: ADMIN });

    expect(report.status).toBe('diverged');
    expect(report.divergences).toContainEqual(
      expect.objectContaining({ kind: 'capability_missing', capabilityId: 'release.search' }),
    );
    expect(
      report.divergences.every((d) => d.kind !== 'capability_missing' || d.capabilityId === 'release.search'),
    ).toBe(true);
    expect(report).toMatchObject({ modelCalls: 0, handlerCalls: 0, ledgerWrites: 0 });
    expect(c.provider.requests).toHaveLength(0);
    expect(c.world.handlerCalls()).toHaveLength(handlerCallsBefore);
  });
});

describe('peer reports: a fork re-executes or forgets effects', () => {
  // mastra-ai/mastra#21749: time travel to a failed foreach step started again at index 0 and ran the iterations
  // that had succeeded a second time (publishing, billing, uploads twice).
  it('mastra-ai/mastra#21749: a fork before the submit lists it as a fact and never runs it: one job, one handler call', async () => {
    const s = await sandboxHost(ADD_DUNE);
    const run = await addDune(s);
    const submit = await originalSubmit(s.host, run.id);
    const entry = (await s.storage.ledger.get(submit.settled.idempotencyKey!))!;
    const point = await beforeSubmit(s.host, run.id);

    const fork = await s.host.forkRun(run.id, { atSeq: point.seq, actor: ADMIN });
    expect(fork.status).toBe('queued');
    await settled(s.host, fork.id);

    const { events, forked } = await forkedOf(s.host, fork.id);
    expect(events[1]).toMatchObject({ type: 'run_status', data: { status: 'queued' } });
    expect(forked).toMatchObject({ fromRunId: run.id, atSeq: point.seq });
    const submits = forked.effectsAfter.filter((e) => e.capabilityId === 'download.submit');
    expect(submits).toEqual([
      expect.objectContaining({
        key: entry.key,
        argsHash: entry.argsHash,
        invocationId: submit.settled.invocationId,
        outcome: entry.state,
        runId: run.id,
      }),
    ]);
    expect(s.world.downloads()).toHaveLength(1);
    expect(handlerCalls(s.world, 'download.submit')).toBe(1);
    expect(
      toolCalls(events, 'download.submit').filter((c) => ['succeeded', 'pending', 'unknown'].includes(c.phase)),
    ).toEqual([]);
    // The original's entry is a fact: the fork neither re-ran nor undid it.
    expect(await s.storage.ledger.get(entry.key)).toEqual(entry);
  });

  // openai/openai-agents-python#4254: a retried or re-planned call arrives with a fresh tool_call_id, so
  // de-duplicating by the call id lets a side effect fire twice; only the arguments stay the same.
  it('openai/openai-agents-python#4254: the fork repeats the submit under a new call id and is refused by capability and arguments', async () => {
    const s = await sandboxHost(ADD_DUNE);
    const run = await addDune(s);
    const submit = await originalSubmit(s.host, run.id);
    const fork = await s.host.forkRun(run.id, { atSeq: (await beforeSubmit(s.host, run.id)).seq, actor: ADMIN });
    await settled(s.host, fork.id);

    const events = await listRunEvents(s.host, fork.id);
    const refused = toolCalls(events, 'download.submit').filter((c) => c.phase !== 'started');
    expect(refused).toEqual([
      expect.objectContaining({ phase: 'denied', error: expect.objectContaining({ code: 'FORK_DUPLICATE_EFFECT' }) }),
    ]);
    const denied = (
      await s.storage.audit.list({ action: 'capability.denied', capabilityId: 'download.submit' })
    ).filter((a) => a.runId === fork.id);
    expect(denied).toHaveLength(1);
    expect(denied[0]!.reason).toMatch(/^FORK_DUPLICATE_EFFECT/);
    // The refusal is liftable: the fork asks a person to approve the same plan, and waits.
    const asked = await requestedApproval(s.host, fork.id);
    expect(asked.planId).toBe(s.world.plans()[0]!.id);
    expect((await s.host.getRun(fork.id)).run.status).toBe('waiting');
    expect(handlerCalls(s.world, 'download.submit')).toBe(1);
  });

  // zavora-ai/adk-rust#504: MCP tool calls were replayed automatically after a reconnect; the fix made replay of a
  // mutating call an explicit opt-in.
  it("zavora-ai/adk-rust#504: a repeated never-replay effect runs only after a person approves it, under the fork's own key", async () => {
    const s = await sandboxHost(ADD_DUNE);
    const run = await addDune(s);
    const submit = await originalSubmit(s.host, run.id);
    const fork = await s.host.forkRun(run.id, { atSeq: (await beforeSubmit(s.host, run.id)).seq, actor: ADMIN });
    await settled(s.host, fork.id, ['waiting']);
    expect(handlerCalls(s.world, 'download.submit')).toBe(1);

    await approveRequested(s.host, await requestedApproval(s.host, fork.id));
    await waitForRunStatus(s.host, fork.id, [...TERMINAL], { clock: s.clock, tickMs: 1000, timeoutMs: 15_000 });

    const settledCalls = toolCalls(await listRunEvents(s.host, fork.id), 'download.submit').filter(
      (c) => c.phase !== 'started',
    );
    expect(settledCalls.map((c) => c.error?.code ?? c.phase)).toEqual(['FORK_DUPLICATE_EFFECT', expect.any(String)]);
    const approved = settledCalls[1]!;
    expect(approved.phase).not.toBe('denied');
    const forkEntries = (await s.storage.ledger.listByRun(fork.id)).filter((e) => e.capabilityId === 'download.submit');
    expect(forkEntries).toHaveLength(1);
    expect(forkEntries[0]!.key).toBe(approved.idempotencyKey);
    expect(forkEntries[0]!.key).not.toBe(submit.settled.idempotencyKey);
    expect(forkEntries[0]!.approvalId).not.toBeNull();
    // The original's entry is untouched by the fork's call.
    expect((await s.storage.ledger.get(submit.settled.idempotencyKey!))!.invocationId).toBe(
      submit.settled.invocationId,
    );
  });

  // anthropics/claude-code#18771: rewinding restored the conversation but not what Bash had changed, and nothing
  // told the model: its view of the world and the world disagreed ("split brain").
  it("anthropics/claude-code#18771: the fork's model is told the submit already happened, in its first request", async () => {
    const s = await sandboxHost(ADD_DUNE);
    const run = await addDune(s);
    const submit = await originalSubmit(s.host, run.id);
    const point = await beforeSubmit(s.host, run.id);
    const first = s.provider.requests.length;
    const fork = await s.host.forkRun(run.id, { atSeq: point.seq, actor: ADMIN });
    await settled(s.host, fork.id);

    const request = s.provider.requests[first]!;
    const turns = request.messages.filter((m) => m.role !== 'system');
    expect(turns).toHaveLength(point.messageCount + 1);
    const note = turns.at(-1)!;
    expect(note.role).toBe('user');
    expect(textOf(note.content)).toContain('download.submit');
    expect(textOf(note.content)).toContain(submit.settled.idempotencyKey!);
    // Stored in the fork's conversation right after the copied prefix.
    const stored = await messagesOf(s.storage, fork.id);
    expect(stored[point.messageCount]).toEqual(note);
  });
});

describe('peer reports: a fork shares or leaks state with its parent or siblings', () => {
  // langchain-ai/langgraph#8443: forking from an older checkpoint replayed the abandoned branch's writes into the
  // fork after a reload: the fork held a message of the branch it replaced.
  it('langchain-ai/langgraph#8443: the fork holds exactly the prefix up to atSeq, nothing the original did later', async () => {
    const s = await sandboxHost(ADD_DUNE);
    const run = await addDune(s);
    const submit = await originalSubmit(s.host, run.id);
    const original = await messagesOf(s.storage, run.id);
    const point = await beforeSubmit(s.host, run.id);
    const first = s.provider.requests.length;
    const fork = await s.host.forkRun(run.id, { atSeq: point.seq, actor: ADMIN });
    await settled(s.host, fork.id);

    const copied = (await messagesOf(s.storage, fork.id)).slice(0, point.messageCount);
    expect(copied).toEqual(original.slice(0, point.messageCount));
    const seen = JSON.stringify(s.provider.requests[first]!.messages);
    expect(seen).not.toContain(`"toolCallId":"${submit.settled.callId}"`);
    expect(seen).not.toContain(`"id":"${submit.settled.callId}"`);
    expect(seen).not.toContain(textOf(original.at(-1)!.content));
  });

  // langchain-ai/langgraph#8551: update_state against an older checkpoint wrote into the branch it forked away from:
  // the existing branch replayed the fork's writes.
  it('langchain-ai/langgraph#8551: forking and driving the fork changes nothing of the original', async () => {
    const s = await sandboxHost(ADD_DUNE);
    const run = await addDune(s);
    const before = {
      run: (await s.host.getRun(run.id)).run,
      events: await s.storage.events.listByRun(run.id, { limit: 100_000 }),
      messages: await s.storage.messages.list(run.id),
      ledger: await s.storage.ledger.listByRun(run.id),
    };
    const fork = await s.host.forkRun(run.id, {
      atSeq: (await beforeSubmit(s.host, run.id)).seq,
      actor: ADMIN,
      goal: 'Add Dune: Part Two to the library, 4K only',
    });
    await settled(s.host, fork.id);
    await s.host.appendToInbox(fork.id, 'prefer HDR', { actor: ADMIN });
    await appliedAndSettled(s.host, fork.id, 1);

    expect((await s.host.getRun(run.id)).run).toEqual(before.run);
    expect(await s.storage.events.listByRun(run.id, { limit: 100_000 })).toEqual(before.events);
    expect(await s.storage.messages.list(run.id)).toEqual(before.messages);
    expect(await s.storage.ledger.listByRun(run.id)).toEqual(before.ledger);
    expect(JSON.stringify(before.messages)).not.toMatch(/4K only|prefer HDR/);
  });

  // langchain-ai/langgraphjs#2737: two branches forked from the same parent checkpoint with updateState were
  // merged into each other when the state was rebuilt.
  it('langchain-ai/langgraphjs#2737: two forks of the same step with two models keep their own conversations and models', async () => {
    const s = await sandboxHost(ADD_DUNE);
    const run = await addDune(s);
    const point = await beforeSubmit(s.host, run.id);
    const first = s.provider.requests.length;
    const a = await s.host.forkRun(run.id, {
      atSeq: point.seq,
      actor: ADMIN,
      model: 'scripted-b',
      goal: `${DUNE_GOAL} in 4K`,
    });
    const b = await s.host.forkRun(run.id, {
      atSeq: point.seq,
      actor: ADMIN,
      model: 'scripted-c',
      goal: `${DUNE_GOAL} in 1080p`,
    });
    await settled(s.host, a.id);
    await settled(s.host, b.id);

    const ofA = JSON.stringify(await messagesOf(s.storage, a.id));
    const ofB = JSON.stringify(await messagesOf(s.storage, b.id));
    expect(ofA).toContain('in 4K');
    expect(ofA).not.toContain('in 1080p');
    expect(ofB).toContain('in 1080p');
    expect(ofB).not.toContain('in 4K');
    expect((await forkedOf(s.host, a.id)).forked).toMatchObject({
      fromRunId: run.id,
      model: 'scripted-b',
      goalChanged: true,
    });
    expect((await forkedOf(s.host, b.id)).forked).toMatchObject({
      fromRunId: run.id,
      model: 'scripted-c',
      goalChanged: true,
    });
    const forkRequests = s.provider.requests.slice(first);
    const modelsOf = (marker: string) => [
      ...new Set(forkRequests.filter((r) => JSON.stringify(r.messages).includes(marker)).map((r) => r.model)),
    ];
    expect(modelsOf('in 4K')).toEqual(['scripted-b']);
    expect(modelsOf('in 1080p')).toEqual(['scripted-c']);
    expect(
      forkRequests.every(
        (r) => !(JSON.stringify(r.messages).includes('in 4K') && JSON.stringify(r.messages).includes('in 1080p')),
      ),
    ).toBe(true);
    expect(s.world.downloads()).toHaveLength(1);
  });

  // google/adk-python#4933: rewinding a session nulled the state keys set when the session was created (they were
  // not in the event stream the rewind rebuilt the state from).
  it('google/adk-python#4933: the fork keeps what the run was started with: goal, mode, origin, allowlist, session, budgets', async () => {
    const s = await sandboxHost(chat);
    const run = await s.host.startRun({
      goal: 'Is Dune: Part Two in my library?',
      actor: ADMIN,
      capabilityAllowlist: ['inventory.query', 'catalog.lookup'],
      sessionId: 'living-room',
      budgets: { maxToolCalls: 7 },
    });
    const original = await settled(s.host, run.id, ['succeeded']);
    const [point] = await s.host.listForkPoints(run.id, { actor: ADMIN });

    const fork = await s.host.forkRun(run.id, { atSeq: point!.seq, actor: ADMIN });

    expect(fork).toMatchObject({
      goal: original.goal,
      mode: original.mode,
      origin: original.origin,
      capabilityAllowlist: ['inventory.query', 'catalog.lookup'],
      sessionId: 'living-room',
      budgets: original.budgets,
      startedBy: ADMIN,
      forkedFrom: { runId: run.id, atSeq: point!.seq },
    });
    expect(fork.id).not.toBe(run.id);
    expect((fork.budgets as { maxToolCalls?: number }).maxToolCalls).toBe(7);
  });

  // anthropics/claude-code#28826: forking a forked conversation and resuming it came back at the first fork's
  // point (or another session), not where the second fork was made.
  it("anthropics/claude-code#28826: a fork of a fork starts from the fork's own step, with its lineage and inherited model", async () => {
    const s = await sandboxHost(ADD_DUNE);
    const run = await addDune(s);
    const one = await s.host.forkRun(run.id, {
      atSeq: (await beforeSubmit(s.host, run.id)).seq,
      actor: ADMIN,
      model: 'scripted-b',
      goal: `${DUNE_GOAL}, 4K only`,
    });
    await settled(s.host, one.id);
    const points = await s.host.listForkPoints(one.id, { actor: ADMIN });
    expect(points.length).toBeGreaterThan(0);
    const point = points.at(-1)!;
    const first = s.provider.requests.length;

    const two = await s.host.forkRun(one.id, { atSeq: point.seq, actor: ADMIN });
    await settled(s.host, two.id);

    expect(two.forkedFrom).toEqual({ runId: one.id, atSeq: point.seq });
    expect(two.goal).toBe(`${DUNE_GOAL}, 4K only`);
    expect((await forkedOf(s.host, two.id)).forked).toMatchObject({ fromRunId: one.id, atSeq: point.seq });
    const ofOne = await messagesOf(s.storage, one.id);
    expect((await messagesOf(s.storage, two.id)).slice(0, point.messageCount)).toEqual(
      ofOne.slice(0, point.messageCount),
    );
    expect(JSON.stringify(ofOne.slice(0, point.messageCount))).toContain('4K only');
    const models = s.provider.requests.slice(first).map((r) => r.model);
    expect(models.length).toBeGreaterThan(0);
    expect(new Set(models)).toEqual(new Set(['scripted-b']));
    expect((await s.host.getRun(run.id)).run.goal).toBe(DUNE_GOAL);
  });

  // langchain-ai/langchain-aws#1209: a checkpoint read while a tool call was still running got a fabricated error
  // tool result for that call ("interrupted before completion"): the branch started from a half-done step.
  it('langchain-ai/langchain-aws#1209: a fork point is a closed step; a seq inside a step is refused with the nearest points', async () => {
    const s = await sandboxHost(ADD_DUNE);
    const run = await addDune(s);
    const original = await s.storage.messages.list(run.id);
    const points = await s.host.listForkPoints(run.id, { actor: ADMIN });
    expect(points.length).toBeGreaterThan(1);
    for (const p of points)
      expect(closed(original.slice(0, p.messageCount).map((m) => m.message as never)), `fork point ${p.seq}`).toBe(
        true,
      );

    const submit = await originalSubmit(s.host, run.id);
    const inside = submit.started.seq; // the submit had started and not settled: mid-step
    const before = points.filter((p) => p.seq < inside).at(-1)!.seq;
    const after = points.find((p) => p.seq > inside)!.seq;
    const runsBefore = (await s.host.listRuns({ limit: 1000 })).length;

    await expect(s.host.forkRun(run.id, { atSeq: inside, actor: ADMIN })).rejects.toMatchObject({
      code: 'FORK_POINT_INVALID',
      details: { runId: run.id, atSeq: inside, before, after },
    });
    const last = (await listRunEvents(s.host, run.id)).at(-1)!.seq;
    await expect(s.host.forkRun(run.id, { atSeq: last + 10, actor: ADMIN })).rejects.toMatchObject({
      code: 'FORK_POINT_INVALID',
      details: { before: points.at(-1)!.seq, after: null },
    });
    await expect(s.host.forkRun(run.id, { atSeq: 0, actor: ADMIN })).rejects.toMatchObject({
      code: 'FORK_POINT_INVALID',
      details: { before: null, after: points[0]!.seq },
    });
    expect(await s.host.listRuns({ limit: 1000 })).toHaveLength(runsBefore);
  });
});

describe('peer reports: undo of the last turn', () => {
  // anthropics/claude-code#55347: /rewind said "the conversation will be forked" but moved the branch pointer of the
  // same session: the original end state vanished from /resume.
  it('anthropics/claude-code#55347: undo continues in a new run; the original stays readable with the undone message', async () => {
    const s = await sandboxHost(chat);
    const run = await conversation(s);
    expect(run.status).toBe('waiting');
    const messagesBefore = await s.storage.messages.list(run.id);
    const eventsBefore = await listRunEvents(s.host, run.id);

    const undo = await s.host.undoLastTurn(run.id, ADMIN);

    expect(undo.run.id).not.toBe(run.id);
    expect(undo.run).toMatchObject({
      status: 'waiting',
      startedBy: ADMIN,
      forkedFrom: { runId: run.id, atSeq: undo.forkedAt },
    });
    expect(undo.originalCancelled).toBe(true);
    const original = await s.host.getRun(run.id, { actor: ADMIN, limit: 1000 });
    expect(original.run.status).toBe('cancelled');
    const lastStatus = original.events.filter((e) => e.type === 'run_status').at(-1)!.data as { reason?: string };
    expect([original.run.abortReason, lastStatus.reason]).toContainEqual(
      expect.stringContaining(`undone: continued in ${undo.run.id}`),
    );
    expect(await s.storage.messages.list(run.id)).toEqual(messagesBefore);
    expect(original.events.slice(0, eventsBefore.length)).toEqual(eventsBefore);
    expect(original.events).toContainEqual(
      expect.objectContaining({ type: 'inbox_queued', data: expect.objectContaining({ text: ASK_2 }) }),
    );
    expect((await s.host.listRuns({ actor: ADMIN, limit: 100 })).map((r) => r.id)).toEqual(
      expect.arrayContaining([run.id, undo.run.id]),
    );
    expect((await forkedOf(s.host, undo.run.id)).forked).toMatchObject({
      fromRunId: run.id,
      atSeq: undo.forkedAt,
      undo: true,
    });
    // No effect undone: the downloader keeps its job.
    expect(s.world.downloads()).toHaveLength(1);
  });

  // NousResearch/hermes-agent#93784: after compaction, /retry and /undo picked an older user row and replayed a stale
  // prompt instead of the last thing the person asked.
  it("NousResearch/hermes-agent#93784: undo takes back the person's last message, word for word, and keeps the earlier one", async () => {
    const s = await sandboxHost(chat);
    const run = await conversation(s);
    const events = await listRunEvents(s.host, run.id);
    const queued = events
      .filter((e) => e.type === 'inbox_queued')
      .map((e) => e.data as { inboxId: string; text: string });
    expect(queued.map((q) => q.text)).toEqual([ASK_1, ASK_2]);
    const appliedLast = events.filter((e) => e.type === 'inbox_applied').at(-1)!.seq;
    const original = await messagesOf(s.storage, run.id);
    const cut = original.findIndex((m) => m.role === 'user' && textOf(m.content) === ASK_2);

    const undo = await s.host.undoLastTurn(run.id, ADMIN);

    expect(undo.undoneMessage).toEqual({ inboxId: queued[1]!.inboxId, text: ASK_2 });
    expect(undo.forkedAt).toBe(await forkPointBefore(s.host, run.id, appliedLast).then((p) => p.seq));
    const forked = await messagesOf(s.storage, undo.run.id);
    expect(forked.slice(0, cut)).toEqual(original.slice(0, cut));
    expect(forked.filter((m) => m.role === 'user').map((m) => textOf(m.content))).toContain(ASK_1);
    expect(JSON.stringify(forked)).not.toContain(ASK_2);
  });

  // NousResearch/hermes-agent#73396: timeline marker rows stored as role=user were taken for the person's turn:
  // /undo removed only the marker and left the real exchange in place.
  it("NousResearch/hermes-agent#73396: undo in a fork skips the runtime note and takes back the person's message", async () => {
    const s = await sandboxHost(chat);
    const run = await conversation(s);
    const one = await s.host.undoLastTurn(run.id, ADMIN);
    const ofOne = await messagesOf(s.storage, one.run.id);
    const lastUser = ofOne.filter((m) => m.role === 'user').at(-1)!;
    expect(textOf(lastUser.content)).not.toBe(ASK_1); // the runtime note about the undone effects comes after it

    const two = await s.host.undoLastTurn(one.run.id, ADMIN);

    expect(two.undoneMessage.text).toBe(ASK_1);
    // The message was copied into the first undo's fork: the new fork is made where it was applied, in the original,
    // and the first undo's fork (not ended) is cancelled.
    expect(two.run.forkedFrom).toEqual({ runId: run.id, atSeq: two.forkedAt });
    expect(two.originalCancelled).toBe(true);
    expect((await s.host.getRun(one.run.id)).run.status).toBe('cancelled');
    const ofTwo = await messagesOf(s.storage, two.run.id);
    expect(JSON.stringify(ofTwo)).not.toContain(ASK_1);
    const cut = ofOne.findIndex((m) => m.role === 'user' && textOf(m.content) === ASK_1);
    expect(ofTwo.slice(0, cut)).toEqual(ofOne.slice(0, cut));
    // Still one job: undoing turns undoes no effect.
    expect(s.world.downloads()).toHaveLength(1);
    expect(handlerCalls(s.world, 'download.submit')).toBe(1);
  });
});
