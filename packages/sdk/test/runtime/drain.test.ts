// host.stop({ drainMs }) in process, on a real SQLite file: a step in flight finishes within drainMs and commits,
// a run waiting between steps is released at once (its lease row cleared, not left to expire), a handler past
// drainMs is aborted and its ledger entry is not `running`; the next host picks every run up at once.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost, type DrainSummary, type RunMiddleware } from '../../src/index';
import type { ModelMessage, ToolResultMessage } from '../../src/models';
import { SqliteStorage } from '../../src/sqlite';
import { ScriptedProvider, type FakeScript } from '../../src/testing';
import { DRAIN_GOAL, drainScript, noteFile, untilAborted, type HandlerGate } from './fixtures/drain-scripts';
import { runEvents, waitForStatus } from './harness';

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop({ drainMs: 0 }).catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const ENDED = ['succeeded', 'failed', 'cancelled', 'budget_exceeded'] as const;

/** A gate the test opens: the handler runs until `open()` (or its signal aborts). */
function testGate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const state = { entered: 0, signal: undefined as AbortSignal | undefined };
  const gate: HandlerGate = {
    entered: (signal) => {
      state.entered++;
      state.signal = signal;
    },
    proceed: (signal) => Promise.race([opened, untilAborted(signal)]),
  };
  return { gate, open, state };
}

function setUp() {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-drain-'));
  dirs.push(dir);
  return { dbFile: join(dir, 'agent.sqlite'), effectsFile: join(dir, 'effects.txt') };
}

/** A host on `dbFile` with a long lease (60 s): a run left leased would wait a minute for the next host. */
async function hostOn(
  dbFile: string,
  effectsFile: string,
  gate: HandlerGate,
  scripts: FakeScript[] = [drainScript],
  runs = {},
  note: { honoursSignal?: boolean } = {},
) {
  const provider = new ScriptedProvider({ scripts });
  const host = createAgentHost({
    storage: new SqliteStorage({ path: dbFile }),
    logger: new ConsoleLogger('silent'),
    model: { provider },
    runs: { pollMs: 5, leaseMs: 60_000, concurrency: 2, ...runs },
  });
  host.capabilities.register(noteFile(effectsFile, gate, note));
  hosts.push(host);
  await host.start();
  await host.grants.create({ action: 'note.file', actor: 'user:admin' });
  return { host, provider };
}

const effectsIn = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

async function stored(dbFile: string, runId: string) {
  const storage = new SqliteStorage({ path: dbFile });
  await storage.migrate();
  try {
    const run = (await storage.runs.get(runId))!;
    const ledger = await storage.ledger.listByRun(runId);
    const messages = (await storage.messages.list(runId)).map((m) => m.message as unknown as ModelMessage);
    return { run, ledger, messages };
  } finally {
    await storage.close();
  }
}

const toolResults = (messages: ModelMessage[]) =>
  messages
    .filter((m): m is ToolResultMessage => m.role === 'tool')
    .map((m) => JSON.parse(m.content as string) as Record<string, unknown>);

describe('host.stop({ drainMs }): a clean drain (real SQLite file)', () => {
  it('mastra-ai/mastra#21193 + temporalio/sdk-python#367: a handler in flight at stop() finishes within drainMs, its step commits, and the next host finishes the run without running it again', async () => {
    const { dbFile, effectsFile } = setUp();
    const { gate, open, state } = testGate();
    const a = await hostOn(dbFile, effectsFile, gate);
    const run = await a.host.startRun({ goal: DRAIN_GOAL, mode: 'plan_only', actor: 'user:admin' });
    await vi.waitFor(() => expect(state.entered).toBe(1), { timeout: 30_000, interval: 5 });

    let summary: DrainSummary | undefined;
    const stopping = a.host.stop({ drainMs: 60_000, onDrained: (s) => (summary = s) });
    // The storage stays open and the handler's signal is not aborted while it drains (mastra#21193: the pool was
    // ended under the step; temporal#367: the activity failed at once despite the grace period).
    expect(state.signal!.aborted).toBe(false);
    open();
    await stopping;
    expect(state.signal!.aborted).toBe(false);
    expect(summary).toMatchObject({ drained: 1, released: 1, aborted: 0 });

    const left = await stored(dbFile, run.id);
    expect(left.run).toMatchObject({ status: 'running', leaseOwner: null, leaseExpiresAt: null });
    expect(left.ledger.map((e) => e.state)).toEqual(['succeeded']);
    // The call's step was committed by the draining host (not recovered by the next one).
    expect(toolResults(left.messages)).toEqual([
      expect.objectContaining({ status: 'succeeded', output: { filed: 1 } }),
    ]);
    expect(toolResults(left.messages)[0]).not.toHaveProperty('recovered');

    const b = await hostOn(dbFile, effectsFile, testGate().gate);
    const done = await waitForStatus(b.host, run.id, [...ENDED], { timeoutMs: 30_000 });
    expect(done.status).toBe('succeeded');
    expect(b.provider.requests).toHaveLength(1); // only the final answer was asked
    expect(effectsIn(effectsFile)).toEqual(['note 1']);
  });

  it("a run waiting between steps is released at once (lease row cleared) while another run's handler still drains", async () => {
    const { dbFile, effectsFile } = setUp();
    const { gate, open, state } = testGate();
    // The waiting run: every call of its turn is refused (by a middleware), so the loop pauses (30 s at most).
    const shelfOff: RunMiddleware = {
      name: 'shelf-off',
      beforeToolCall: (ctx) =>
        ctx.call.name === 'shelf.tidy'
          ? { action: 'refuse', code: 'SHELF_OFF', message: 'the shelf is off limits' }
          : undefined,
    };
    const refused: FakeScript = {
      match: 'tidy the shelf',
      steps: [{ toolCalls: [{ capability: 'shelf.tidy', input: {} }] }],
      finalText: 'The shelf is tidy.',
    };
    const a = await hostOn(dbFile, effectsFile, gate, [drainScript, refused], {
      refusedTurnPauseMs: 600_000,
      middleware: [shelfOff],
    });
    const pausing = await a.host.startRun({ goal: 'tidy the shelf', mode: 'plan_only', actor: 'user:admin' });
    await vi.waitFor(
      async () =>
        expect((await runEvents(a.host, pausing.id)).map((e) => (e.data as { code?: string }).code)).toContain(
          'LOOP_PAUSED',
        ),
      { timeout: 30_000, interval: 5 },
    );
    const inFlight = await a.host.startRun({ goal: DRAIN_GOAL, mode: 'plan_only', actor: 'user:admin' });
    await vi.waitFor(() => expect(state.entered).toBe(1), { timeout: 30_000, interval: 5 });

    let summary: DrainSummary | undefined;
    const stopping = a.host.stop({ drainMs: 60_000, onDrained: (s) => (summary = s) });
    // Released while the other run's handler is still held: the pause (30 s) did not hold the lease until the drain
    // ended (60 s); the wait below gives up before the pause would have ended by itself.
    const probe = new SqliteStorage({ path: dbFile });
    await vi.waitFor(
      async () =>
        expect(await probe.runs.get(pausing.id)).toMatchObject({
          status: 'running',
          leaseOwner: null,
          leaseExpiresAt: null,
        }),
      { timeout: 20_000, interval: 5 },
    );
    expect(state.signal!.aborted).toBe(false);
    expect((await probe.runs.get(inFlight.id))!.leaseOwner).not.toBeNull();
    await probe.close();
    open();
    await stopping;
    expect(summary).toMatchObject({ drained: 2, released: 2, aborted: 0 });

    const b = await hostOn(dbFile, effectsFile, testGate().gate, [drainScript, refused]);
    expect((await waitForStatus(b.host, inFlight.id, [...ENDED], { timeoutMs: 30_000 })).status).toBe('succeeded');
    // The paused run's turn goes on with the next host (its next model call is the final answer).
    expect((await waitForStatus(b.host, pausing.id, [...ENDED], { timeoutMs: 30_000 })).status).toBe('succeeded');
    expect(effectsIn(effectsFile)).toEqual(['note 1']);
  });

  it('aegra/aegra#474: a handler still running at drainMs is aborted, its ledger entry is `unknown` (never `running`), and the run stays resumable: the next host picks it up at once and does not run the effect again', async () => {
    const { dbFile, effectsFile } = setUp();
    const { gate, state } = testGate(); // never opened: the handler runs until its signal aborts
    const a = await hostOn(dbFile, effectsFile, gate);
    const run = await a.host.startRun({ goal: DRAIN_GOAL, mode: 'plan_only', actor: 'user:admin' });
    await vi.waitFor(() => expect(state.entered).toBe(1), { timeout: 30_000, interval: 5 });

    let summary: DrainSummary | undefined;
    await a.host.stop({ drainMs: 50, onDrained: (s) => (summary = s) });
    expect(state.signal!.aborted).toBe(true);
    expect(summary).toMatchObject({ drained: 0, released: 1, aborted: 1 });

    const left = await stored(dbFile, run.id);
    // aegra#474: a shutdown past its drain time finalized the run as interrupted (terminal, never picked up again).
    expect(left.run).toMatchObject({ status: 'running', leaseOwner: null, leaseExpiresAt: null, endedAt: null });
    expect(left.ledger.map((e) => e.state)).toEqual(['unknown']);

    const b = await hostOn(dbFile, effectsFile, testGate().gate);
    const done = await waitForStatus(b.host, run.id, [...ENDED], { timeoutMs: 30_000 });
    expect(done.status).toBe('succeeded');
    const after = await stored(dbFile, run.id);
    // Reconciled from the ledger, not run again: the model is told to verify.
    expect(toolResults(after.messages)).toEqual([
      expect.objectContaining({ status: 'unknown', error: expect.objectContaining({ code: 'OUTCOME_UNKNOWN' }) }),
    ]);
    expect(after.ledger.map((e) => e.state)).toEqual(['unknown']);
    expect(effectsIn(effectsFile)).toEqual([]); // aborted before its effect; never repeated
    expect(state.entered).toBe(1);
  });

  it.each([300, 0])(
    'trial 35 #1 + Yeachan-Heo/gajae-code#3895: a handler that ignores its signal does not hold stop({ drainMs: %i }): the call ends `unknown` at the drain deadline, the summary says aborted (true to it), and the late success is not recorded',
    async (drainMs) => {
      const { dbFile, effectsFile } = setUp();
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      let entered = 0;
      // Ignores its signal: files the note only when the test opens the gate (after the stop), aborted or not.
      const stubbornGate: HandlerGate = { entered: () => void entered++, proceed: () => opened };
      const a = await hostOn(dbFile, effectsFile, stubbornGate, [drainScript], {}, { honoursSignal: false });
      const run = await a.host.startRun({ goal: DRAIN_GOAL, mode: 'plan_only', actor: 'user:admin' });
      await vi.waitFor(() => expect(entered).toBe(1), { timeout: 30_000, interval: 5 });

      let summary: DrainSummary | undefined;
      const t0 = performance.now();
      // Resolves although the handler never returns by itself (its deadline is the default 120 s): the drain ends it.
      await a.host.stop({ drainMs, onDrained: (s) => (summary = s) });
      const stopMs = Math.round(performance.now() - t0);
      expect(summary).toMatchObject({ drained: 0, released: 1, aborted: 1 });
      expect(summary!.ms).toBeGreaterThanOrEqual(drainMs - 1); // it did let the step run on for drainMs
      console.info(
        `ignoring handler: stop({ drainMs: ${drainMs} }) returned after ${stopMs} ms (drain ${summary!.ms} ms)`,
      );

      const left = await stored(dbFile, run.id);
      expect(left.run).toMatchObject({ status: 'running', leaseOwner: null, leaseExpiresAt: null, endedAt: null });
      expect(left.ledger.map((e) => e.state)).toEqual(['unknown']);
      expect(left.ledger[0]!.error).toMatchObject({ code: 'OUTCOME_UNKNOWN' });

      open(); // the handler files its note after all (the effect happened, late)
      await vi.waitFor(() => expect(effectsIn(effectsFile)).toEqual(['note 1']), { timeout: 30_000, interval: 5 });
      expect((await stored(dbFile, run.id)).ledger.map((e) => e.state)).toEqual(['unknown']);

      const b = await hostOn(dbFile, effectsFile, testGate().gate);
      const done = await waitForStatus(b.host, run.id, [...ENDED], { timeoutMs: 30_000 });
      expect(done.status).toBe('succeeded');
      const after = await stored(dbFile, run.id);
      expect(toolResults(after.messages)).toEqual([
        expect.objectContaining({ status: 'unknown', error: expect.objectContaining({ code: 'OUTCOME_UNKNOWN' }) }),
      ]);
      expect(effectsIn(effectsFile)).toEqual(['note 1']); // never run again
      expect(entered).toBe(1);
    },
  );

  it('a second stop({ drainMs: 0 }) while a long drain waits on a handler that ignores its signal ends the drain at once (what the second SIGTERM of stopOnSignals does)', async () => {
    const { dbFile, effectsFile } = setUp();
    let entered = 0;
    const never = new Promise<void>(() => undefined);
    const stubbornGate: HandlerGate = { entered: () => void entered++, proceed: () => never };
    const a = await hostOn(dbFile, effectsFile, stubbornGate, [drainScript], {}, { honoursSignal: false });
    const run = await a.host.startRun({ goal: DRAIN_GOAL, mode: 'plan_only', actor: 'user:admin' });
    await vi.waitFor(() => expect(entered).toBe(1), { timeout: 30_000, interval: 5 });

    let summary: DrainSummary | undefined;
    const first = a.host.stop({ drainMs: 600_000, onDrained: (s) => (summary = s) });
    const second = a.host.stop({ drainMs: 0 });
    await Promise.all([first, second]);
    expect(summary).toMatchObject({ drained: 0, released: 1, aborted: 1 });
    expect(summary!.ms).toBeLessThan(600_000); // cut by the second call, not by the first one's drain
    expect((await stored(dbFile, run.id)).ledger.map((e) => e.state)).toEqual(['unknown']);
  });

  it('a model turn that ends while the host drains starts none of its calls: each is answered HOST_STOPPING and the next host asks the model again', async () => {
    const { dbFile, effectsFile } = setUp();
    const { gate, state } = testGate();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let modelEntered = 0;
    // The first model call is held until the drain began (a provider that answers once the test lets it).
    const provider = new ScriptedProvider({ scripts: [drainScript] });
    const holding = Object.assign(Object.create(Object.getPrototypeOf(provider)), provider) as ScriptedProvider;
    const stream = provider.stream.bind(provider);
    holding.stream = async function* (request, signal) {
      modelEntered++;
      if (modelEntered === 1) await held;
      yield* stream(request, signal);
    } as ScriptedProvider['stream'];
    const host = createAgentHost({
      storage: new SqliteStorage({ path: dbFile }),
      logger: new ConsoleLogger('silent'),
      model: { provider: holding },
      runs: { pollMs: 5, leaseMs: 60_000, concurrency: 1 },
    });
    host.capabilities.register(noteFile(effectsFile, gate));
    hosts.push(host);
    await host.start();
    await host.grants.create({ action: 'note.file', actor: 'user:admin' });
    const run = await host.startRun({ goal: DRAIN_GOAL, mode: 'plan_only', actor: 'user:admin' });
    await vi.waitFor(() => expect(modelEntered).toBe(1), { timeout: 30_000, interval: 5 });
    let summary: DrainSummary | undefined;
    const stopping = host.stop({ drainMs: 60_000, onDrained: (s) => (summary = s) });
    release();
    await stopping;
    expect(summary).toMatchObject({ drained: 1, released: 1, aborted: 0 });
    expect(state.entered).toBe(0);
    const left = await stored(dbFile, run.id);
    expect(left.ledger).toEqual([]);
    expect(toolResults(left.messages)).toEqual([
      expect.objectContaining({ status: 'failed', error: expect.objectContaining({ code: 'HOST_STOPPING' }) }),
    ]);
    expect(left.run).toMatchObject({ status: 'running', leaseOwner: null });
  });

  it('refuses a drainMs that is negative, NaN, infinite or not a number with OPTIONS_INVALID naming stop.drainMs, and stops nothing', async () => {
    const { dbFile, effectsFile } = setUp();
    const { host } = await hostOn(dbFile, effectsFile, testGate().gate);
    for (const drainMs of [-1, Number.NaN, Number.POSITIVE_INFINITY, '8000'])
      await expect(host.stop({ drainMs: drainMs as number })).rejects.toMatchObject({
        code: 'OPTIONS_INVALID',
        details: { option: 'stop.drainMs' },
      });
    await expect(host.stop('now' as never)).rejects.toMatchObject({
      code: 'OPTIONS_INVALID',
      details: { option: 'stop' },
    });
    // Still started: a refused stop changed nothing.
    expect(await host.listRuns()).toEqual([]);
  });
});
