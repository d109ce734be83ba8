/**
 * A subscription to one run's events (`RunEventBus.subscribe({ runId })`, behind `host.events({ runId })` and the
 * run's SSE stream) reads that run's events and nothing else: not the events every other run ever wrote, not again
 * on every event another run publishes, and not twice. Reports of the same kind elsewhere:
 *
 * - mastra-ai/mastra#14632: run queries fetched every row and filtered in JavaScript (full table scans);
 * - sseshachala/conductai#535: a run's SSE stream read the whole event table on every notification;
 * - CasperLabs/CasperLabs#1749: a filtered subscriber read the same records again and again until an event it
 *   wanted arrived;
 * - lezli01/vincent#188: a Last-Event-ID resume read every matching row before going live;
 * - commanded/eventstore#36: subscriptions catching up read all streams instead of the one stream they follow.
 *
 * Each test counts the event rows the subscription read from a real store (memory, and a SQLite file).
 */
import { describe, expect, it } from 'vitest';
import type { RunEventRecord } from '../../src/core/run-records';
import { SystemClock } from '../../src/ports/clock';
import type { StorageAdapter } from '../../src/ports/storage-adapter';
import { RunEventBus } from '../../src/runtime/events/run-event-bus';
import type { RunEvent } from '../../src/runtime/events/run-event';
import { runRecord } from '../storage/run-record';
import { eventStores } from './event-stores';

const stores = eventStores;

/** Counts the event rows read through `storage.events` (outside transactions too). */
function countingReads(storage: StorageAdapter): { storage: StorageAdapter; rows: () => number; reset: () => void } {
  let rows = 0;
  const events = new Proxy(storage.events, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== 'function') return value;
      if (prop !== 'listAfter' && prop !== 'listByRun') return value.bind(target);
      return async (...args: unknown[]) => {
        const out = (await (value as (...a: unknown[]) => Promise<RunEventRecord[]>).apply(
          target,
          args,
        )) as RunEventRecord[];
        rows += out.length;
        return out;
      };
    },
  });
  const wrapped = new Proxy(storage, {
    get(target, prop) {
      if (prop === 'events') return events;
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    storage: wrapped,
    rows: () => rows,
    reset: () => {
      rows = 0;
    },
  };
}

const text = (n: number) => ({ text: `piece ${n}` });

/** Appends `count` text events to each of `runs` runs (in one transaction per run) and ends each with a status. */
async function history(storage: StorageAdapter, runs: number, count: number): Promise<void> {
  for (let r = 0; r < runs; r++)
    await storage.transaction(async (s) => {
      await s.runs.insert(runRecord(`run_old_${r}`, { status: 'succeeded' }));
      for (let i = 0; i < count; i++)
        await s.events.append({ runId: `run_old_${r}`, type: 'text_delta', at: i, data: text(i) });
      await s.events.append({ runId: `run_old_${r}`, type: 'run_status', at: count, data: { status: 'succeeded' } });
    });
}

/** Stores run `id` (queued). */
const newRun = (storage: StorageAdapter, id = 'run_mine') => storage.runs.insert(runRecord(id));

/** Ends run `id`: its terminal event, and its record's status, in one transaction (as the run loop does). */
async function endRun(bus: RunEventBus, storage: StorageAdapter, id = 'run_mine'): Promise<void> {
  await storage.transaction(async (s) => {
    await s.runs.patch(id, { status: 'succeeded' });
    const e = await bus.emit(id, 'run_status', { status: 'succeeded' } as never, s);
    bus.publish(e);
  });
}

/** Iterates `iterable` until it ends or `signal` aborts. */
async function collect(iterable: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const seen: RunEvent[] = [];
  for await (const e of iterable) seen.push(e);
  return seen;
}

describe.each(['memory', 'sqlite'] as const)('a subscription to one run reads only that run (%s)', (kind) => {
  it('replaying an ended run reads its own events, not the 2,000 other runs wrote (mastra#14632, commanded/eventstore#36)', async () => {
    const { storage } = await stores(kind);
    await history(storage, 100, 19);
    const counted = countingReads(storage);
    const bus = new RunEventBus(counted.storage, new SystemClock());
    await newRun(storage);
    for (let i = 0; i < 5; i++) await bus.emit('run_mine', 'text_delta', text(i));
    await endRun(bus, storage);
    counted.reset();
    const seen = await collect(bus.subscribe({ runId: 'run_mine', signal: AbortSignal.timeout(10_000) }));
    expect(seen.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    // Its 6 events, read once more after the end was seen: 12 at most, not the 2,006 in the store.
    expect(counted.rows()).toBeLessThanOrEqual(12);
  });

  it('a resume after a global sequence reads only the rest of that run (lezli01/vincent#188)', async () => {
    const { storage } = await stores(kind);
    const counted = countingReads(storage);
    const bus = new RunEventBus(counted.storage, new SystemClock());
    await newRun(storage);
    const mine: RunEvent[] = [];
    for (let i = 0; i < 8; i++) mine.push(await bus.emit('run_mine', 'text_delta', text(i)));
    // 1,000 events of other runs after the resume point, before the run ended.
    await history(storage, 50, 19);
    await endRun(bus, storage);
    counted.reset();
    const after = mine[4]!.globalSeq;
    const seen = await collect(bus.subscribe({ runId: 'run_mine', after, signal: AbortSignal.timeout(10_000) }));
    expect(seen.map((e) => e.seq)).toEqual([6, 7, 8, 9]);
    expect(seen.every((e) => e.globalSeq > after)).toBe(true);
    expect(counted.rows()).toBeLessThanOrEqual(2 * 9);
  });

  it('events other runs publish in this process make a live subscription read nothing (CasperLabs#1749)', async () => {
    const { storage } = await stores(kind);
    const counted = countingReads(storage);
    const bus = new RunEventBus(counted.storage, new SystemClock());
    await newRun(storage);
    await bus.emit('run_mine', 'text_delta', text(0));
    const stop = new AbortController();
    const iterator = bus
      .subscribe({ runId: 'run_mine', signal: stop.signal, pollMs: 3_600_000 })
      [Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ runId: 'run_mine', seq: 1 });
    const pending = iterator.next();
    counted.reset();
    for (let i = 0; i < 200; i++) await bus.emit(`run_other_${i % 4}`, 'text_delta', text(i));
    // Let every wake the other runs' events may have caused run its course before counting.
    await new Promise((r) => setImmediate(r));
    expect(counted.rows()).toBe(0);
    await bus.emit('run_mine', 'text_delta', text(1));
    expect((await pending).value).toMatchObject({ runId: 'run_mine', seq: 2 });
    stop.abort();
    await iterator.return?.(undefined);
  });

  it('a live run read one commit at a time is read from the store at most once per event (conductai#535)', async () => {
    const { storage } = await stores(kind);
    await history(storage, 20, 19);
    const counted = countingReads(storage);
    const bus = new RunEventBus(counted.storage, new SystemClock());
    await newRun(storage);
    await bus.emit('run_mine', 'text_delta', text(0));
    counted.reset();
    const seen: RunEvent[] = [];
    const reading = (async () => {
      for await (const e of bus.subscribe({ runId: 'run_mine', signal: AbortSignal.timeout(10_000) })) seen.push(e);
    })();
    for (let i = 1; i < 40; i++) {
      await bus.emit('run_mine', 'text_delta', text(i));
      if (i % 3 === 0) await new Promise((r) => setImmediate(r));
    }
    await endRun(bus, storage);
    await reading;
    expect(seen.map((e) => e.seq)).toEqual(Array.from({ length: 41 }, (_, i) => i + 1));
    expect(counted.rows()).toBeLessThanOrEqual(2 * 41);
  });
});

describe('events another process appends to the run (SQLite, a second connection)', () => {
  it('are delivered in the run’s order, each once, between events published here', async () => {
    const { storage, other } = await stores('sqlite');
    const bus = new RunEventBus(storage, new SystemClock());
    await newRun(storage);
    const seen: RunEvent[] = [];
    const reading = (async () => {
      for await (const e of bus.subscribe({ runId: 'run_mine', pollMs: 5, signal: AbortSignal.timeout(10_000) }))
        seen.push(e);
    })();
    for (let i = 0; i < 30; i++) {
      if (i % 3 === 1) await other.events.append({ runId: 'run_mine', type: 'text_delta', at: i, data: text(i) });
      else await bus.emit('run_mine', 'text_delta', text(i));
    }
    await other.transaction(async (s) => {
      await s.runs.patch('run_mine', { status: 'succeeded' });
      await s.events.append({ runId: 'run_mine', type: 'run_status', at: 30, data: { status: 'succeeded' } });
    });
    await reading;
    expect(seen.map((e) => e.seq)).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
    expect(seen.map((e) => (e.data as { text?: string }).text ?? 'end')).toEqual([
      ...Array.from({ length: 30 }, (_, i) => `piece ${i}`),
      'end',
    ]);
  });
});

describe.each(['memory', 'sqlite'] as const)('a subscription to every run (%s)', (kind) => {
  it('takes what this process publishes without reading it back (conductai#535)', async () => {
    const { storage } = await stores(kind);
    const counted = countingReads(storage);
    const bus = new RunEventBus(counted.storage, new SystemClock());
    const stop = new AbortController();
    const seen: RunEvent[] = [];
    const reading = (async () => {
      for await (const e of bus.subscribe({ signal: stop.signal, pollMs: 3_600_000 })) {
        seen.push(e);
        if (seen.length === 100) stop.abort();
      }
    })();
    await new Promise((r) => setImmediate(r));
    counted.reset();
    for (let i = 0; i < 100; i++) {
      await bus.emit(`run_${i % 3}`, 'text_delta', text(i));
      if (i % 7 === 0) await new Promise((r) => setImmediate(r));
    }
    await reading;
    expect(seen.map((e) => e.globalSeq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(counted.rows()).toBe(0);
  });
});

describe('every run, with events another process appends (SQLite, a second connection)', () => {
  it('are delivered in global order, each once', async () => {
    const { storage, other } = await stores('sqlite');
    const bus = new RunEventBus(storage, new SystemClock());
    const stop = new AbortController();
    const seen: RunEvent[] = [];
    const reading = (async () => {
      for await (const e of bus.subscribe({ signal: stop.signal, pollMs: 5 })) {
        seen.push(e);
        if (seen.length === 60) stop.abort();
      }
    })();
    for (let i = 0; i < 60; i++) {
      if (i % 4 === 1) await other.events.append({ runId: `run_${i % 2}`, type: 'text_delta', at: i, data: text(i) });
      else await bus.emit(`run_${i % 2}`, 'text_delta', text(i));
    }
    await reading;
    expect(seen.map((e) => e.globalSeq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(seen.map((e) => (e.data as { text: string }).text)).toEqual(
      Array.from({ length: 60 }, (_, i) => `piece ${i}`),
    );
  });
});
