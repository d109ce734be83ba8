// Attacks on the commit window (runtime/loop/deferred-commit.ts, docs/architecture.md#the-commit-window): what a
// new user can see through the public API — event order and seq, fork points, what is durable before a model call
// or a handler runs, a host stop inside the window, the window's bound, option checks — compared, where useful,
// with `runs.commitWindowMs: 0` (every step commits before the next begins).
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  type AgentHost,
  type ModelProvider,
  type RunEvent,
  type RunMiddleware,
  type StorageAdapter,
} from '../../src/index';
import type { ModelEvent, ModelRequest } from '../../src/models';
import { MemoryStorage } from '../../src/storage';
import { ScriptedProvider, type FakeScript } from '../../src/testing';
import { runEvents, waitForStatus } from './harness';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** When each read's handler returned (performance.now()), by title. */
/** When set, the read waits (inside its handler) until this resolves: a read that outlasts the commit window. */
let readGate: ((runId: string) => Promise<unknown>) | undefined;

const lookup = defineCapability({
  id: 'title.lookup',
  version: 1,
  title: 'Look up a title',
  description: 'What the library knows about a title.',
  kind: 'read',
  replay: 'safe',
  input: Type.Object({ title: Type.String() }),
  output: Type.Object({ title: Type.String(), present: Type.Boolean() }),
  handler: async (input, ctx) => {
    if (readGate) await readGate(ctx.runId!);
    return { title: input.title, present: true };
  },
});

/** Effects of the side-effecting capabilities, in order. */
const effects: string[] = [];

const submitNever = defineCapability({
  id: 'download.submit',
  version: 1,
  title: 'Download a title',
  description: 'Adds a download job.',
  kind: 'execute',
  replay: 'never',
  input: Type.Object({ title: Type.String() }),
  output: Type.Object({ jobId: Type.String() }),
  handler: async (input) => {
    effects.push(`submit ${input.title}`);
    return { jobId: `job-${effects.length}` };
  },
});

const noteReconcile = defineCapability({
  id: 'note.write',
  version: 1,
  title: 'Write a note',
  description: 'Writes a note somewhere outside the run.',
  kind: 'execute',
  replay: 'reconcile',
  input: Type.Object({ text: Type.String() }),
  output: Type.Object({ ok: Type.Boolean() }),
  handler: async (input) => {
    effects.push(`note ${input.text}`);
    return { ok: true };
  },
});

const LONG = 'This sentence is long enough to be streamed in more than one piece to the people watching. ';

/** Turn 1: long text + a read; turn 2: long text + a read; final reply (long). */
const twoReads: FakeScript = {
  match: 'look',
  steps: [
    { text: `${LONG}Dune. `, toolCalls: [{ capability: 'title.lookup', input: { title: 'Dune' } }] },
    { text: `${LONG}Alien. `, toolCalls: [{ capability: 'title.lookup', input: { title: 'Alien' } }] },
  ],
  finalText: `${LONG}Both are there.`,
};

/**
 * Wraps a provider: `before(n)` runs before the n-th call (1-based) streams; `warn(n)` makes the call yield a provider
 * warning first; `fail(n)` makes the call fail before any output with a fallback-worthy error.
 */
class Hooked implements ModelProvider {
  calls = 0;
  constructor(
    readonly inner: ModelProvider,
    readonly opts: {
      id?: string;
      before?: (n: number, request: ModelRequest) => Promise<void> | void;
      warn?: (n: number) => boolean;
      fail?: (n: number) => boolean;
    } = {},
  ) {}
  get id(): string {
    return this.opts.id ?? 'hooked';
  }
  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncGenerator<ModelEvent> {
    const n = ++this.calls;
    await this.opts.before?.(n, request);
    if (this.opts.fail?.(n)) {
      yield {
        type: 'error',
        error: Object.assign(new Error('overloaded'), { code: 'PROVIDER_UNAVAILABLE' }),
      } as ModelEvent;
      return;
    }
    if (this.opts.warn?.(n))
      yield { type: 'warning', warning: { code: 'PROVIDER_FIELDS_DROPPED', message: `dropped in call ${n}` } };
    yield* this.inner.stream(request, signal);
  }
}

function makeHost(
  provider: ModelProvider,
  options: {
    storage?: StorageAdapter;
    commitWindowMs?: number;
    middleware?: RunMiddleware[];
    fallbacks?: ModelProvider[];
    spending?: unknown;
    identity?: unknown;
    runs?: Record<string, unknown>;
  } = {},
): AgentHost {
  const h = createAgentHost({
    storage: options.storage ?? new MemoryStorage(),
    logger: new ConsoleLogger('silent'),
    model: {
      provider,
      model: 'scripted',
      ...(options.fallbacks
        ? { fallbacks: options.fallbacks.map((p, i) => ({ provider: p, model: `scripted-fb-${i}` })) }
        : {}),
    },
    ...(options.identity ? { identity: options.identity as never } : {}),
    runs: {
      pollMs: 5,
      concurrency: 1,
      ...(options.commitWindowMs !== undefined ? { commitWindowMs: options.commitWindowMs } : {}),
      ...(options.middleware ? { middleware: options.middleware } : {}),
      ...(options.spending ? { spending: options.spending as never } : {}),
      ...(options.runs ?? {}),
    },
  });
  h.capabilities.register(lookup);
  h.capabilities.register(submitNever);
  h.capabilities.register(noteReconcile);
  hosts.push(h);
  return h;
}

/** The storage as the host sees it, except that the host's stop does not close it (read it afterwards). */
function outlivingHost(inner: MemoryStorage): MemoryStorage {
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'close') return async () => undefined;
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** What a subscriber would compare: each event's type, and the tool call phase / run status it carries. */
function shape(events: ReadonlyArray<{ type: string; data: unknown }>): string[] {
  return events.map((e) => {
    const d = e.data as Record<string, unknown> | null;
    if (e.type === 'tool_call') return `tool_call:${String(d?.phase)}`;
    if (e.type === 'run_status') return `run_status:${String(d?.status)}`;
    if (e.type === 'warning') return `warning:${String(d?.code)}`;
    if (e.type === 'text_delta') return `text_delta:${String(d?.text).length}`;
    return e.type;
  });
}

/** Every event of the run, read through the public subscription (`host.events`), until the run ends. */
async function subscribed(h: AgentHost, runId: string): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  for await (const e of h.events({ runId, pollMs: 5 })) out.push(e as RunEvent);
  return out;
}

async function runOnce(
  window: number | undefined,
  providerOpts: ConstructorParameters<typeof Hooked>[1] = {},
  extra: { fallbacks?: boolean } = {},
) {
  const provider = new Hooked(new ScriptedProvider({ scripts: twoReads }), providerOpts);
  const fallbacks = extra.fallbacks
    ? [new Hooked(new ScriptedProvider({ scripts: twoReads }), { id: 'scripted-fallback' })]
    : undefined;
  const h = makeHost(provider, { commitWindowMs: window, ...(fallbacks ? { fallbacks } : {}) });
  await h.start();
  const run = await h.startRun({ goal: 'look up two titles', mode: 'plan_only', actor: 'user:admin' });
  const seen = subscribed(h, run.id);
  const done = await waitForStatus(h, run.id, ['succeeded', 'failed', 'cancelled']);
  const live = await seen;
  const stored = await runEvents(h, run.id);
  const points = await h.listForkPoints(run.id, { actor: 'user:admin' });
  await h.stop();
  return { done, live, stored, points };
}

describe('commit window: option checks', () => {
  for (const bad of [-1, Number.NaN, '50', Number.POSITIVE_INFINITY, null]) {
    it(`runs.commitWindowMs ${String(bad)} (${typeof bad}) is refused with OPTIONS_INVALID`, () => {
      let thrown: unknown;
      try {
        createAgentHost({
          storage: new MemoryStorage(),
          logger: new ConsoleLogger('silent'),
          model: { provider: new ScriptedProvider(), model: 'scripted' },
          runs: { commitWindowMs: bad as never },
        });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({ code: 'OPTIONS_INVALID' });
    });
  }

  it('runs.commitWindowMs 0 is accepted', () => {
    expect(() =>
      createAgentHost({
        storage: new MemoryStorage(),
        logger: new ConsoleLogger('silent'),
        model: { provider: new ScriptedProvider(), model: 'scripted' },
        runs: { commitWindowMs: 0 },
      }),
    ).not.toThrow();
  });

  // Node's setTimeout takes at most 2^31-1 ms; a longer delay would be replaced with 1 ms (TimeoutOverflowWarning).
  it('a window beyond the setTimeout range (2^31+10 ms) is refused OPTIONS_INVALID', () => {
    expect(() => makeHost(new ScriptedProvider({ scripts: twoReads }), { commitWindowMs: 2 ** 31 + 10 })).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID', details: { option: 'runs.commitWindowMs' } }),
    );
    expect(() => makeHost(new ScriptedProvider({ scripts: twoReads }), { commitWindowMs: 2 ** 31 - 1 })).not.toThrow();
  });
});

describe('commit window: event order, seq, fork points (vs commitWindowMs: 0)', () => {
  it('streamed text + a provider warning: same events in the same order, seq 1..n with no gap, same fork points', async () => {
    const warn = (n: number) => n === 2;
    const zero = await runOnce(0, { warn });
    const big = await runOnce(60_000, { warn });
    const dflt = await runOnce(undefined, { warn });
    for (const r of [zero, big, dflt]) {
      expect(r.done.status).toBe('succeeded');
      expect(r.live.map((e) => e.seq)).toEqual(r.live.map((_, i) => i + 1));
      expect(r.live.map((e) => e.seq)).toEqual(r.stored.map((e) => e.seq));
      expect(r.live.some((e) => e.type === 'text_delta')).toBe(true);
      expect(r.live.some((e) => e.type === 'warning')).toBe(true);
    }
    expect(shape(big.live)).toEqual(shape(zero.live));
    expect(shape(dflt.live)).toEqual(shape(zero.live));
    const pts = (r: typeof zero) => r.points.map((p) => ({ seq: p.seq, label: p.label, messages: p.messageCount }));
    expect(pts(big)).toEqual(pts(zero));
    expect(pts(dflt)).toEqual(pts(zero));
  });

  it('a model fallback mid-run: the model_fallback event keeps its place, seq gap-free, same fork points', async () => {
    const fail = (n: number) => n === 2;
    const zero = await runOnce(0, { fail }, { fallbacks: true });
    const big = await runOnce(60_000, { fail }, { fallbacks: true });
    for (const r of [zero, big]) {
      expect(r.done.status).toBe('succeeded');
      expect(r.live.map((e) => e.seq)).toEqual(r.live.map((_, i) => i + 1));
      expect(r.live.some((e) => e.type === 'model_fallback')).toBe(true);
    }
    expect(shape(big.live)).toEqual(shape(zero.live));
    const pts = (r: typeof zero) => r.points.map((p) => ({ seq: p.seq, label: p.label, messages: p.messageCount }));
    expect(pts(big)).toEqual(pts(zero));
  });

  it('forking at every fork point of a grouped-commit run gives the same conversation prefix as with window 0', async () => {
    const zero = await runOnce(0);
    const big = await runOnce(60_000);
    expect(big.points.length).toBeGreaterThan(2);
    expect(big.points.map((p) => [p.seq, p.messageCount])).toEqual(zero.points.map((p) => [p.seq, p.messageCount]));
  });
});

describe('commit window: steering messages mid-run', () => {
  // The person sends a message while the second model call runs, i.e. after the first read returned. With window 0
  // the read's result (and its tool_call succeeded event) is committed before the model call, so the inbox_queued
  // event follows it. Inside the window those writes still wait, so the inbox_queued event — written by
  // appendToInbox in its own transaction (run-service.ts), with no flush of what waits — takes a seq before them:
  // subscribers see the message queued before the first turn's tool_call started/succeeded, i.e. before the read it
  // was sent after. Observed with the default window:
  // queued, running, inbox_queued, tool_call:started, tool_call:succeeded, tool_call:started, ...
  async function messageDuringCall2(window: number | undefined) {
    const storage = new MemoryStorage();
    let h!: AgentHost;
    let runId = '';
    const provider = new Hooked(new ScriptedProvider({ scripts: twoReads }), {
      before: async (n) => {
        if (n === 2) await h.appendToInbox(runId, 'also check Aliens please', 'user:admin');
      },
    });
    h = makeHost(provider, { storage, commitWindowMs: window });
    await h.start();
    const run = await h.startRun({ goal: 'look up two titles', mode: 'plan_only', actor: 'user:admin' });
    runId = run.id;
    await waitForStatus(h, run.id, ['succeeded', 'failed', 'waiting']);
    const events = await runEvents(h, run.id);
    const s = shape(events);
    return { s, events };
  }

  it('window 0: inbox_queued comes after the read it was sent after', async () => {
    const { s, events } = await messageDuringCall2(0);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(s.indexOf('inbox_queued')).toBeGreaterThan(s.indexOf('tool_call:succeeded'));
  });

  // A steering message is stored by the host, outside the loop, in a transaction of its own: the run's events are
  // in the order they were stored, so its `inbox_queued` may come before the events of steps still waiting in the
  // window (docs/architecture.md#the-commit-window). It is applied after them, at the next model turn.
  it('default window (50 ms): inbox_queued is ordered by when it was stored; the message is applied after the read', async () => {
    const { s, events } = await messageDuringCall2(undefined);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(s.indexOf('inbox_applied')).toBeGreaterThan(s.indexOf('tool_call:succeeded'));
  });
});

describe('commit window: what is durable before the next model call / handler', () => {
  async function durableAtCall2(script: FakeScript, window: number | undefined) {
    effects.length = 0;
    const storage = new MemoryStorage();
    let runId = '';
    const seen: { roles: string[]; ledger: string[]; effects: string[] } = { roles: [], ledger: [], effects: [] };
    const provider = new Hooked(new ScriptedProvider({ scripts: script }), {
      before: async (n) => {
        if (n !== 2) return;
        seen.roles = (await storage.messages.list(runId)).map((m) => (m.message as { role: string }).role);
        seen.ledger = (await storage.ledger.listByRun(runId)).map((e) => `${e.capabilityId}:${e.state}`);
        seen.effects = [...effects];
      },
    });
    const h = makeHost(provider, { storage, commitWindowMs: window });
    await h.start();
    await h.grants.create({ action: 'download.submit', actor: 'user:admin' });
    await h.grants.create({ action: 'note.write', actor: 'user:admin' });
    const run = await h.startRun({ goal: script.match as string, mode: 'execute', actor: 'user:admin' });
    runId = run.id;
    const done = await waitForStatus(h, run.id, ['succeeded', 'failed', 'waiting', 'cancelled']);
    return { seen, done, calls: provider.calls };
  }

  for (const [name, cap, input] of [
    ['never', 'download.submit', { title: 'Dune' }],
    ['reconcile', 'note.write', { text: 'hello' }],
  ] as const) {
    for (const order of ['alone', 'read first', 'read after'] as const) {
      it(`a replay '${name}' call (${order}): its result and settlement are committed before the next model call (default window)`, async () => {
        const calls =
          order === 'alone'
            ? [{ capability: cap, input }]
            : order === 'read first'
              ? [
                  { capability: 'title.lookup', input: { title: 'Dune' } },
                  { capability: cap, input },
                ]
              : [
                  { capability: cap, input },
                  { capability: 'title.lookup', input: { title: 'Dune' } },
                ];
        const script: FakeScript = { match: `settle-${name}-${order}`, steps: [{ text: 'go', toolCalls: calls }] };
        const { seen, done, calls: modelCalls } = await durableAtCall2(script, undefined);
        expect(done.status).toBe('succeeded');
        expect(modelCalls).toBeGreaterThanOrEqual(2);
        // The result of the call that may not run again (and of every call before it) is stored — a read after it may
        // still wait through the model call, which the docs allow — and no ledger entry is left running.
        const upTo = calls.findIndex((c) => c.capability === cap) + 1;
        expect(seen.roles.filter((r) => r === 'tool').length).toBeGreaterThanOrEqual(upTo);
        expect(seen.ledger.filter((l) => l.endsWith(':running'))).toEqual([]);
        expect(seen.ledger.some((l) => l.startsWith(cap))).toBe(true);
      });
    }
  }

  it('a read result that waited through a model call is committed before the next handler (a never-call) runs', async () => {
    effects.length = 0;
    const storage = new MemoryStorage();
    let runId = '';
    let rolesAtHandler: string[] = [];
    const probe = defineCapability({
      id: 'probe.execute',
      version: 1,
      title: 'Probe',
      description: 'An effect that looks at what is stored when it runs.',
      kind: 'execute',
      replay: 'never',
      input: Type.Object({}),
      output: Type.Object({ ok: Type.Boolean() }),
      handler: async () => {
        rolesAtHandler = (await storage.messages.list(runId)).map((m) => (m.message as { role: string }).role);
        return { ok: true };
      },
    });
    const script: FakeScript = {
      match: 'probe',
      steps: [
        { text: 'read', toolCalls: [{ capability: 'title.lookup', input: { title: 'Dune' } }] },
        { text: 'act', toolCalls: [{ capability: 'probe.execute', input: {} }] },
      ],
      finalText: 'done',
    };
    const h = makeHost(new ScriptedProvider({ scripts: script }), { storage, commitWindowMs: 60_000 });
    h.capabilities.register(probe);
    await h.start();
    await h.grants.create({ action: 'probe.execute', actor: 'user:admin' });
    const run = await h.startRun({ goal: 'probe', mode: 'execute', actor: 'user:admin' });
    runId = run.id;
    expect((await waitForStatus(h, run.id, ['succeeded', 'failed', 'waiting'])).status).not.toBe('failed');
    // user, turn 1, read result, turn 2 (its claim carried it): all before the handler.
    expect(rolesAtHandler).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });
});

describe('commit window: runs caps', () => {
  it('with a runs cap, the start (and its charge) is committed before the first model call', async () => {
    const storage = new MemoryStorage();
    let runId = '';
    let statusAtCall1 = '';
    let eventsAtCall1: string[] = [];
    const provider = new Hooked(new ScriptedProvider({ scripts: twoReads }), {
      before: async (n) => {
        if (n !== 1) return;
        statusAtCall1 = (await storage.runs.get(runId))!.status;
        eventsAtCall1 = shape(await storage.events.listByRun(runId));
      },
    });
    const h = makeHost(provider, {
      storage,
      commitWindowMs: 60_000,
      spending: { people: { 'user:admin': { day: { runs: 5 } } } },
    });
    await h.start();
    const run = await h.startRun({ goal: 'look up two titles', mode: 'plan_only', actor: 'user:admin' });
    runId = run.id;
    expect((await waitForStatus(h, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    expect(statusAtCall1).toBe('running');
    expect(eventsAtCall1).toContain('run_status:running');
  });

  it('a runs cap already used up: no model call is made, the run waits budget_reached', async () => {
    const storage = new MemoryStorage();
    const provider = new Hooked(new ScriptedProvider({ scripts: twoReads }));
    const h = makeHost(provider, {
      storage,
      commitWindowMs: 60_000,
      spending: { people: { 'user:admin': { day: { runs: 1 } } } },
    });
    await h.start();
    const first = await h.startRun({ goal: 'look up two titles', mode: 'plan_only', actor: 'user:admin' });
    expect((await waitForStatus(h, first.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    const callsBefore = provider.calls;
    const second = await h.startRun({ goal: 'look up two titles', mode: 'plan_only', actor: 'user:admin' });
    const held = await waitForStatus(h, second.id, ['waiting', 'succeeded', 'failed']);
    expect(held.status).toBe('waiting');
    expect(provider.calls).toBe(callsBefore);
  });
});

describe('commit window: host stop inside the window', () => {
  /** Stops the host (drainMs given) while the 2nd model call runs; what the first turn and its read stored. */
  async function stopDuringCall2(window: number, drainMs: number) {
    const storage = outlivingHost(new MemoryStorage());
    let h!: AgentHost;
    let runId = '';
    let stopped: Promise<void> | undefined;
    const provider = new Hooked(new ScriptedProvider({ scripts: twoReads }), {
      before: async (n) => {
        if (n !== 2) return;
        stopped = h.stop({ drainMs });
        await sleep(drainMs + 20);
      },
    });
    h = makeHost(provider, { storage, commitWindowMs: window });
    await h.start();
    const run = await h.startRun({ goal: 'look up two titles', mode: 'plan_only', actor: 'user:admin' });
    runId = run.id;
    for (let i = 0; i < 200 && !stopped; i++) await sleep(5);
    await stopped;
    const roles = (await storage.messages.list(runId)).map((m) => (m.message as { role: string }).role);
    const events = shape(await storage.events.listByRun(runId));
    return { roles, events };
  }

  for (const drainMs of [0, 1000]) {
    it(`host.stop({ drainMs: ${drainMs} }) while writes wait through a model call: the finished steps are kept (as with window 0)`, async () => {
      const zero = await stopDuringCall2(0, drainMs);
      const big = await stopDuringCall2(60_000, drainMs);
      expect(zero.roles.slice(0, 3)).toEqual(['user', 'assistant', 'tool']);
      expect(big.roles.slice(0, 3)).toEqual(['user', 'assistant', 'tool']);
      expect(big.events.filter((e) => e.startsWith('tool_call'))).toEqual(
        zero.events
          .filter((e) => e.startsWith('tool_call'))
          .slice(0, big.events.filter((e) => e.startsWith('tool_call')).length),
      );
    });
  }
});

describe('commit window: the bound (each slow step waits until what waits is stored: never past the window)', () => {
  /**
   * Polls storage (a poll of the state, no fixed wait) until the run's event matching `pred` is stored, for at most
   * `capMs`: true when it was stored while the caller still waited — committed by the window's timer, not by the end
   * of the caller's own slow work.
   */
  async function seenWhileWaiting(
    storage: StorageAdapter,
    runId: string,
    pred: (s: string) => boolean,
    capMs = 10_000,
  ): Promise<boolean> {
    const until = performance.now() + capMs;
    while (performance.now() < until) {
      if (shape(await storage.events.listByRun(runId)).some(pred)) return true;
      await sleep(2);
    }
    return false;
  }

  it('slow model call: the read result before it is stored while the call still runs', async () => {
    const storage = new MemoryStorage();
    let seen: boolean | undefined;
    let runId = '';
    const provider = new Hooked(new ScriptedProvider({ scripts: twoReads }), {
      before: async (n) => {
        if (n === 2) seen = await seenWhileWaiting(storage, runId, (s) => s === 'tool_call:succeeded');
      },
    });
    const h = makeHost(provider, { storage, commitWindowMs: 50 });
    await h.start();
    const run = await h.startRun({ goal: 'look up two titles', mode: 'plan_only', actor: 'user:admin' });
    runId = run.id;
    expect((await waitForStatus(h, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    expect(seen).toBe(true);
  });

  it('slow read: the turn that opened it is stored while the read still runs', async () => {
    const storage = new MemoryStorage();
    let seen: boolean | undefined;
    readGate = async (runId) => {
      seen ??= await seenWhileWaiting(storage, runId, (s) => s === 'tool_call:started');
    };
    try {
      const h = makeHost(new ScriptedProvider({ scripts: twoReads }), { storage, commitWindowMs: 50 });
      await h.start();
      const run = await h.startRun({ goal: 'look up two titles', mode: 'plan_only', actor: 'user:admin' });
      expect((await waitForStatus(h, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
      expect(seen).toBe(true);
    } finally {
      readGate = undefined;
    }
  });

  // A host middleware whose beforeModelRequest is slow (a remote policy check, a retrieval step): the read result set
  // aside by the step before waits through it under the window's timer (before the fix it waited until the hook
  // returned: ~400 ms with a 50 ms window).
  it('slow beforeModelRequest middleware: the read result is stored while the hook still runs', async () => {
    const storage = new MemoryStorage();
    let runId = '';
    let requests = 0;
    let seen: boolean | undefined;
    const mw: RunMiddleware = {
      name: 'slow-policy',
      beforeModelRequest: async () => {
        if (++requests === 2) seen = await seenWhileWaiting(storage, runId, (s) => s === 'tool_call:succeeded');
      },
    };
    const h = makeHost(new ScriptedProvider({ scripts: twoReads }), { storage, commitWindowMs: 50, middleware: [mw] });
    await h.start();
    const run = await h.startRun({ goal: 'look up two titles', mode: 'plan_only', actor: 'user:admin' });
    runId = run.id;
    expect((await waitForStatus(h, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    expect(seen).toBe(true);
  });

  it('slow afterToolCall middleware: the turn that opened the read is stored while the hook still runs', async () => {
    const storage = new MemoryStorage();
    let runId = '';
    let seen: boolean | undefined;
    const mw: RunMiddleware = {
      name: 'slow-annotate',
      afterToolCall: async () => {
        seen ??= await seenWhileWaiting(storage, runId, (s) => s === 'tool_call:started');
      },
    };
    const h = makeHost(new ScriptedProvider({ scripts: twoReads }), { storage, commitWindowMs: 50, middleware: [mw] });
    await h.start();
    const run = await h.startRun({ goal: 'look up two titles', mode: 'plan_only', actor: 'user:admin' });
    runId = run.id;
    expect((await waitForStatus(h, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    expect(seen).toBe(true);
  });

  // The runtime's own compaction summarises older messages with a model call made inside beforeModelRequest
  // (runtime-middleware.ts `summarize`): the same wait, with no host middleware at all.
  it('a compaction summary call before the next turn: the read result is stored while the summary call runs', async () => {
    const storage = new MemoryStorage();
    let runId = '';
    let summaries = 0;
    let seen: boolean | undefined;
    const provider = new Hooked(new ScriptedProvider({ scripts: twoReads }), {
      before: async (_n, request) => {
        // A summary request carries no tools.
        if (!request.tools || request.tools.length === 0) {
          summaries++;
          seen ??= await seenWhileWaiting(storage, runId, (s) => s === 'tool_call:succeeded');
        }
      },
    });
    const h = makeHost(provider, {
      storage,
      commitWindowMs: 50,
      runs: { contextWindowTokens: 3000, compactionThreshold: 0.05 },
    });
    await h.start();
    const run = await h.startRun({ goal: 'look up two titles', mode: 'plan_only', actor: 'user:admin' });
    runId = run.id;
    await waitForStatus(h, run.id, ['succeeded', 'failed']);
    expect(summaries).toBeGreaterThan(0);
    expect(seen).toBe(true);
  });
});

describe('commit window: a run resuming from a spending hold', () => {
  // A run held at a spending cap in its drive resumes when the cap is raised: its `running` status is the start's
  // write, set aside (the start changes nothing outside the run); the first model call's reservation then resolves
  // the open budget_reached decision and writes `decision.updated` in a transaction of its own (spend-step.ts
  // resolveBudgetDecisions), without flushing what waits. With window 0 the `running` status is committed first.
  async function resume(window: number | undefined) {
    const h = makeHost(new ScriptedProvider({ scripts: twoReads }), {
      commitWindowMs: window,
      spending: { people: { 'user:admin': { day: { modelCalls: 1 } } } },
    });
    await h.start();
    const run = await h.startRun({ goal: 'look up two titles', mode: 'plan_only', actor: 'user:admin' });
    expect((await waitForStatus(h, run.id, ['waiting', 'succeeded', 'failed'])).status).toBe('waiting');
    const heldAt = (await runEvents(h, run.id)).length;
    await h.budgets.update('user:admin', { people: { 'user:admin': { day: { modelCalls: 50 } } } });
    expect((await waitForStatus(h, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    const after = shape((await runEvents(h, run.id)).slice(heldAt));
    return after;
  }

  it('window 0: the run is running again before its budget decision is resolved', async () => {
    const after = await resume(0);
    expect(after.indexOf('decision.updated')).toBeGreaterThan(after.indexOf('run_status:running'));
  });

  it('default window (50 ms): decision.updated is ordered before the run_status running it follows', async () => {
    const after = await resume(undefined);
    expect(after.indexOf('decision.updated')).toBeGreaterThan(after.indexOf('run_status:running'));
  });
});
