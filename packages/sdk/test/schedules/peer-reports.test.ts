// Schedules against public bug reports of other schedulers and agent runtimes, each replayed here on a real SQLite
// file with one adapter (and one ScheduleRunner) per simulated host process and a manual clock:
// - node-cron/node-cron#299: a cron job runs once per process when more than one process runs it.
// - openclaw/openclaw#42640: after a restart the scheduler re-runs a daily job that already ran that day.
// - NousResearch/hermes-agent#68211: a crash between a run and the persisted advance of `next_run_at` re-fires the
//   slot after the restart (here: a schedule row pointing at a tick already handled neither fires it again nor
//   stays stuck on it).
// - huggingface/agent-manager#97: a restart just before a scheduled time fires the job twice (the catch-up and the
//   regular fire).
// - kubernetes/kubernetes#121594: a daily 02:00 Europe/Berlin job runs twice on the fall-back night.
// - go-co-op/gocron#911, kelektiv/node-cron#563: a 02:30 America/New_York job is skipped on the spring-forward day
//   and a 01:30 one runs twice on the fall-back day.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHost, CreateScheduleInput, StorageAdapter } from '../../src/index';
import type { ScheduleRunner } from '../../src/runtime/schedules/schedule-runner';
import { createSqliteStorage } from '../../src/sqlite';
import { closedAfterEach } from '../runtime/harness';
import { MIN, scheduleFixture } from '../runtime/schedules/fixture';

const opened = closedAfterEach<{ close(): unknown }>();
const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

/** A host (no workers: the runs stay queued) on a new SQLite file, and `open()` for more adapters on that file. */
async function onFile() {
  const dir = mkdtempSync(join(tmpdir(), 'ma-peer-schedules-'));
  opened.dirs.push(dir);
  const open = (): StorageAdapter => {
    const s = createSqliteStorage({ path: join(dir, 'store.db') });
    opened.servers.push(s);
    return s;
  };
  const f = await scheduleFixture({ storage: open(), workers: false });
  hosts.push(f.host);
  return { ...f, open };
}

type Fixture = Awaited<ReturnType<typeof onFile>>;

const base: Omit<CreateScheduleInput, 'cron' | 'everyMs'> = {
  actor: 'user:alice',
  goal: 'Check for stalled downloads',
  capabilityAllowlist: ['inventory.query'],
};

/** The runs a schedule started: [tickAt, runId] per run, from the runs themselves (not the tick records). */
async function runsOf(f: Fixture, scheduleId: string): Promise<Array<[number, string]>> {
  const runs = await f.storage.runs.list({ limit: 10_000 });
  return runs
    .filter((r) => r.origin === 'schedule')
    .map((r) => [(r.runtimeState as { schedule?: { scheduleId: string; tickAt: number } }).schedule, r.id] as const)
    .filter(([s]) => s?.scheduleId === scheduleId)
    .map(([s, id]): [number, string] => [s!.tickAt, id])
    .sort((a, b) => a[0] - b[0]);
}

/** Moves the clock to `until` in steps of `stepMs`, every runner polling after each step (all at once). */
async function runUntil(f: Fixture, runners: ScheduleRunner[], until: number, stepMs: number): Promise<void> {
  while (f.clock.now() < until) {
    f.clock.advance(Math.min(stepMs, until - f.clock.now()));
    await Promise.all(runners.map((r) => r.pollOnce()));
  }
}

const iso = (t: number) => new Date(t).toISOString();
const ticksOf = (runs: Array<[number, string]>) => runs.map(([t]) => iso(t));

describe('schedules against public bug reports (a SQLite file, one adapter per host process)', () => {
  it('node-cron/node-cron#299: three processes running the same schedules start one run per tick, not three', async () => {
    const f = await onFile();
    const everyMinute = await f.host.schedules.create({ ...base, cron: '* * * * *' });
    const interval = await f.host.schedules.create({ ...base, everyMs: MIN });
    const runners = [f.runner('host:a'), f.runner('host:b', {}, f.open()), f.runner('host:c', {}, f.open())];
    await runUntil(f, runners, f.clock.now() + 30 * MIN, 20_000);
    for (const s of [everyMinute, interval]) {
      const runs = await runsOf(f, s.id);
      expect(runs).toHaveLength(30);
      expect(new Set(runs.map(([t]) => t)).size).toBe(30);
      const fired = (await f.storage.schedules.ticks(s.id, { limit: 1000 })).filter((t) => t.outcome === 'fired');
      expect(fired.map((t) => t.runId).sort()).toEqual(runs.map(([, id]) => id).sort());
    }
  });

  it('openclaw/openclaw#42640: a daily job that ran at 22:00 does not run again when a host restarts at 22:30', async () => {
    const f = await onFile();
    const s = await f.host.schedules.create({
      ...base,
      cron: '0 22 * * *',
      timezone: 'America/Santiago',
      missed: 'catch_up_one',
    });
    const first = s.nextTickAt!;
    f.clock.set(first + 5_000);
    expect(await f.runner('host:a').pollOnce()).toMatchObject([{ outcome: 'handled' }]);
    // The host restarts half an hour later: a new process on the same file.
    f.clock.set(first + 30 * MIN);
    const restarted = f.runner('host:a2', {}, f.open());
    expect(await restarted.pollOnce()).toEqual([]);
    expect(await runsOf(f, s.id)).toHaveLength(1);
    // The next day's 22:00 runs once.
    await runUntil(f, [restarted], first + 24 * 60 * MIN + 30_000, 30_000);
    expect(ticksOf(await runsOf(f, s.id))).toEqual([iso(first), iso(first + 24 * 60 * MIN)]);
  });

  it('NousResearch/hermes-agent#68211: a schedule row left pointing at a handled tick neither re-fires it nor sticks', async () => {
    const f = await onFile();
    const s = await f.host.schedules.create({
      ...base,
      cron: '0 8 * * 1',
      timezone: 'Asia/Shanghai',
      missed: 'catch_up_one',
    });
    const monday = s.nextTickAt!;
    f.clock.set(monday + 1_000);
    await f.runner('host:a', { graceMs: 2 * 60 * MIN }).pollOnce();
    expect(ticksOf(await runsOf(f, s.id))).toEqual([iso(monday)]);
    // What a lost advance leaves: the row still says the 08:00 tick is next (a restored backup of the row, or a
    // process whose clock is behind resuming it), while the tick's claim and run are stored.
    const now = (await f.storage.schedules.get(s.id))!;
    expect(
      await f.storage.schedules.compareAndSet(s.id, now.revision, {
        ...now,
        nextTickAt: monday,
        lastTickAt: null,
        revision: now.revision + 1,
      }),
    ).toBe(true);
    // The gateway restarts at 20:01, within a 12 h grace: the 08:00 slot must not fire again.
    f.clock.set(monday + 12 * 60 * MIN + MIN);
    const restarted = f.runner('host:b', { graceMs: 13 * 60 * MIN }, f.open());
    await restarted.pollOnce();
    expect(ticksOf(await runsOf(f, s.id))).toEqual([iso(monday)]);
    // And the schedule moves on: the next Monday fires once.
    expect((await f.storage.schedules.get(s.id))!.nextTickAt).toBe(monday + 7 * 24 * 60 * MIN);
    f.clock.set(monday + 7 * 24 * 60 * MIN + 1_000);
    await restarted.pollOnce();
    expect(ticksOf(await runsOf(f, s.id))).toEqual([iso(monday), iso(monday + 7 * 24 * 60 * MIN)]);
  });

  it('huggingface/agent-manager#97: a restart just before the minute fires the catch-up and the new tick once each', async () => {
    const f = await onFile();
    const s = await f.host.schedules.create({ ...base, cron: '* * * * *', missed: 'catch_up_one' });
    const first = s.nextTickAt!;
    // Every host is down for ten minutes; one comes back 1 s before a minute boundary.
    f.clock.set(first + 10 * MIN - 1_000);
    const back = f.runner('host:a', { graceMs: 10_000 }, f.open());
    await back.pollOnce();
    // The catch-up: the newest missed tick (9 min after the first), once; the older ones recorded skipped.
    expect(ticksOf(await runsOf(f, s.id))).toEqual([iso(first + 9 * MIN)]);
    // Polls every 250 ms across the boundary: the 10th minute fires once, and nothing fires twice.
    await runUntil(f, [back, f.runner('host:b', { graceMs: 10_000 })], first + 10 * MIN + 2_000, 250);
    expect(ticksOf(await runsOf(f, s.id))).toEqual([iso(first + 9 * MIN), iso(first + 10 * MIN)]);
    const ticks = await f.storage.schedules.ticks(s.id, { limit: 100 });
    expect(ticks.find((t) => t.outcome === 'skipped')).toMatchObject({
      reason: 'missed',
      ticks: 9,
      firstTickAt: first,
    });
  });

  it('kubernetes/kubernetes#121594: a daily 02:00 Europe/Berlin job runs once on 2026-10-25 (the clocks go back at 03:00)', async () => {
    const f = await onFile();
    f.clock.set(Date.UTC(2026, 9, 24, 12));
    const s = await f.host.schedules.create({ ...base, cron: '0 2 * * *', timezone: 'Europe/Berlin' });
    await runUntil(
      f,
      [f.runner('host:a', { graceMs: 10 * MIN }), f.runner('host:b', { graceMs: 10 * MIN }, f.open())],
      Date.UTC(2026, 9, 26, 12),
      5 * MIN,
    );
    // 02:00 CEST on the 25th (00:00 UTC) once, not again at 02:00 CET (01:00 UTC); 02:00 CET on the 26th.
    expect(ticksOf(await runsOf(f, s.id))).toEqual(['2026-10-25T00:00:00.000Z', '2026-10-26T01:00:00.000Z']);
  });

  it('go-co-op/gocron#911, kelektiv/node-cron#563: America/New_York 02:30 is not skipped on 2026-03-08, 01:30 runs once on 2026-11-01', async () => {
    const f = await onFile();
    const runner = f.runner('host:a', { graceMs: 10 * MIN });
    f.clock.set(Date.UTC(2026, 2, 7, 12));
    const spring = await f.host.schedules.create({ ...base, cron: '30 2 * * *', timezone: 'America/New_York' });
    await runUntil(f, [runner], Date.UTC(2026, 2, 9, 12), 5 * MIN);
    // 02:30 does not exist on 2026-03-08: it runs at 03:00 EDT (07:00 UTC), once; 02:30 EDT on the 9th.
    expect(ticksOf(await runsOf(f, spring.id))).toEqual(['2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z']);
    f.clock.set(Date.UTC(2026, 9, 31, 12));
    const fall = await f.host.schedules.create({ ...base, cron: '30 1 * * *', timezone: 'America/New_York' });
    await runUntil(f, [runner], Date.UTC(2026, 10, 2, 12), 5 * MIN);
    // 01:30 happens twice on 2026-11-01 (EDT, then EST): one run, at the first (05:30 UTC); 01:30 EST on the 2nd.
    expect(ticksOf(await runsOf(f, fall.id))).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
  });
});
