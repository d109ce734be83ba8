/**
 * Attacks on `RunEventBus.subscribe` (one run, every run) and on `waitForRunStatus`: missed, duplicated or late
 * events, subscriptions left open (emitter listeners, storage watchers), and waits that leak or hang. Real stores:
 * memory, a SQLite file (with a second connection for "another process"), PostgreSQL when it answers.
 */
import { rmSync } from 'node:fs';
import { EventEmitter } from 'eventemitter3';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { RunRecord } from '../../src/core/run-records';
import { SystemClock } from '../../src/ports/clock';
import type { StorageAdapter, StorageTopic } from '../../src/ports/storage-adapter';
import type { AgentHost } from '../../src/runtime/agent-host';
import { RunEventBus } from '../../src/runtime/events/run-event-bus';
import type { RunEvent } from '../../src/runtime/events/run-event';
import { MemoryStorage } from '../../src/storage';
import { waitForRunStatus } from '../../src/testing';
import { createAgentHost } from '../../src/index';
import { closeAdmin, describePostgres, dropSchema, freshSchemaName, pgStorage } from '../storage/postgres-available';
import { runRecord } from '../storage/run-record';
import { eventStores } from './event-stores';

/** PostgreSQL adapters opened by a test, closed after it. */
const open: StorageAdapter[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of open.splice(0)) await s.close?.().catch(() => undefined);
});

type Kind = 'memory' | 'sqlite';

const stores = (kind: Kind) => eventStores(kind);

/**
 * `storage` with (1) a `watch` that counts open watchers (delegating to the store's own when it has one), and
 * (2) a gate on event reads: while `hold` is set, each `listByRun`/`listAfter` waits until `release()`.
 */
function instrumented(storage: StorageAdapter, onRead?: (method: string, args: unknown[]) => void) {
  let watchers = 0;
  let hold = false;
  const held: Array<() => void> = [];
  let onHeld: (() => void) | undefined;
  const events = new Proxy(storage.events, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== 'function') return value;
      if (prop !== 'listByRun' && prop !== 'listAfter') return value.bind(target);
      return async (...args: unknown[]) => {
        onRead?.(String(prop), args);
        if (hold) {
          await new Promise<void>((resolve) => {
            held.push(resolve);
            onHeld?.();
          });
        }
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
  const wrapped = new Proxy(storage, {
    get(target, prop) {
      if (prop === 'events') return events;
      if (prop === 'watch')
        return (listener: (topic: StorageTopic) => void) => {
          watchers++;
          const inner = target.watch?.(listener);
          let done = false;
          return () => {
            if (done) return;
            done = true;
            watchers--;
            inner?.();
          };
        };
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    storage: wrapped as StorageAdapter,
    watchers: () => watchers,
    hold() {
      hold = true;
    },
    /** Resolves once a read is waiting at the gate. */
    held(): Promise<void> {
      if (held.length > 0) return Promise.resolve();
      return new Promise((r) => (onHeld = r));
    },
    release() {
      hold = false;
      for (const r of held.splice(0)) r();
    },
  };
}

/** The bus's (private) emitter, found by spying on eventemitter3's `on` while `bus.onEvent` registers. */
function emitterOf(bus: RunEventBus): EventEmitter {
  const spy = vi.spyOn(EventEmitter.prototype, 'on');
  const off = bus.onEvent(() => undefined);
  const emitter = spy.mock.contexts.at(-1) as EventEmitter;
  spy.mockRestore();
  off();
  return emitter;
}

const text = (n: number) => ({ text: `piece ${n}` });
const turn = () => new Promise<void>((r) => setImmediate(r));

async function collect(iterable: AsyncIterable<RunEvent>, onEvent?: (e: RunEvent) => unknown): Promise<RunEvent[]> {
  const seen: RunEvent[] = [];
  for await (const e of iterable) {
    seen.push(e);
    await onEvent?.(e);
  }
  return seen;
}

/** Ends run `id` as the loop does: status and terminal event in one transaction, published after commit. */
async function endRun(bus: RunEventBus, storage: StorageAdapter, id: string, status = 'succeeded'): Promise<void> {
  const e = await storage.transaction(async (s) => {
    await s.runs.patch(id, { status: status as RunRecord['status'] });
    return bus.emit(id, 'run_status', { status } as never, s);
  });
  bus.publish(e);
}

/** A host for waitForRunStatus: the run as stored, and the bus's subscription as `events`. */
function busHost(storage: StorageAdapter, bus: RunEventBus, onRun?: (run: RunRecord) => void) {
  let reads = 0;
  const host = {
    async getRun(id: string) {
      reads++;
      const run = await storage.runs.get(id);
      if (!run) throw new Error(`RUN_NOT_FOUND ${id}`);
      onRun?.(run);
      return { run, events: [] } as unknown as Awaited<ReturnType<AgentHost['getRun']>>;
    },
    events: (options: Parameters<RunEventBus['subscribe']>[0]) => bus.subscribe(options),
  };
  return { host: host as unknown as AgentHost, reads: () => reads };
}

describe.each(['memory', 'sqlite'] as const)('subscriptions end cleanly (%s)', (kind) => {
  it('an abort while a read is in flight ends the iteration: no event is delivered after the abort (one run, every run)', async () => {
    for (const runId of ['run_a', undefined]) {
      const { storage } = await stores(kind);
      const gated = instrumented(storage);
      const bus = new RunEventBus(gated.storage, new SystemClock());
      await storage.runs.insert(runRecord('run_a'));
      await bus.emit('run_a', 'text_delta', text(0));
      const stop = new AbortController();
      const iterator = bus
        .subscribe({ ...(runId ? { runId } : {}), signal: stop.signal, pollMs: 3_600_000 })
        [Symbol.asyncIterator]();
      gated.hold();
      const next = iterator.next();
      await gated.held();
      stop.abort();
      gated.release();
      const result = await next;
      expect({ runId, done: result.done }).toEqual({ runId, done: true });
      expect(gated.watchers()).toBe(0);
      expect(emitterOf(bus).listenerCount('event')).toBe(0);
    }
  });

  it('waitForRunStatus leaves no subscription open when the status is reached while its read is in flight', async () => {
    const { storage } = await stores(kind);
    const gated = instrumented(storage);
    const bus = new RunEventBus(gated.storage, new SystemClock());
    await storage.runs.insert(runRecord('run_w', { status: 'running' }));
    await bus.emit('run_w', 'text_delta', text(0));
    gated.hold();
    const { host } = busHost(storage, bus, (run) => {
      // Once the wait has seen the status, let the subscription's read (held at the gate) return its events.
      if (run.status === 'succeeded') setImmediate(() => gated.release());
    });
    const waiting = waitForRunStatus(host, 'run_w', ['succeeded'], { timeoutMs: 10_000 });
    await gated.held();
    await storage.runs.patch('run_w', { status: 'succeeded' });
    expect((await waiting).status).toBe('succeeded');
    await turn();
    expect(gated.watchers()).toBe(0);
    expect(emitterOf(bus).listenerCount('event')).toBe(0);
  });

  it('200 subscriptions ended every way (break, abort, run end, error-free return before iterating) leave no listener', async () => {
    const { storage } = await stores(kind);
    const gated = instrumented(storage);
    const bus = new RunEventBus(gated.storage, new SystemClock());
    const emitter = emitterOf(bus);
    for (let r = 0; r < 5; r++) {
      await storage.runs.insert(runRecord(`run_${r}`));
      await bus.emit(`run_${r}`, 'text_delta', text(r));
    }
    for (let i = 0; i < 50; i++) {
      const runId = `run_${i % 5}`;
      // break after the first event
      for await (const _ of bus.subscribe(i % 2 ? { runId } : {})) break;
      // abort while waiting
      const stop = new AbortController();
      // every run: from the last stored event (globalSeq 5), so the second next() waits
      const it = bus.subscribe({ ...(i % 2 ? { runId } : { after: 4 }), signal: stop.signal })[Symbol.asyncIterator]();
      await it.next();
      const waiting = it.next();
      await turn();
      stop.abort();
      expect((await waiting).done).toBe(true);
      // return() on a fresh generator
      await bus.subscribe({ runId })[Symbol.asyncIterator]().return(undefined);
      // return() while suspended after an event
      const it2 = bus.subscribe({ runId })[Symbol.asyncIterator]();
      await it2.next();
      await it2.return(undefined);
    }
    // a run that ends: 5 subscriptions each end by themselves
    const ending = Array.from({ length: 5 }, (_, r) =>
      collect(bus.subscribe({ runId: `run_${r}`, signal: AbortSignal.timeout(10_000) })),
    );
    for (let r = 0; r < 5; r++) await endRun(bus, storage, `run_${r}`);
    for (const seen of await Promise.all(ending)) expect(seen.map((e) => e.seq)).toEqual([1, 2]);
    expect(emitter.listenerCount('event')).toBe(0);
    expect(gated.watchers()).toBe(0);
  });
});

describe.each(['memory', 'sqlite'] as const)('missed or duplicated events (%s)', (kind) => {
  it('events published out of commit order are delivered once, in order (one run and every run)', async () => {
    const { storage } = await stores(kind);
    const bus = new RunEventBus(storage, new SystemClock());
    await storage.runs.insert(runRecord('run_a'));
    await storage.runs.insert(runRecord('run_b'));
    await bus.emit('run_a', 'text_delta', text(0));
    const stop = new AbortController();
    const mine = collect(bus.subscribe({ runId: 'run_a', signal: stop.signal, pollMs: 3_600_000 }));
    const all: RunEvent[] = [];
    const every = collect(bus.subscribe({ signal: stop.signal, pollMs: 3_600_000 }), (e) => {
      all.push(e);
    });
    await turn();
    for (let round = 0; round < 20; round++) {
      const written: RunEvent[] = [];
      for (let k = 0; k < 3; k++)
        written.push(
          await storage.transaction((s) => bus.emit(k === 1 ? 'run_b' : 'run_a', 'text_delta', text(round), s)),
        );
      // published last-committed first
      bus.publish(...written.reverse());
      if (round % 4 === 0) await turn();
    }
    await endRun(bus, storage, 'run_a');
    const seenA = await mine;
    expect(seenA.map((e) => e.seq)).toEqual(Array.from({ length: 42 }, (_, i) => i + 1));
    await turn();
    stop.abort();
    await every;
    expect(all.map((e) => e.globalSeq)).toEqual(Array.from({ length: 62 }, (_, i) => i + 1));
  });

  it('a run replayed across pages of 500 while it keeps writing: every event once; `after` in the middle', async () => {
    const { storage } = await stores(kind);
    const bus = new RunEventBus(storage, new SystemClock());
    await storage.runs.insert(runRecord('run_p'));
    await storage.transaction(async (s) => {
      for (let i = 0; i < 1203; i++) {
        await s.events.append({ runId: 'run_p', type: 'text_delta', at: i, data: text(i) });
        if (i % 10 === 0) await s.events.append({ runId: 'run_other', type: 'text_delta', at: i, data: text(i) });
      }
    });
    const mid = (await storage.events.listByRun('run_p', { afterSeq: 699, limit: 1 }))[0]!;
    const guard = AbortSignal.timeout(20_000);
    let writes = 0;
    const writer = async () => {
      for (; writes < 60; writes++) {
        await bus.emit('run_p', 'text_delta', text(1203 + writes));
        if (writes % 5 === 0) await turn();
      }
    };
    const full = collect(bus.subscribe({ runId: 'run_p', signal: guard, pollMs: 3_600_000 }));
    const rest = collect(bus.subscribe({ runId: 'run_p', after: mid.globalSeq, signal: guard, pollMs: 3_600_000 }));
    await writer();
    await endRun(bus, storage, 'run_p');
    const total = 1203 + 60 + 1;
    expect((await full).map((e) => e.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect((await rest).map((e) => e.seq)).toEqual(Array.from({ length: total - 700 }, (_, i) => i + 701));
    expect(guard.aborted).toBe(false);
  });

  it('events another connection appends, interleaved with local ones: one run and every run see each once, in order', async () => {
    if (kind === 'memory') return;
    const { storage, other } = await stores(kind);
    const bus = new RunEventBus(storage, new SystemClock());
    const otherBus = new RunEventBus(other, new SystemClock());
    await storage.runs.insert(runRecord('run_x'));
    const stop = new AbortController();
    const all: RunEvent[] = [];
    const every = collect(bus.subscribe({ signal: stop.signal, pollMs: 10 }), (e) => {
      all.push(e);
    });
    const mine = collect(bus.subscribe({ runId: 'run_x', signal: AbortSignal.timeout(10_000), pollMs: 10 }));
    for (let i = 0; i < 40; i++) {
      const runId = i % 5 === 4 ? 'run_y' : 'run_x';
      if (i % 3 === 0) await otherBus.emit(runId, 'text_delta', text(i));
      else await bus.emit(runId, 'text_delta', text(i));
      if (i % 7 === 0) await turn();
    }
    // The run ends in the other process; nothing more is published here.
    await endRun(otherBus, other, 'run_x');
    const seen = await mine;
    expect(seen.map((e) => e.seq)).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1));
    expect(seen.at(-1)).toMatchObject({ type: 'run_status', data: { status: 'succeeded' } });
    expect(seen).toHaveLength(33);
    await vi.waitFor(() => expect(all.length).toBe(41), { timeout: 10_000 });
    stop.abort();
    await every;
    expect(all.map((e) => e.globalSeq)).toEqual(Array.from({ length: 41 }, (_, i) => i + 1));
  });
});

describe.each(['memory', 'sqlite'] as const)('the end of a run (%s)', (kind) => {
  it('a run woken right at its end (terminal event + waiting/wake in one commit) is followed to its next end', async () => {
    const { storage } = await stores(kind);
    const bus = new RunEventBus(storage, new SystemClock());
    await storage.runs.insert(runRecord('run_e', { status: 'running' }));
    const seenP = collect(bus.subscribe({ runId: 'run_e', signal: AbortSignal.timeout(10_000), pollMs: 3_600_000 }));
    await bus.emit('run_e', 'text_delta', text(0));
    const e = await storage.transaction(async (s) => {
      await s.runs.patch('run_e', { status: 'succeeded' });
      const ev = await bus.emit('run_e', 'run_status', { status: 'succeeded' } as never, s);
      await s.runs.patch('run_e', { status: 'waiting', wakeRequested: true });
      return ev;
    });
    bus.publish(e);
    await turn();
    await turn();
    // driven again
    const again = await storage.transaction(async (s) => {
      await s.runs.patch('run_e', { status: 'running', wakeRequested: false });
      return bus.emit('run_e', 'run_status', { status: 'running' } as never, s);
    });
    bus.publish(again);
    await bus.emit('run_e', 'text_delta', text(1));
    await endRun(bus, storage, 'run_e', 'failed');
    const seen = await seenP;
    expect(seen.map((x) => x.type)).toEqual(['text_delta', 'run_status', 'run_status', 'text_delta', 'run_status']);
  });

  it('without follow, a subscription to an ended run ends; with follow it sees a wake; a nonexistent run that is then created is followed to its end', async () => {
    const { storage } = await stores(kind);
    const bus = new RunEventBus(storage, new SystemClock());
    await storage.runs.insert(runRecord('run_f', { status: 'running' }));
    await bus.emit('run_f', 'text_delta', text(0));
    await endRun(bus, storage, 'run_f');
    expect((await collect(bus.subscribe({ runId: 'run_f', signal: AbortSignal.timeout(5_000) }))).length).toBe(2);
    const stop = new AbortController();
    const followed: RunEvent[] = [];
    const following = collect(bus.subscribe({ runId: 'run_f', follow: true, signal: stop.signal }), (e) => {
      followed.push(e);
      if (followed.length === 4) stop.abort();
    });
    const q = await storage.transaction(async (s) => {
      await s.runs.patch('run_f', { status: 'waiting', wakeRequested: true });
      return bus.emit('run_f', 'inbox_queued', { inboxId: 'i', text: 'again' } as never, s);
    });
    bus.publish(q);
    await bus.emit('run_f', 'run_status', { status: 'running' } as never);
    await following;
    expect(followed.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    // a run that does not exist yet
    const later = collect(bus.subscribe({ runId: 'run_new', signal: AbortSignal.timeout(5_000), pollMs: 3_600_000 }));
    await turn();
    await storage.runs.insert(runRecord('run_new', { status: 'running' }));
    await bus.emit('run_new', 'text_delta', text(0));
    await endRun(bus, storage, 'run_new');
    expect((await later).map((e) => e.seq)).toEqual([1, 2]);
  });
});

describe('waitForRunStatus', () => {
  it('a host whose event stream delivers one more event after the abort (a read in flight) is not left open', async () => {
    let open = 0;
    let status: RunRecord['status'] = 'running';
    const host = {
      async getRun(id: string) {
        return { run: runRecord(id, { status }) } as unknown as Awaited<ReturnType<AgentHost['getRun']>>;
      },
      events(options: { signal?: AbortSignal }) {
        return (async function* () {
          open++;
          try {
            for (;;) {
              // a read under way when the abort comes: it completes, and its event is delivered
              await new Promise<void>((r) => options.signal?.addEventListener('abort', () => r(), { once: true }));
              yield { type: 'text_delta' };
              if (options.signal?.aborted) return;
            }
          } finally {
            open--;
          }
        })();
      },
    } as unknown as AgentHost;
    const waiting = waitForRunStatus(host, 'run_1', ['succeeded'], { timeoutMs: 10_000 });
    await vi.waitFor(() => expect(open).toBe(1), { timeout: 10_000, interval: 5 });
    status = 'succeeded';
    expect((await waiting).status).toBe('succeeded');
    expect(open).toBe(0);
  });

  it('on a run with a long history it reads the run a bounded number of times, not once per stored event', async () => {
    const storage = new MemoryStorage();
    let caughtUp: (() => void) | undefined;
    const caught = new Promise<void>((r) => (caughtUp = r));
    // The wait's subscription has gone through the run's 2,000 stored events once it reads after seq 2,000.
    const counted = instrumented(storage, (method, args) => {
      if (method === 'listByRun' && ((args[1] as { afterSeq?: number })?.afterSeq ?? 0) >= 2000) caughtUp?.();
    });
    const bus = new RunEventBus(counted.storage, new SystemClock());
    await storage.runs.insert(runRecord('run_h', { status: 'running' }));
    await storage.transaction(async (s) => {
      for (let i = 0; i < 2000; i++)
        await s.events.append({ runId: 'run_h', type: 'text_delta', at: i, data: text(i) });
    });
    const { host, reads } = busHost(storage, bus);
    const waiting = waitForRunStatus(host, 'run_h', ['succeeded'], { timeoutMs: 10_000 });
    await caught;
    await endRun(bus, storage, 'run_h');
    expect((await waiting).status).toBe('succeeded');
    expect(reads()).toBeLessThan(50);
  });

  it('a started AgentHost: a run that never gets there times out; a host stopped while waiting fails the wait; nothing stays subscribed', async () => {
    const storage = new MemoryStorage();
    const host = createAgentHost({ storage });
    await host.start();
    await storage.runs.insert(runRecord('run_idle', { status: 'waiting' }));
    await expect(waitForRunStatus(host, 'run_idle', ['succeeded'], { timeoutMs: 300 })).rejects.toMatchObject({
      code: 'RUN_WAIT_TIMEOUT',
    });
    const waiting = waitForRunStatus(host, 'run_idle', ['succeeded'], { timeoutMs: 30_000 });
    const failed = waiting.then(
      () => 'resolved',
      (e: { code?: string }) => e.code ?? 'error',
    );
    await turn();
    await host.stop();
    expect(await failed).not.toBe('resolved');
  });
});

describePostgres('PostgreSQL: another process', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    for (const s of schemas) await dropSchema(s).catch(() => undefined);
    await closeAdmin();
  });

  it('a run driven in two processes: a subscriber sees every event once, in order, and ends with the run; no watcher stays', async () => {
    const schema = freshSchemaName('ma_attack');
    schemas.push(schema);
    const a = pgStorage(schema);
    const b = pgStorage(schema);
    open.push(a, b);
    await a.migrate();
    const gated = instrumented(a);
    const busA = new RunEventBus(gated.storage, new SystemClock());
    const busB = new RunEventBus(b, new SystemClock());
    await a.runs.insert(runRecord('run_pg', { status: 'running' }));
    const all: RunEvent[] = [];
    const stop = new AbortController();
    const every = collect(busA.subscribe({ signal: stop.signal, pollMs: 3_600_000 }), (e) => {
      all.push(e);
    });
    const mine = collect(busA.subscribe({ runId: 'run_pg', signal: AbortSignal.timeout(15_000), pollMs: 3_600_000 }));
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 60; i++) {
      const bus = i % 2 ? busB : busA;
      writes.push(bus.emit(i % 6 === 5 ? 'run_q' : 'run_pg', 'text_delta', text(i)));
      if (i % 4 === 0) await Promise.all(writes.splice(0));
    }
    await Promise.all(writes);
    await endRun(busB, b, 'run_pg');
    const seen = await mine;
    expect(seen.map((e) => e.seq)).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
    await vi.waitFor(() => expect(all.length).toBe(61), { timeout: 10_000 });
    stop.abort();
    await every;
    expect(all.map((e) => e.globalSeq)).toEqual(Array.from({ length: 61 }, (_, i) => i + 1));
    expect(gated.watchers()).toBe(0);
  });

  it('waitForRunStatus on PostgreSQL leaves no watcher open', async () => {
    const schema = freshSchemaName('ma_attack');
    schemas.push(schema);
    const a = pgStorage(schema);
    const b = pgStorage(schema);
    open.push(a, b);
    await a.migrate();
    const gated = instrumented(a);
    const busA = new RunEventBus(gated.storage, new SystemClock());
    const busB = new RunEventBus(b, new SystemClock());
    await a.runs.insert(runRecord('run_pw', { status: 'running' }));
    for (let round = 0; round < 10; round++) {
      const { host } = busHost(a, busA);
      const waiting = waitForRunStatus(host, 'run_pw', ['succeeded', 'failed'], { timeoutMs: 10_000 });
      for (let i = 0; i < 5; i++) await busB.emit('run_pw', 'text_delta', text(i));
      await endRun(busB, b, 'run_pw', round % 2 ? 'failed' : 'succeeded');
      await waiting;
      await b.runs.patch('run_pw', { status: 'running' });
    }
    await vi.waitFor(() => expect(gated.watchers()).toBe(0), { timeout: 10_000 });
    expect(emitterOf(busA).listenerCount('event')).toBe(0);
  });
});

describe('on an actor’s behalf, and the HTTP stream of one run', () => {
  it('per-run subscriptions with an actor give their stream slot back however they end; a missing or foreign run is RUN_NOT_FOUND', async () => {
    const { householdHost } = await import('../http/household-server');
    const { dir, host } = await householdHost('media-agent-attack-actor-', {
      limits: { streamsPerActor: 2, streamsTotal: 4 },
    } as never);
    try {
      const run = await host.startRun({ goal: 'look around', mode: 'plan_only', actor: 'user:bob' });
      await host.appendToInbox(run.id, 'hello', 'user:bob');
      await host.abort(run.id, 'enough', { actor: 'user:bob' });
      for (let i = 0; i < 12; i++) {
        const guard = AbortSignal.timeout(5_000);
        if (i % 3 === 0) {
          const seen = await collect(
            host.events({ actor: 'user:bob', runId: run.id, signal: guard }) as AsyncIterable<RunEvent>,
          );
          expect(seen.map((e) => e.seq)).toEqual([1, 2, 3]);
        } else if (i % 3 === 1) {
          for await (const _ of host.events({ actor: 'user:bob', runId: run.id, signal: guard })) break;
        } else {
          const missing = host.events({ actor: 'user:bob', runId: i % 2 ? 'run_nope' : run.id, signal: guard });
          const asCarol = host.events({ actor: 'user:carol', runId: run.id, signal: guard });
          for (const s of i % 2 ? [missing] : [asCarol]) {
            await expect(s[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
          }
          if (!(i % 2)) await missing[Symbol.asyncIterator]().return?.(undefined);
          else await asCarol[Symbol.asyncIterator]().return?.(undefined);
        }
      }
      // two slots still free for bob
      const a = new AbortController();
      host.events({ actor: 'user:bob', runId: run.id, follow: true, signal: a.signal });
      host.events({ actor: 'user:bob', runId: run.id, follow: true, signal: a.signal });
      a.abort();
    } finally {
      await host.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the SSE stream of a run resumed after an event delivers the rest once, in order, live, among other runs’ events', async () => {
    const { serveHousehold, openStream } = await import('../http/household-server');
    const home = await serveHousehold();
    try {
      const { host, base } = home;
      const bobs = await host.startRun({ goal: 'look around', mode: 'plan_only', actor: 'user:bob' });
      const carols = await host.startRun({ goal: 'look around', mode: 'plan_only', actor: 'user:carol' });
      for (let i = 0; i < 5; i++) {
        await host.appendToInbox(bobs.id, `b${i}`, 'user:bob');
        await host.appendToInbox(carols.id, `c${i}`, 'user:carol');
      }
      const stored = (await host.getRun(bobs.id, { limit: 100 })).events;
      const cut = stored[2]!.globalSeq;
      const client = await openStream(base, 'bob-token', `/api/events?runId=${bobs.id}&after=${cut}`);
      try {
        for (let i = 5; i < 10; i++) {
          await host.appendToInbox(carols.id, `c${i}`, 'user:carol');
          await host.appendToInbox(bobs.id, `b${i}`, 'user:bob');
        }
        await host.abort(bobs.id, 'done', { actor: 'user:bob' });
        const all = (await host.getRun(bobs.id, { limit: 100 })).events.filter((e) => e.globalSeq > cut);
        await client.waitFor((frames) => frames.length >= all.length);
        expect(client.frames.map((f) => Number(f.id))).toEqual(all.map((e) => e.globalSeq));
        expect(client.frames.every((f) => f.data.runId === bobs.id)).toBe(true);
      } finally {
        await client.close();
      }
    } finally {
      await home.close();
    }
  });
});

describe.each(['memory', 'sqlite'] as const)('a consumer that pauses (%s)', (kind) => {
  it('does not make the subscription hold every event published meanwhile; it still gets each once, in order', async () => {
    const v8 = await import('node:v8');
    const vm = await import('node:vm');
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const { storage } = await stores(kind);
    const bus = new RunEventBus(storage, new SystemClock());
    for (const runId of ['run_slow', undefined]) {
      const stop = new AbortController();
      const base = (await storage.events.listAfter(0, 1_000_000)).length;
      const runBase = (await storage.events.listByRun('run_slow', { limit: 1_000_000 })).length;
      const iterator = bus
        .subscribe({ ...(runId ? { runId } : {}), after: base, signal: stop.signal, pollMs: 3_600_000 })
        [Symbol.asyncIterator]();
      const first = iterator.next();
      await bus.emit('run_slow', 'text_delta', text(0));
      await first;
      // the consumer is busy elsewhere while 5,000 events are published
      const refs: WeakRef<object>[] = [];
      for (let i = 1; i <= 5000; i++) refs.push(new WeakRef(await bus.emit('run_slow', 'text_delta', text(i))));
      await turn();
      gc();
      const held = refs.filter((r) => r.deref() !== undefined).length;
      // then it reads on: every event once, in order
      const seen: RunEvent[] = [];
      for (let i = 0; i < 5000; i++) {
        const next = await iterator.next();
        if (next.done) break;
        seen.push(next.value);
      }
      stop.abort();
      await iterator.return?.(undefined);
      expect(seen.map((e) => (runId ? e.seq - runBase : e.globalSeq - base))).toEqual(
        Array.from({ length: 5000 }, (_, i) => i + 2),
      );
      expect({ runId, held: held <= 1000 }).toEqual({ runId, held: true });
    }
  });
});
