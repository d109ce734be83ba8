/**
 * Attacks on how `host.stop()` ends `host.events()` subscriptions and on `linkedSignal`, by a fresh reviewer: events a
 * subscription already held when the host stopped (a page read, events published to it) are still delivered; a run
 * whose end was delivered ends, others fail `HOST_STOPPED`; slots, tickets and stop-signal listeners are given back in
 * every way a subscription ends; `waitForRunStatus` fails `HOST_STOPPED`, not `STORAGE_CLOSED`. Real stores (memory, a
 * SQLite file, PostgreSQL when it answers); no sleeps: `setImmediate` or events.
 *
 * Public reports of the same kind: nats-io/nats.js#134 and holepunchto/hyperbee#165 (iterators left waiting after
 * close), KurrentDB/KurrentDB#5672 (a server-side stop must end the stream with an actionable status), nodejs/node#55351
 * (`AbortSignal.any` keeps combined signals attached to a long-lived source).
 */
import { getEventListeners } from 'node:events';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createAgentHost, ConsoleLogger, type AgentHost } from '../../src/index';
import type { StorageAdapter } from '../../src/ports/storage-adapter';
import { linkedSignal } from '../../src/core/linked-signal';
import { waitForRunStatus } from '../../src/testing';
import { runRecord } from '../storage/run-record';
import { eventStores } from './event-stores';
import { openStream, serveHousehold, SseClient, type Household } from '../http/household-server';
import { closeAdmin, dropSchema, freshSchemaName, PG_AVAILABLE, pgStorage } from '../storage/postgres-available';

type Kind = 'memory' | 'sqlite' | 'postgres';
const kinds: Kind[] = PG_AVAILABLE ? ['memory', 'sqlite', 'postgres'] : ['memory', 'sqlite'];

const hosts: AgentHost[] = [];
const schemas: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const s of schemas.splice(0)) await dropSchema(s).catch(() => undefined);
});
afterAll(async () => {
  if (PG_AVAILABLE) await closeAdmin();
});

async function store(kind: Kind): Promise<StorageAdapter> {
  if (kind === 'postgres') {
    const schema = freshSchemaName('ma_attack_stop');
    schemas.push(schema);
    const s = pgStorage(schema);
    await s.migrate();
    return s;
  }
  return (await eventStores(kind)).storage;
}

async function startedHost(kind: Kind, options: Record<string, unknown> = {}) {
  const storage = await store(kind);
  const roles = new Map<string, 'admin' | 'user'>([['user:admin', 'admin']]);
  const host = createAgentHost({
    storage,
    logger: new ConsoleLogger('silent'),
    identity: { roleOf: (actor: string) => roles.get(actor) ?? 'user' },
    ...options,
  });
  await host.start({ workers: false });
  hosts.push(host);
  await storage.runs.insert(runRecord('run_open', { status: 'running', startedBy: 'user:bob' }));
  return { host, storage };
}

/**
 * Replaces `target[method]` by one that waits at a gate before calling the original: `inRead` resolves when a call
 * reached the gate, `release()` lets every call through.
 */
function gateMethod<T extends object, K extends keyof T>(target: T, method: K) {
  const original = (target[method] as (...args: unknown[]) => Promise<unknown>).bind(target);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const inRead = new Promise<void>((r) => (entered = r));
  target[method] = (async (...args: unknown[]) => {
    entered();
    await gate;
    return original(...args);
  }) as T[K];
  return { inRead, release };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const settleMany = async (n = 5) => {
  for (let i = 0; i < n; i++) await settle();
};

type Ended = { events: { type: string; data?: unknown }[]; end: string };
function consume(iterable: AsyncIterable<unknown>, body?: (e: unknown) => Promise<void> | void): Promise<Ended> {
  const events: Ended['events'] = [];
  return (async () => {
    try {
      for await (const e of iterable) {
        events.push(e as Ended['events'][number]);
        await body?.(e);
      }
      return { events, end: 'done' };
    } catch (error) {
      return { events, end: String((error as { code?: string }).code ?? error) };
    }
  })();
}
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: { code?: string }) => String(e?.code ?? e),
  );
const stopListeners = (host: AgentHost) => getEventListeners(host.stopSignal, 'abort').length;
const statusOf = (e: { type: string; data?: unknown }) =>
  e.type === 'run_status' ? (e.data as { status: string }).status : undefined;

describe.each<Kind>(kinds)('host.stop() vs host.events() (%s)', (kind) => {
  it('subscriptions created but never iterated before stop fail HOST_STOPPED when iterated afterwards (no hang)', async () => {
    const { host } = await startedHost(kind);
    const all = host.events({ pollMs: 3_600_000 });
    const one = host.events({ runId: 'run_open', pollMs: 3_600_000 });
    const person = host.events({ actor: 'user:admin', pollMs: 3_600_000 });
    await host.stop();
    expect((await consume(all)).end).toBe('HOST_STOPPED');
    expect((await consume(one)).end).toBe('HOST_STOPPED');
    expect((await consume(person)).end).toBe('HOST_STOPPED');
  });

  it('a caller-aborted, never-iterated subscription ends quietly after stop', async () => {
    const { host } = await startedHost(kind);
    const caller = new AbortController();
    const one = host.events({ runId: 'run_open', signal: caller.signal });
    caller.abort();
    await host.stop();
    expect((await consume(one)).end).toBe('done');
  });

  it('break out early, then stop: stop resolves and nothing is left on stopSignal', async () => {
    const { host, storage } = await startedHost(kind);
    await storage.events.append({ runId: 'run_open', type: 'run_status', at: 1, data: { status: 'running' } });
    const base = stopListeners(host);
    for await (const _ of host.events({ runId: 'run_open', pollMs: 3_600_000 })) break;
    for await (const _ of host.events({ actor: 'user:admin', pollMs: 3_600_000 })) break;
    expect(stopListeners(host)).toBe(base);
    await host.stop();
  });

  it('.return() queued behind a pending next(): stop settles both (HOST_STOPPED, then done)', async () => {
    const { host } = await startedHost(kind);
    const it1 = host.events({ pollMs: 3_600_000 })[Symbol.asyncIterator]();
    const it2 = host.events({ runId: 'run_open', pollMs: 3_600_000 })[Symbol.asyncIterator]();
    const n1 = codeOf(it1.next());
    const n2 = codeOf(it2.next());
    await settle();
    const r1 = it1.return!();
    const r2 = it2.return!();
    await host.stop();
    expect(await n1).toBe('HOST_STOPPED');
    expect(await n2).toBe('HOST_STOPPED');
    expect(await r1).toEqual({ done: true, value: undefined });
    expect(await r2).toEqual({ done: true, value: undefined });
  });

  it('stop() while a subscription is inside a storage read ends it HOST_STOPPED (gated read)', async () => {
    const { host, storage } = await startedHost(kind);
    const { inRead, release } = gateMethod(storage.events, 'listByRun');
    const one = consume(host.events({ runId: 'run_open', pollMs: 3_600_000 }));
    await inRead;
    const stopped = host.stop();
    await stopped; // stop does not wait for the subscription
    release();
    expect((await one).end).toBe('HOST_STOPPED');
  });

  it('many short-poll subscriptions (reads in flight) all end HOST_STOPPED at stop', async () => {
    const { host } = await startedHost(kind);
    const subs = Array.from({ length: 10 }, (_, i) =>
      consume(host.events(i % 2 ? { pollMs: 1 } : { runId: 'run_open', pollMs: 1 })),
    );
    const person = consume(host.events({ actor: 'user:admin', pollMs: 1 }));
    await settleMany(3);
    await host.stop();
    for (const s of subs) expect((await s).end).toBe('HOST_STOPPED');
    expect((await person).end).toBe('HOST_STOPPED');
  });

  it('an actor subscription iterated when the host stops gives its slot/ticket back', async () => {
    const { host } = await startedHost(kind, { limits: { streamsPerActor: 1 } });
    const sub = consume(host.events({ actor: 'user:bob', pollMs: 3_600_000 }));
    await settle();
    expect(() => host.events({ actor: 'user:bob' })).toThrow(expect.objectContaining({ code: 'STREAM_LIMIT_REACHED' }));
    await host.stop();
    expect((await sub).end).toBe('HOST_STOPPED');
    expect(host.identityChanged('user:bob')).toBe(0);
  });

  it('an actor subscription never iterated gives its slot/ticket back when the host stops', async () => {
    const { host } = await startedHost(kind);
    host.events({ actor: 'user:bob', pollMs: 3_600_000 }); // dropped by its caller, never iterated
    expect(host.identityChanged('user:bob')).toBe(1);
    await host.stop();
    // Expected: stop ends every subscription, so nothing remains registered for bob.
    expect(host.identityChanged('user:bob')).toBe(0);
  });

  it('a run cancelled, then the host stopped: the parked subscriber still gets the cancelled status', async () => {
    const { host } = await startedHost(kind);
    const one = consume(host.events({ runId: 'run_open', pollMs: 3_600_000 }));
    await settle();
    await host.abort('run_open', 'done with it'); // committed and published before stop() is called
    await host.stop();
    const got = await one;
    expect(got.events.map(statusOf)).toContain('cancelled');
  });

  it('slow consumer: a terminal event published (in its feed) before stop is still delivered', async () => {
    const { host, storage } = await startedHost(kind);
    await storage.events.append({ runId: 'run_open', type: 'run_status', at: 1, data: { status: 'running' } });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let first!: () => void;
    const gotFirst = new Promise<void>((r) => (first = r));
    const one = consume(host.events({ runId: 'run_open', pollMs: 3_600_000 }), async () => {
      first();
      await gate;
    });
    await gotFirst;
    await host.abort('run_open'); // published into the subscription's feed while the consumer is busy
    await host.stop();
    release();
    const got = await one;
    expect(got.events.map(statusOf)).toEqual(['running', 'cancelled']);
  });

  it('a page already read from the store keeps its terminal event when stop lands mid-page', async () => {
    const { host, storage } = await startedHost(kind);
    await storage.runs.patch('run_open', { status: 'succeeded' });
    for (const status of ['running', 'waiting', 'succeeded'])
      await storage.events.append({ runId: 'run_open', type: 'run_status', at: 1, data: { status } });
    let stopped: Promise<void> | undefined;
    const one = consume(host.events({ runId: 'run_open', pollMs: 3_600_000 }), async () => {
      stopped ??= host.stop(); // e.g. SIGTERM arrives while the first event is handled
      await stopped;
    });
    const got = await one;
    expect(got.events.map(statusOf)).toEqual(['running', 'waiting', 'succeeded']);
  });

  it('terminal event delivered, then stop before the next pull: the iteration ends as the run did, without an error', async () => {
    const { host, storage } = await startedHost(kind);
    await storage.runs.patch('run_open', { status: 'succeeded' });
    await storage.events.append({ runId: 'run_open', type: 'run_status', at: 1, data: { status: 'succeeded' } });
    const one = consume(host.events({ runId: 'run_open', pollMs: 3_600_000 }), async (e) => {
      if (statusOf(e as never) === 'succeeded') await host.stop();
    });
    const got = await one;
    expect(got.events.map(statusOf)).toEqual(['succeeded']);
    expect(got.end).toBe('done');
  });

  it('waitForRunStatus rejects HOST_STOPPED when the host stops (not a 30 s timeout, not STORAGE_CLOSED)', async () => {
    const { host } = await startedHost(kind);
    const waiting = codeOf(waitForRunStatus(host, 'run_open', ['succeeded']));
    await settle(); // on PostgreSQL its first getRun is still in flight here
    await host.stop();
    expect(await waiting).toBe('HOST_STOPPED');
  });

  it('waitForRunStatus whose getRun is in flight when the host stops rejects HOST_STOPPED (gated read)', async () => {
    const { host, storage } = await startedHost(kind);
    const { inRead, release } = gateMethod(storage.runs, 'get');
    const waiting = codeOf(waitForRunStatus(host, 'run_open', ['succeeded']));
    await inRead;
    await host.stop();
    release();
    expect(await waiting).toBe('HOST_STOPPED');
  });

  it('waitForRunStatus parked on its event wake rejects HOST_STOPPED when the host stops', async () => {
    const { host } = await startedHost(kind);
    const base = stopListeners(host);
    const waiting = codeOf(waitForRunStatus(host, 'run_open', ['succeeded']));
    // Parked: its events({ runId, follow }) subscription is attached to the stop signal.
    while (stopListeners(host) === base) await settle();
    await host.stop();
    expect(await waiting).toBe('HOST_STOPPED');
  });

  it('nothing stays on stopSignal or the caller signal after subscriptions ended in every way', async () => {
    const { host, storage } = await startedHost(kind);
    await storage.runs.insert(runRecord('run_done', { status: 'succeeded', startedBy: 'user:bob' }));
    await storage.events.append({ runId: 'run_done', type: 'run_status', at: 1, data: { status: 'succeeded' } });
    const base = stopListeners(host);
    const shared = new AbortController(); // one long-lived caller signal reused for every subscription
    const baseShared = getEventListeners(shared.signal, 'abort').length;
    for (const actor of [undefined, 'user:bob', 'user:admin']) {
      const extra = actor ? { actor } : {};
      // caller abort
      const c = new AbortController();
      const a = consume(host.events({ ...extra, pollMs: 3_600_000, signal: c.signal }));
      await settle();
      c.abort();
      expect((await a).end).toBe('done');
      // break
      for await (const _ of host.events({ ...extra, runId: 'run_done', signal: shared.signal })) break;
      // run end
      expect((await consume(host.events({ ...extra, runId: 'run_done', signal: shared.signal }))).end).toBe('done');
      // return() before the first next()
      await host
        .events({ ...extra, runId: 'run_open', signal: shared.signal })
        [Symbol.asyncIterator]()
        .return?.();
      // throw() after the first event
      const t = host.events({ ...extra, runId: 'run_done', signal: shared.signal })[Symbol.asyncIterator]();
      await t.next();
      await t.throw?.(new Error('consumer gave up')).catch(() => undefined);
    }
    // access lost (sign-out) on the person path
    const lost = consume(host.events({ actor: 'user:bob', pollMs: 3_600_000, signal: shared.signal }));
    await settle();
    host.identityChanged('user:bob', { signedOut: true });
    expect((await lost).events.at(-1)?.type).toBe('access_lost');
    expect(stopListeners(host)).toBe(base);
    expect(getEventListeners(shared.signal, 'abort').length).toBe(baseShared);
    expect(host.identityChanged('user:bob')).toBe(0);
  });
});

describe('SSE GET /api/events and host.stop()', () => {
  let h: Household | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('open streams (all, and one run followed) end when the host stops; slots and tickets given back', async () => {
    h = await serveHousehold();
    const all = await openStream(h.base, 'admin-token');
    const bob = await openStream(h.base, 'bob-token');
    await all.waitFor(() => h!.router.openStreams === 2);
    await h.host.stop();
    await all.ended();
    await bob.ended();
    expect(all.done && bob.done).toBe(true);
    expect(h.router.openStreams).toBe(0);
    expect(h.host.identityChanged()).toBe(0);
  });

  it('refused streams (STREAM_LIMIT_REACHED, 429) leave nothing attached to host.stopSignal', async () => {
    h = await serveHousehold({ host: { limits: { streamsPerActor: 1 } } });
    const open = await openStream(h.base, 'bob-token');
    await open.waitFor(() => h!.router.openStreams === 1);
    const base = stopListeners(h.host);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const refused = await SseClient.open(h.base, 'bob-token');
      if (refused instanceof SseClient) throw new Error('expected a refusal');
      statuses.push(refused.status);
    }
    expect(new Set(statuses)).toEqual(new Set([429]));
    // Expected: a refused request leaves no link on the host's stop signal (the point of linkedSignal).
    expect(stopListeners(h.host)).toBe(base);
    await open.close();
  });
});

describe('linkedSignal edge cases', () => {
  it('the same source twice: one abort, its reason, nothing left after', () => {
    const a = new AbortController();
    const link = linkedSignal([a.signal, a.signal]);
    let fired = 0;
    link.signal.addEventListener('abort', () => fired++);
    const reason = new Error('why');
    a.abort(reason);
    expect(fired).toBe(1);
    expect(link.signal.reason).toBe(reason);
    expect(getEventListeners(a.signal, 'abort').length).toBe(0);
  });

  it('the same source twice, disposed: nothing attached', () => {
    const a = new AbortController();
    const link = linkedSignal([a.signal, undefined, a.signal]);
    link.dispose();
    expect(getEventListeners(a.signal, 'abort').length).toBe(0);
    a.abort();
    expect(link.signal.aborted).toBe(false);
  });

  it('dispose inside its own abort handler, and inside an earlier listener of the source', () => {
    const a = new AbortController();
    const b = new AbortController();
    const link = linkedSignal([a.signal, b.signal]);
    link.signal.addEventListener('abort', () => link.dispose());
    a.abort('r1');
    expect(link.signal.reason).toBe('r1');
    expect(getEventListeners(a.signal, 'abort').length + getEventListeners(b.signal, 'abort').length).toBe(0);
    const c = new AbortController();
    let inner: ReturnType<typeof linkedSignal> | undefined;
    c.signal.addEventListener('abort', () => inner?.dispose());
    inner = linkedSignal([c.signal]);
    c.abort();
    expect(inner.signal.aborted).toBe(false);
    expect(getEventListeners(c.signal, 'abort').length).toBe(1); // only the test's own listener
  });

  it('a later source already aborted: aborted at once with its reason, earlier sources detached', () => {
    const live = new AbortController();
    const dead = new AbortController();
    dead.abort('dead reason');
    const link = linkedSignal([live.signal, dead.signal]);
    expect(link.signal.reason).toBe('dead reason');
    expect(getEventListeners(live.signal, 'abort').length).toBe(0);
  });

  it('the first source to abort wins; a second abort changes nothing', () => {
    const a = new AbortController();
    const b = new AbortController();
    const link = linkedSignal([a.signal, b.signal]);
    b.abort('b');
    a.abort('a');
    expect(link.signal.reason).toBe('b');
    expect(getEventListeners(a.signal, 'abort').length).toBe(0);
  });

  it('a chain of links (as the router → SSE → subscription do) propagates one reason and detaches', () => {
    const root = new AbortController();
    const l1 = linkedSignal([root.signal]);
    const l2 = linkedSignal([l1.signal]);
    const l3 = linkedSignal([new AbortController().signal, l2.signal]);
    root.abort('root');
    expect(l3.signal.reason).toBe('root');
    expect(getEventListeners(root.signal, 'abort').length).toBe(0);
  });
});
