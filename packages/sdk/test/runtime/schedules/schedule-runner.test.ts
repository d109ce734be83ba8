// The schedule runner on the memory store: a due tick fires once (run, tick record, schedule advanced, events), a
// lost compare-and-set or claim stores nothing, several runners on one store never fire a tick twice, missed ticks
// after a downtime follow the schedule's policy, daily caps skip with one decision a day, a refused allowlist skips.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentHost } from '../../../src/index';
import { toRunEvent } from '../../../src/runtime/events/run-event-bus';
import type { StorageAdapter } from '../../../src/index';
import type { StorageSession } from '../../../src/ports/storage-adapter';
import { DEFAULT_SCHEDULE_RUNNER_SETTINGS } from '../../../src/runtime/schedules/schedule-runner';
import { runEvents } from '../harness';

/** The events of a schedule's stream (named by its id). */
const streamEvents = async (storage: StorageAdapter, id: string) =>
  (await storage.events.listByRun(id, { afterSeq: 0, limit: 1000 })).map(toRunEvent);
import { HOUR, MIN, ROLES, scheduleFixture } from './fixture';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});
const fixture = async (...args: Parameters<typeof scheduleFixture>) => {
  const f = await scheduleFixture(...args);
  hosts.push(f.host);
  return f;
};

describe('ScheduleRunner', () => {
  it('fires a due tick once: a queued run as the owner, its tick record, the schedule advanced, the events', async () => {
    const f = await fixture();
    const s = await f.schedule({ budgets: { maxToolCalls: 7 } });
    expect(await f.runner().pollOnce()).toEqual([]);
    f.clock.advance(HOUR + 2_000);
    const [handled] = await f.runner('host:a').pollOnce();
    expect(handled).toMatchObject({ scheduleId: s.id, outcome: 'handled' });
    const runId = handled!.runId!;
    const run = await f.storage.runs.get(runId);
    expect(run).toMatchObject({
      status: 'queued',
      origin: 'schedule',
      startedBy: 'user:alice',
      goal: s.goal,
      capabilityAllowlist: ['inventory.query'],
      runtimeState: { schedule: { scheduleId: s.id, tickAt: s.nextTickAt } },
    });
    expect((run!.budgets as { maxToolCalls: number }).maxToolCalls).toBe(7);
    expect(await f.storage.schedules.ticks(s.id)).toEqual([
      {
        scheduleId: s.id,
        tickAt: s.nextTickAt,
        outcome: 'fired',
        runId,
        reason: null,
        firstTickAt: s.nextTickAt,
        ticks: 1,
        handledAt: f.clock.now(),
        handledBy: 'host:a',
      },
    ]);
    expect(await f.storage.schedules.get(s.id)).toMatchObject({
      revision: 2,
      nextTickAt: s.nextTickAt! + HOUR,
      lastTickAt: s.nextTickAt,
      lastRunId: runId,
    });
    const events = await runEvents(f.host, runId);
    expect(events.map((e) => e.type)).toEqual(['run_status', 'schedule.fired']);
    expect(events[1]!.data).toEqual({ scheduleId: s.id, tickAt: s.nextTickAt, runId });
    expect(f.woken()).toBe(1);
    // Polled again at the same time: nothing is due.
    expect(await f.runner('host:b').pollOnce()).toEqual([]);
    expect(await f.storage.runs.list({ limit: 100 })).toHaveLength(1);
  });

  it('a tick is judged as of the instant the poll saw it due: a slow poll past the grace still fires it', async () => {
    const f = await fixture();
    const a = await f.schedule();
    const b = await f.schedule();
    f.clock.advance(HOUR + 2_000);
    const seenAt = f.clock.now();
    // The store answers the poll, then the machine stalls for twice the grace before the transactions run.
    const stalling = new Proxy(f.storage, {
      get(target, prop, receiver) {
        if (prop !== 'schedules') {
          const value = Reflect.get(target, prop, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return new Proxy(target.schedules, {
          get(repo, key, r) {
            const value = Reflect.get(repo, key, r);
            if (key !== 'due') return typeof value === 'function' ? value.bind(repo) : value;
            return async (...args: Parameters<typeof repo.due>) => {
              const due = await repo.due(...args);
              f.clock.advance(2 * DEFAULT_SCHEDULE_RUNNER_SETTINGS.graceMs);
              return due;
            };
          },
        });
      },
    });
    const handled = await f.runner('host:a', {}, stalling).pollOnce();
    expect(handled.map((h) => h.outcome)).toEqual(['handled', 'handled']);
    for (const s of [a, b]) {
      const [tick] = await f.storage.schedules.ticks(s.id);
      expect(tick).toMatchObject({ outcome: 'fired', tickAt: s.nextTickAt, handledAt: seenAt });
      // The schedule's own change is stamped with the clock's time.
      expect((await f.storage.schedules.get(s.id))!.updatedAt).toBe(f.clock.now());
    }
  });

  it('a schedule changed since the poll read it is handled as stored now: once, with the changed goal', async () => {
    const f = await fixture();
    const s = await f.schedule();
    f.clock.advance(HOUR + 1);
    const stale = await f.storage.schedules.due(f.clock.now(), 10);
    // A person (or another process) changes the schedule between the read and the transaction.
    expect(await f.storage.schedules.compareAndSet(s.id, 1, { ...s, goal: 'changed', revision: 2 })).toBe(true);
    const runner = f.runner();
    const due = f.storage.schedules.due.bind(f.storage.schedules);
    f.storage.schedules.due = async () => stale;
    try {
      const [handled] = await runner.pollOnce();
      expect(handled).toMatchObject({ scheduleId: s.id, outcome: 'handled' });
      expect((await f.storage.runs.get(handled!.runId!))?.goal).toBe('changed');
    } finally {
      f.storage.schedules.due = due;
    }
    expect(await f.storage.runs.list({ limit: 10 })).toHaveLength(1);
    expect(await f.storage.schedules.ticks(s.id)).toHaveLength(1);
    expect((await f.storage.schedules.get(s.id))?.revision).toBe(3);
  });

  it('a schedule paused since the poll read it is lost: nothing stored, also on the retry at the end of the poll', async () => {
    const f = await fixture();
    const s = await f.schedule();
    f.clock.advance(HOUR + 1);
    const stale = await f.storage.schedules.due(f.clock.now(), 10);
    expect(await f.storage.schedules.compareAndSet(s.id, 1, { ...s, status: 'paused', revision: 2 })).toBe(true);
    const runner = f.runner();
    const due = f.storage.schedules.due.bind(f.storage.schedules);
    f.storage.schedules.due = async () => stale;
    try {
      expect(await runner.pollOnce()).toEqual([{ scheduleId: s.id, outcome: 'lost', ticks: [], runId: null }]);
    } finally {
      f.storage.schedules.due = due;
    }
    expect(await f.storage.runs.list({ limit: 10 })).toEqual([]);
    expect(await f.storage.schedules.ticks(s.id)).toEqual([]);
    expect((await f.storage.schedules.get(s.id))?.revision).toBe(2);
  });

  it('a process that lost a schedule to one handling an older tick fires the tick it saw due, in the same poll', async () => {
    const f = await fixture();
    const s = await f.schedule({ everyMs: 10 * MIN, nextTickAt: f.clock.now() + 10 * MIN });
    // Process b saw the first tick due; process a sees the second one due (and reads the schedule as stored then).
    f.clock.advance(10 * MIN + 1);
    const seenByB = f.clock.now();
    const staleForB = await f.storage.schedules.due(seenByB, 10);
    f.clock.advance(10 * MIN);
    const a = f.runner('host:a');
    const b = f.runner('host:b');
    const due = f.storage.schedules.due.bind(f.storage.schedules);
    let first = true;
    // a reads the due schedules; before its transaction, b (which read them earlier) handles the first tick.
    f.storage.schedules.due = async (now, limit) => {
      const found = await due(now, limit);
      if (first) {
        first = false;
        f.storage.schedules.due = async () => staleForB;
        const nowA = f.clock.now();
        f.clock.set(seenByB);
        const [byB] = await b.pollOnce();
        f.clock.set(nowA);
        expect(byB).toMatchObject({ outcome: 'handled' });
        f.storage.schedules.due = due;
      }
      return found;
    };
    try {
      const [byA] = await a.pollOnce();
      expect(byA).toMatchObject({ scheduleId: s.id, outcome: 'handled' });
    } finally {
      f.storage.schedules.due = due;
    }
    const ticks = await f.storage.schedules.ticks(s.id);
    expect(ticks.map((t) => [t.tickAt - s.nextTickAt!, t.outcome, t.handledBy])).toEqual([
      [10 * MIN, 'fired', 'host:a'],
      [0, 'fired', 'host:b'],
    ]);
  });

  it('a tick claimed while the poll runs rolls the whole poll back: schedule, run and records', async () => {
    const f = await fixture();
    const s = await f.schedule();
    f.clock.advance(HOUR + 1);
    // Another process claims the tick between this runner's read and its claim: the store answers the claim false.
    let claims = 0;
    const bound = <T extends object>(target: T, prop: string | symbol) => {
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    };
    const lying = new Proxy(f.storage, {
      get(target, prop) {
        if (prop !== 'transaction') return bound(target, prop);
        return <R>(fn: (s: StorageSession) => Promise<R>) =>
          target.transaction((s) =>
            fn(
              new Proxy(s, {
                get(session, p) {
                  if (p !== 'schedules') return bound(session, p);
                  return new Proxy(session.schedules, {
                    get(repository, q) {
                      if (q !== 'claimTick') return bound(repository, q);
                      return async () => {
                        claims++;
                        return false;
                      };
                    },
                  });
                },
              }),
            ),
          );
      },
    });
    expect((await f.runner('host:a', {}, lying).pollOnce())[0]?.outcome).toBe('lost');
    // Tried twice (the retry at the end of the poll), rolled back both times.
    expect(claims).toBe(2);
    expect(await f.storage.schedules.get(s.id)).toEqual(s);
    expect(await f.storage.runs.list({ limit: 10 })).toEqual([]);
    expect(await f.storage.schedules.ticks(s.id)).toEqual([]);
  });

  it('a schedule row behind its tick records (a handled tick still named next) moves past them without a run', async () => {
    const f = await fixture();
    const s = await f.schedule();
    f.clock.advance(HOUR + 1);
    const claim = {
      scheduleId: s.id,
      tickAt: s.nextTickAt!,
      outcome: 'fired' as const,
      runId: 'run_elsewhere',
      reason: null,
      firstTickAt: s.nextTickAt!,
      ticks: 1,
      handledAt: f.clock.now(),
      handledBy: 'host:other',
    };
    expect(await f.storage.schedules.claimTick(claim)).toBe(true);
    await f.runner().pollOnce();
    expect(await f.storage.schedules.get(s.id)).toMatchObject({
      nextTickAt: s.nextTickAt! + HOUR,
      lastTickAt: s.nextTickAt,
      revision: s.revision + 1,
    });
    expect(await f.storage.runs.list({ limit: 10 })).toEqual([]);
    expect(await f.storage.schedules.ticks(s.id)).toEqual([claim]);
    // The next tick fires as usual.
    f.clock.advance(HOUR);
    expect((await f.runner().pollOnce())[0]).toMatchObject({ outcome: 'handled' });
    expect(await f.storage.runs.list({ limit: 10 })).toHaveLength(1);
  });

  it('three runners on one store, polling together at random times: every tick handled once, no double fire', async () => {
    const f = await fixture();
    const unlimited = { maxRunsPerDay: null, maxCostUsdPerDay: null };
    const a = await f.schedule({ everyMs: MIN, budgets: unlimited });
    const b = await f.schedule({ everyMs: 5 * MIN, budgets: unlimited, missed: 'catch_up_one' });
    const c = await f.schedule({ cron: '*/2 * * * *', nextTickAt: f.clock.now() + 2 * MIN, budgets: unlimited });
    const start = f.clock.now();
    const runners = [
      f.runner('host:a', { graceMs: 30_000 }),
      f.runner('host:b', { graceMs: 30_000 }),
      f.runner('host:c', { graceMs: 30_000 }),
    ];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 300; i++) {
      f.clock.advance(Math.floor(random() * 75_000));
      // A different process first each time.
      const order = [...runners.slice(i % 3), ...runners.slice(0, i % 3)];
      const results = (await Promise.all(order.map((r) => r.pollOnce()))).flat();
      expect(results.filter((r) => r.outcome === 'failed')).toEqual([]);
    }
    const end = f.clock.now();
    const runs = await f.storage.runs.list({ limit: 1000 });
    let fired = 0;
    for (const [s, expected] of [
      [a, Math.floor((end - start) / MIN)],
      [b, Math.floor((end - start) / (5 * MIN))],
      [c, Math.floor((end - start) / (2 * MIN))],
    ] as const) {
      const ticks = await f.storage.schedules.ticks(s.id, { limit: 1000 });
      const keys = ticks.map((t) => t.tickAt);
      expect(new Set(keys).size).toBe(keys.length);
      expect(ticks.reduce((n, t) => n + t.ticks, 0)).toBe(expected);
      const fires = ticks.filter((t) => t.outcome === 'fired');
      fired += fires.length;
      expect(fires.length).toBeGreaterThan(0);
      for (const t of fires) {
        const run = runs.find((r) => r.id === t.runId);
        expect(run?.runtimeState).toEqual({ schedule: { scheduleId: s.id, tickAt: t.tickAt } });
      }
      expect(new Set(ticks.map((t) => t.handledBy)).size).toBeGreaterThan(1);
    }
    expect(runs).toHaveLength(fired);
  });

  it('skip after a downtime: one skipped record for the missed ticks, no run, a schedule.skipped event', async () => {
    const f = await fixture();
    const s = await f.schedule();
    f.clock.advance(5 * HOUR + 30 * MIN);
    const [handled] = await f.runner().pollOnce();
    expect(handled).toMatchObject({ outcome: 'handled', runId: null });
    expect(handled!.ticks).toMatchObject([
      { outcome: 'skipped', reason: 'missed', tickAt: s.anchorAt + 5 * HOUR, firstTickAt: s.anchorAt + HOUR, ticks: 5 },
    ]);
    expect(await f.storage.runs.list({ limit: 10 })).toEqual([]);
    const events = await streamEvents(f.storage, s.id);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      [
        'schedule.skipped',
        { scheduleId: s.id, tickAt: s.anchorAt + 5 * HOUR, reason: 'missed', ticks: 5, firstTickAt: s.anchorAt + HOUR },
      ],
    ]);
    expect((await f.storage.schedules.get(s.id))?.nextTickAt).toBe(s.anchorAt + 6 * HOUR);
    // The next tick fires on time again.
    f.clock.set(s.anchorAt + 6 * HOUR + 1_000);
    expect((await f.runner().pollOnce())[0]?.runId).toMatch(/^run_/);
  });

  it('catch_up_one after a downtime: one run for the newest missed tick, the rest recorded skipped', async () => {
    const f = await fixture();
    const s = await f.schedule({ missed: 'catch_up_one' });
    f.clock.advance(5 * HOUR + 30 * MIN);
    const [handled] = await f.runner().pollOnce();
    expect(handled!.ticks.map((t) => [t.outcome, t.tickAt - s.anchorAt, t.ticks, t.reason])).toEqual([
      ['skipped', 4 * HOUR, 4, 'missed'],
      ['fired', 5 * HOUR, 1, null],
    ]);
    const runs = await f.storage.runs.list({ limit: 10 });
    expect(runs.map((r) => r.runtimeState)).toEqual([
      { schedule: { scheduleId: s.id, tickAt: s.anchorAt + 5 * HOUR } },
    ]);
    // Polled again: nothing more fires for the downtime.
    expect(await f.runner('host:b').pollOnce()).toEqual([]);
  });

  it('daily caps: runs over maxRunsPerDay are skipped daily_budget, with one schedule_budget decision per UTC day', async () => {
    const f = await fixture();
    // The fixture's clock starts at 12:00 UTC: ticks at 13:00 … 23:00 are one UTC day, then the next day.
    const s = await f.schedule({ budgets: { maxRunsPerDay: 2 } });
    const outcomes: string[] = [];
    for (let i = 1; i <= 16; i++) {
      f.clock.set(s.anchorAt + i * HOUR + 1_000);
      for (const r of await f.runner().pollOnce()) outcomes.push(...r.ticks.map((t) => `${t.outcome}:${t.reason}`));
    }
    // 13:00–23:00 (11 ticks): 2 fired, 9 capped; 00:00–04:00 of the next day (5 ticks): 2 fired, 3 capped.
    expect(outcomes.filter((o) => o === 'fired:null')).toHaveLength(4);
    expect(outcomes.filter((o) => o === 'skipped:daily_budget')).toHaveLength(12);
    expect(outcomes.slice(0, 3)).toEqual(['fired:null', 'fired:null', 'skipped:daily_budget']);
    expect(outcomes.slice(11, 14)).toEqual(['fired:null', 'fired:null', 'skipped:daily_budget']);
    const decisions = await f.storage.decisions.list({ subjectId: s.id });
    expect(decisions.map((d) => [d.kind, d.dedupeKey, d.subjectType])).toEqual(
      expect.arrayContaining([
        ['schedule_budget', `schedule_budget:${s.id}:2026-11-30`, 'schedule'],
        ['schedule_budget', `schedule_budget:${s.id}:2026-12-01`, 'schedule'],
      ]),
    );
    expect(decisions).toHaveLength(2);
    const events = await streamEvents(f.storage, s.id);
    expect(events.filter((e) => e.type === 'decision.created')).toHaveLength(2);
    expect(events.filter((e) => e.type === 'schedule.skipped')).toHaveLength(12);
  });

  it('the cost cap counts the cost of the day’s runs', async () => {
    const f = await fixture();
    const s = await f.schedule({ budgets: { maxCostUsdPerDay: 0.25 } });
    f.clock.advance(HOUR + 1);
    const [first] = await f.runner().pollOnce();
    await f.storage.runs.patch(first!.runId!, {
      usage: { toolCalls: 0, inputTokens: 1, outputTokens: 1, costUsd: 0.3, modelCalls: 1 },
    });
    f.clock.advance(HOUR);
    const [second] = await f.runner().pollOnce();
    expect(second!.ticks).toMatchObject([{ outcome: 'skipped', reason: 'daily_budget' }]);
    const [decision] = await f.storage.decisions.list({ subjectId: s.id });
    expect(decision?.evidence).toMatchObject({ cap: 'costUsd' });
  });

  it('an allowlist the owner may no longer call: the tick is skipped refused, with a schedule_refused decision', async () => {
    const f = await fixture({ identity: ROLES });
    const adminOnly = await f.schedule({ capabilityAllowlist: ['library.rescan'] });
    const gone = await f.schedule({ capabilityAllowlist: ['inventory.query', 'tasks.gone'] });
    const admins = await f.schedule({
      owner: 'user:root',
      createdBy: 'user:root',
      capabilityAllowlist: ['library.rescan'],
    });
    f.clock.advance(HOUR + 1);
    const handled = await f.runner().pollOnce();
    const of = (id: string) => handled.find((h) => h.scheduleId === id)!;
    expect(of(adminOnly.id).ticks).toMatchObject([{ outcome: 'skipped', reason: 'refused', runId: null }]);
    expect(of(gone.id).ticks).toMatchObject([{ outcome: 'skipped', reason: 'refused' }]);
    expect(of(admins.id).ticks).toMatchObject([{ outcome: 'fired' }]);
    const [d1] = await f.storage.decisions.list({ subjectId: adminOnly.id });
    expect(d1).toMatchObject({ kind: 'schedule_refused', subjectType: 'schedule', raisedBy: 'system:scheduler' });
    expect(d1!.reason).toContain('library.rescan');
    const [d2] = await f.storage.decisions.list({ subjectId: gone.id });
    expect(d2!.reason).toContain('tasks.gone');
    expect(await f.storage.runs.list({ limit: 10 })).toHaveLength(1);
    // Nothing is retried for the refused tick: the schedule moved on.
    expect((await f.storage.schedules.get(adminOnly.id))?.nextTickAt).toBe(adminOnly.anchorAt + 2 * HOUR);
  });

  it('start() polls by itself and stop() ends it', async () => {
    const f = await fixture();
    const s = await f.schedule();
    // The runner's poll timer under fake timers: no wall-clock wait decides the outcome.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const runner = f.runner('host:a', { pollMs: 5 });
      runner.start();
      f.clock.advance(HOUR + 1);
      await vi.advanceTimersByTimeAsync(50);
      expect(await f.storage.schedules.ticks(s.id)).toHaveLength(1);
      await runner.stop();
      f.clock.advance(HOUR);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(await f.storage.schedules.ticks(s.id)).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
