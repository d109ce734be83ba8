// host.events on an actor's behalf, in process: the same access re-check as the HTTP stream (every
// accessRecheckMs by the host's clock, at once on host.identityChanged, `reauthenticate` asked each time),
// one access_lost event at the end, and the open-stream slot given back however the subscription ends.
// A host on a SQLite file, workers off (started runs stay queued: every event comes from the test).
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { ManualClock, AgentHost, AgentOptions } from '../../src/index';
import type { SubscriberEvent } from '../../src/limits';
import { householdHost } from '../http/household-server';

interface Home {
  host: AgentHost;
  roles: Map<string, 'admin' | 'user'>;
  clock: ManualClock;
  close(): Promise<void>;
}

let home: Home | undefined;
afterEach(async () => {
  await home?.close();
  home = undefined;
});

async function household(options: Partial<AgentOptions> = {}): Promise<Home> {
  const { dir, host, roles, clock } = await householdHost('media-agent-events-', options);
  return (home = {
    host,
    roles,
    clock,
    async close() {
      await host.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

const start = (h: Home, actor: string) => h.host.startRun({ goal: 'look around', mode: 'plan_only', actor });

/** The next item, or a marker when none came within `ms`. */
async function nextWithin(
  it: AsyncIterator<SubscriberEvent>,
  ms = 3000,
): Promise<IteratorResult<SubscriberEvent> | 'none'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const none = new Promise<'none'>((resolve) => {
    timer = setTimeout(() => resolve('none'), ms);
  });
  try {
    return await Promise.race([it.next(), none]);
  } finally {
    clearTimeout(timer);
  }
}

describe('host.events on an actor’s behalf loses access when access is lost', () => {
  it('identityChanged(signedOut) ends an administrator’s subscription with one access_lost; a run started after the hook is never delivered', async () => {
    const h = await household();
    const it = h.host.events({ actor: 'user:admin', pollMs: 20 })[Symbol.asyncIterator]();
    const bobs = await start(h, 'user:bob');
    expect(await it.next()).toMatchObject({ value: { type: 'run_status', runId: bobs.id } });

    const queued = await start(h, 'user:bob'); // stored, not yet pulled by the subscriber
    h.roles.set('user:admin', 'user');
    expect(h.host.identityChanged('user:admin', { signedOut: true })).toBe(1);
    const after = await start(h, 'user:bob');

    const last = await it.next();
    expect(last.value).toMatchObject({
      type: 'access_lost',
      code: 'STREAM_ACCESS_LOST',
      reason: 'unauthenticated',
      actor: 'user:admin',
      after: (await h.host.listEvents({ limit: 1 }))[0]!.globalSeq,
    });
    expect(await it.next()).toEqual({ done: true, value: undefined });
    // Neither the run queued before the hook (not delivered yet) nor the one after reached the subscriber.
    expect([queued.id, after.id]).not.toContain((last.value as { runId?: string }).runId);
  });

  it('the periodic re-check runs every accessRecheckMs by the host’s clock: a demotion nobody signalled ends the stream at 30 s', async () => {
    const h = await household();
    const it = h.host.events({ actor: 'user:admin', pollMs: 20 })[Symbol.asyncIterator]();
    await start(h, 'user:bob');
    expect((await it.next()).value).toMatchObject({ type: 'run_status' }); // subscribed as an administrator
    h.roles.set('user:admin', 'user');
    const pending = it.next();
    h.clock.advance(29_999);
    expect(await Promise.race([pending, new Promise((resolve) => setTimeout(() => resolve('open'), 120))])).toBe(
      'open',
    );
    h.clock.advance(1);
    expect((await pending).value).toMatchObject({ type: 'access_lost', reason: 'role_changed' });
    expect((await it.next()).done).toBe(true);
  });

  it('reauthenticate is asked at each re-check: false ends the subscription as unauthenticated', async () => {
    const h = await household({ accessRecheckMs: 1000 });
    let signedIn = true;
    let asked = 0;
    const reauthenticate = () => {
      asked++;
      return signedIn;
    };
    const seen: SubscriberEvent[] = [];
    const done = (async () => {
      for await (const e of h.host.events({ actor: 'user:bob', pollMs: 20, reauthenticate })) seen.push(e);
    })();
    await start(h, 'user:bob');
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(1);
    const before = asked;
    h.clock.advance(1000); // a re-check that passes
    await expect.poll(() => asked, { timeout: 10_000 }).toBeGreaterThan(before);
    signedIn = false;
    h.host.identityChanged('user:bob');
    await done;
    expect(seen.map((e) => e.type)).toEqual(['run_status', 'access_lost']);
  });

  it('a person’s own-runs subscription survives a role change and keeps delivering their runs only', async () => {
    const h = await household();
    const it = h.host.events({ actor: 'user:bob', pollMs: 20 })[Symbol.asyncIterator]();
    const first = await start(h, 'user:bob');
    expect(await nextWithin(it)).toMatchObject({ value: { runId: first.id } }); // subscribed as an ordinary user
    h.roles.set('user:bob', 'admin');
    expect(h.host.identityChanged('user:bob')).toBe(1);
    await start(h, 'user:carol');
    const own = await start(h, 'user:bob');
    expect(await nextWithin(it)).toMatchObject({ value: { type: 'run_status', runId: own.id } });
    await it.return?.();
  });

  it('the open-stream slot is given back when the subscription ends: access_lost, break, or an abort before iterating', async () => {
    const h = await household({ limits: { streamsPerActor: 1 } });
    const first = h.host.events({ actor: 'user:admin', pollMs: 20 })[Symbol.asyncIterator]();
    expect(() => h.host.events({ actor: 'user:admin' })).toThrow(
      expect.objectContaining({
        code: 'STREAM_LIMIT_REACHED',
        details: expect.objectContaining({ limit: 'perActor' }),
      }),
    );
    // Another person has their own share.
    const carols = new AbortController();
    h.host.events({ actor: 'user:carol', signal: carols.signal });
    carols.abort(); // never iterated: the abort gives the slot back
    h.host.events({ actor: 'user:carol', signal: new AbortController().signal });

    h.host.identityChanged('user:admin', { signedOut: true });
    expect((await first.next()).value).toMatchObject({ type: 'access_lost' });
    expect((await first.next()).done).toBe(true);
    const second = h.host.events({ actor: 'user:admin', pollMs: 20 });
    await start(h, 'user:admin');
    for await (const _ of second) break;
    expect(() => h.host.events({ actor: 'user:admin', signal: AbortSignal.abort() })).not.toThrow();
  });

  it('return() before the first next() gives the slot back (an async generator’s finally never runs then)', async () => {
    const h = await household({ limits: { streamsPerActor: 2 } });
    // Ten subscriptions taken and returned without ever being read: none keeps its slot.
    for (let i = 0; i < 10; i++) {
      const it = h.host.events({ actor: 'user:carol' })[Symbol.asyncIterator]();
      expect(await it.return?.()).toMatchObject({ done: true });
    }
    // throw() before the first next() too.
    for (let i = 0; i < 3; i++) {
      const it = h.host.events({ actor: 'user:carol' })[Symbol.asyncIterator]();
      await expect(it.throw?.(new Error('consumer gave up'))).rejects.toThrow('consumer gave up');
    }
    const a = h.host.events({ actor: 'user:carol', signal: AbortSignal.abort() });
    const b = h.host.events({ actor: 'user:carol', signal: AbortSignal.abort() });
    expect([a, b]).toHaveLength(2);
    const held = [h.host.events({ actor: 'user:carol' }), h.host.events({ actor: 'user:carol' })];
    expect(() => h.host.events({ actor: 'user:carol' })).toThrow(
      expect.objectContaining({ code: 'STREAM_LIMIT_REACHED' }),
    );
    for (const s of held) await s[Symbol.asyncIterator]().return?.();
    expect(() => h.host.events({ actor: 'user:carol', signal: AbortSignal.abort() })).not.toThrow();
  });
});
