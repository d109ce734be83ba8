/**
 * `host.stop()` ends the event subscriptions open on it: a parked `for await` over `host.events(...)` settles with
 * `HOST_STOPPED` (the host's error, not the closed store's `STORAGE_CLOSED`), at once and not at the next poll; a
 * subscription its caller aborted ends quietly as before; nothing stays attached to the host's stop signal once a
 * subscription ended. Real stores: memory and a SQLite file.
 *
 * Public reports of the same kind, turned into tests here (before → after in the closing comments of each test):
 * - nats-io/nats.js#134: an async iterator over a connection's status kept waiting after `close()`.
 * - holepunchto/hyperbee#165: a watcher's async iterator must exit when its owner closes.
 * - photon-hq/spectrum-ts#58: `stop()` left a consumer parked in `for await` over the message stream.
 * - nodejs/node#28994: a stream closed early should fail its iterator, not end it as if it were complete.
 * - nodejs/node#55351: every signal `AbortSignal.any` made from a long-lived one (a host's stop signal) stays
 *   attached to it; each subscription or stream would leave one behind.
 */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentHost, ConsoleLogger, type AgentHost } from '../../src/index';
import type { RunEvent } from '../../src/runtime/events/run-event';
import { runRecord } from '../storage/run-record';
import { eventStores, type EventStoreKind } from './event-stores';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

async function startedHost(kind: EventStoreKind) {
  const { storage } = await eventStores(kind);
  const host = createAgentHost({ storage, logger: new ConsoleLogger('silent') });
  await host.start({ workers: false });
  hosts.push(host);
  await storage.runs.insert(runRecord('run_open', { status: 'running' }));
  return { host, storage };
}

/** Consumes `iterable` to its end; resolves with what it got and how it ended (`done`, or the error's code). */
function consume(iterable: AsyncIterable<unknown>): Promise<{ events: unknown[]; end: string }> {
  const events: unknown[] = [];
  return (async () => {
    try {
      for await (const e of iterable) events.push(e);
      return { events, end: 'done' };
    } catch (error) {
      return { events, end: String((error as { code?: string }).code ?? error) };
    }
  })();
}

/** The signals `AbortSignal.any` made from `signal` that are still attached to it (Node's internal set). */
function dependants(signal: AbortSignal): number {
  const key = Object.getOwnPropertySymbols(signal).find((s) => s.description === 'kDependantSignals');
  return key ? ((signal as unknown as Record<symbol, Set<unknown>>)[key]?.size ?? 0) : 0;
}

/** Lets pending promise jobs and I/O callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe.each<EventStoreKind>(['memory', 'sqlite'])('host.stop() ends open subscriptions (%s)', (kind) => {
  it('a subscription to every run, parked with an hour-long poll, fails HOST_STOPPED when the host stops (nats-io/nats.js#134, holepunchto/hyperbee#165)', async () => {
    const { host } = await startedHost(kind);
    const all = consume(host.events({ pollMs: 3_600_000 }));
    await settle();
    await host.stop();
    // Before: the iteration waited for the next poll, an hour away. After: it fails at once with the host's error.
    expect((await all).end).toBe('HOST_STOPPED');
  });

  it('a consumer parked on one run’s events settles when stop() resolves (photon-hq/spectrum-ts#58)', async () => {
    const { host } = await startedHost(kind);
    const one = consume(host.events({ runId: 'run_open', pollMs: 3_600_000 }));
    await settle();
    await host.stop();
    expect(await one).toEqual({ events: [], end: 'HOST_STOPPED' });
  });

  it('with a short poll the stopped subscription fails HOST_STOPPED, not the closed store’s STORAGE_CLOSED, and never ends as if complete (nodejs/node#28994)', async () => {
    const { host } = await startedHost(kind);
    const every = consume(host.events({ pollMs: 1 }));
    const run = consume(host.events({ runId: 'run_open', pollMs: 1 }));
    await settle();
    await host.stop();
    // Before: STORAGE_CLOSED from the next poll of the closed store.
    expect((await every).end).toBe('HOST_STOPPED');
    expect((await run).end).toBe('HOST_STOPPED');
  });

  it('a subscription on a person’s behalf (the HTTP stream’s) fails HOST_STOPPED too', async () => {
    const { host } = await startedHost(kind);
    const admin = consume(host.events({ actor: 'system:test', pollMs: 3_600_000 }));
    await settle();
    await host.stop();
    expect((await admin).end).toBe('HOST_STOPPED');
  });

  it('a subscription its caller aborted ends quietly, before the stop and at it', async () => {
    const { host } = await startedHost(kind);
    const caller = new AbortController();
    const aborted = consume(host.events({ pollMs: 3_600_000, signal: caller.signal }));
    await settle();
    caller.abort();
    expect((await aborted).end).toBe('done');
    const both = new AbortController();
    const atStop = consume(host.events({ runId: 'run_open', pollMs: 3_600_000, signal: both.signal }));
    await settle();
    both.abort();
    await host.stop();
    expect((await atStop).end).toBe('done');
  });

  it('nothing stays attached to the host’s stop signal once subscriptions ended (nodejs/node#55351)', async () => {
    const { host, storage } = await startedHost(kind);
    const listeners = getEventListeners(host.stopSignal, 'abort').length;
    const before = dependants(host.stopSignal);
    for (let i = 0; i < 50; i++) {
      const caller = new AbortController();
      const it = host.events({ runId: 'run_open', pollMs: 3_600_000, signal: caller.signal });
      const got = consume(it);
      await settle();
      caller.abort();
      await got;
    }
    // Ended by the run's end, not by an abort.
    await storage.runs.patch('run_open', { status: 'succeeded' });
    await storage.events.append({ runId: 'run_open', type: 'run_status', at: 1, data: { status: 'succeeded' } });
    const ended = (await consume(host.events({ runId: 'run_open' }))) as { events: RunEvent[]; end: string };
    expect(ended.end).toBe('done');
    expect(getEventListeners(host.stopSignal, 'abort').length).toBe(listeners);
    expect(dependants(host.stopSignal)).toBe(before);
  });
});
