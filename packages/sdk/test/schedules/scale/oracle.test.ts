// The scale test's oracle on made-up scenarios: a reference scheduler (the documented tick rule: the newest due tick
// fires when on time, else — for catch_up_one — late; older due ticks are one skipped batch) run over alive spans
// yields records the oracle accepts; each kind of fault put into them is found.
import { describe, expect, it } from 'vitest';
import type { ScheduleTickRecord } from '../../../src/core/schedule-records';
import { nextTickAfter, ticksBetween } from '../../../src/runtime/schedules/schedule-timing';
import { allDownSpans, judgeSchedules, type OracleRun, type OracleSchedule, type Span } from './oracle';

const T0 = Date.UTC(2026, 2, 1, 0, 0, 0);
const MIN = 60_000;
const GRACE = 45_000;
const POLL = 5_000;

function schedule(id: string, missed: 'skip' | 'catch_up_one', timing: { everyMs?: number; cron?: string }) {
  const s = {
    id,
    cron: timing.cron ?? null,
    everyMs: timing.everyMs ?? null,
    anchorAt: T0,
    timezone: 'UTC',
    missed,
  };
  return { ...s, firstTickAt: nextTickAfter(s, T0)! } satisfies OracleSchedule;
}

/** Polls every POLL ms while a span is alive and applies the tick rule; returns the rows and runs. */
function simulate(schedules: OracleSchedule[], alive: Array<Span & { start?: number }>, to: number) {
  const polls = [
    ...new Set(
      alive.flatMap(
        (s) =>
          ticksBetween(
            { cron: null, everyMs: POLL, anchorAt: s.from - POLL, timezone: 'UTC' },
            s.from,
            Math.min(s.to, to),
            1e6,
          ).ticks,
      ),
    ),
  ].sort((a, b) => a - b);
  const ticks: ScheduleTickRecord[] = [];
  const runs: OracleRun[] = [];
  const next = new Map(schedules.map((s) => [s.id, s.firstTickAt]));
  let n = 0;
  for (const now of polls)
    for (const s of schedules) {
      const from = next.get(s.id)!;
      if (from > now) continue;
      const due = ticksBetween(s, from, now, 1e6).ticks;
      const newest = due[due.length - 1]!;
      const fire = now - newest <= GRACE || s.missed === 'catch_up_one' ? newest : null;
      const missed = fire === null ? due : due.slice(0, -1);
      const base = { scheduleId: s.id, handledAt: now, handledBy: 'sim' };
      if (missed.length)
        ticks.push({
          ...base,
          tickAt: missed[missed.length - 1]!,
          firstTickAt: missed[0]!,
          ticks: missed.length,
          outcome: 'skipped',
          runId: null,
          reason: 'missed',
        });
      if (fire !== null) {
        const runId = `run_${++n}`;
        ticks.push({ ...base, tickAt: fire, firstTickAt: fire, ticks: 1, outcome: 'fired', runId, reason: null });
        runs.push({ id: runId, scheduleId: s.id, tickAt: null });
      }
      next.set(s.id, nextTickAfter(s, now)!);
    }
  return { ticks, runs };
}

const END = T0 + 120 * MIN;
const schedules = [
  schedule('sch_every', 'skip', { everyMs: MIN }),
  schedule('sch_catch', 'catch_up_one', { everyMs: 2 * MIN }),
  schedule('sch_cron', 'catch_up_one', { cron: '*/3 * * * *' }),
  schedule('sch_cron_skip', 'skip', { cron: '* * * * *' }),
];
// Processes overlapping, one all-down gap of 20.5 min (40–60.5, ready at 61.5), a start-up gap of 90 s.
const spans: Array<Span & { start?: number }> = [
  { start: T0 + 60_000, from: T0 + 90_000, to: T0 + 30 * MIN },
  { from: T0 + 25 * MIN, to: T0 + 40 * MIN },
  { start: T0 + 60.5 * MIN, from: T0 + 61.5 * MIN, to: END },
  { from: T0 + 70 * MIN, to: T0 + 100 * MIN },
];
const window = { from: T0, to: END };

function clean() {
  const { ticks, runs } = simulate(schedules, spans, END);
  // Alive from the start; polling from ready every POLL ms (the last poll of a span unfinished), but for a 10 min
  // stall of the first process (it polls on time anyway in the simulation: a stall only removes the duty to fire).
  const alive = spans.map((s) => ({ from: s.start ?? s.from, to: s.to }));
  const polling = spans.flatMap((s, i) =>
    i === 0
      ? [
          { from: s.from, to: T0 + 5 * MIN },
          { from: T0 + 15 * MIN, to: s.to },
        ]
      : [{ from: s.from, to: s.to }],
  );
  const polls = polling.flatMap((s) =>
    Array.from({ length: Math.max(0, Math.floor((s.to - s.from) / POLL)) }, (_, k) => ({
      from: s.from + k * POLL,
      to: s.from + (k + 1) * POLL,
    })),
  );
  return { schedules, window, graceMs: GRACE, alive, polls, ticks, runs };
}

describe('scale oracle', () => {
  it('accepts what the tick rule does over kills and a gap: no double or missed fire, every decidable tick handled', () => {
    const r = judgeSchedules(clean());
    expect(r.violations).toEqual([]);
    expect(r.doubleFires).toBe(0);
    expect(r.missedFires).toBe(0);
    expect(r.gaps).toBe(1);
    expect(r.unhandled).toBe(0);
    expect(r.fired + r.skipped).toBe(r.ticks);
    expect(r.runs).toBe(clean().ticks.filter((t) => t.outcome === 'fired').length);
    // 119 + 59 + 39 + 119 decidable ticks (to END − grace); the gap and the start-up missed some.
    expect(r.ticks).toBe(119 + 59 + 39 + 119);
    expect(r.covered).toBeGreaterThan(230);
    expect(r.uncovered).toBeGreaterThan(20);
    expect(r.skipped).toBeGreaterThan(20);
  });

  it('counts a second run of a tick, and a run no fired tick row names, as double fires', () => {
    const input = clean();
    const fired = input.ticks.find((t) => t.outcome === 'fired')!;
    input.runs.push({ id: 'run_dup', scheduleId: fired.scheduleId, tickAt: fired.tickAt });
    input.runs.push({ id: 'run_unclaimed', scheduleId: 'sch_every', tickAt: null });
    const r = judgeSchedules(input);
    expect(r.doubleFires).toBe(2);
    expect(r.examples.doubleFires).toContain('sch_every: run run_unclaimed without a claimed tick');
    expect(r.examples.doubleFires).toContain(
      `${fired.scheduleId}@${new Date(fired.tickAt).toISOString()}: 2 runs, 1 tick rows`,
    );
  });

  it('counts a second tick row of a key (a fired tick also in a skipped batch) as a double fire', () => {
    const input = clean();
    const fired = input.ticks.find((t) => t.outcome === 'fired' && t.scheduleId === 'sch_every')!;
    input.ticks.push({
      ...fired,
      outcome: 'skipped',
      runId: null,
      reason: 'missed',
      handledAt: fired.tickAt + GRACE + 1,
    });
    const r = judgeSchedules(input);
    expect(r.doubleFires).toBe(1);
  });

  it('counts a covered tick without a run as a missed fire', () => {
    const input = clean();
    const t = T0 + 20 * MIN; // process 1 polls within [t, t + grace]
    input.ticks = input.ticks.filter((k) => !(k.scheduleId === 'sch_every' && k.tickAt === t));
    input.runs = input.runs.filter((run) => !input.ticks.every((k) => k.runId !== run.id));
    const r = judgeSchedules(input);
    expect(r.missedFires).toBe(1);
    expect(r.examples.missedFires).toEqual([`sch_every@${new Date(t).toISOString()}`]);
    expect(r.unhandled).toBe(1);
    // Later polls finished: the tick should be in a record.
    expect(r.unhandledSeen).toBe(1);
  });

  it('leaves a tick no finished poll began after unhandled, not seen: the machine never polled again', () => {
    const input = clean();
    const t = END - 5 * MIN;
    input.polls = input.polls.filter((p) => p.to < END - 10 * MIN);
    input.ticks = input.ticks.filter((k) => !(k.scheduleId === 'sch_every' && k.tickAt === t));
    input.runs = input.runs.filter((run) => !input.ticks.every((k) => k.runId !== run.id));
    const r = judgeSchedules(input);
    expect(r.unhandled).toBe(1);
    expect(r.unhandledSeen).toBe(0);
    expect(r.missedFires).toBe(0);
  });

  it('does not count a tick without a run while every process was stalled (alive, no poll began)', () => {
    const input = clean();
    const t = T0 + 10 * MIN; // only process 1 alive, its polls stalled from 5 to 15 min
    input.ticks = input.ticks.filter((k) => !(k.scheduleId === 'sch_every' && k.tickAt === t));
    input.runs = input.runs.filter((run) => !input.ticks.every((k) => k.runId !== run.id));
    const r = judgeSchedules(input);
    expect(r.missedFires).toBe(0);
    expect(r.unhandled).toBe(1);
  });

  it('finds a skip schedule that fired a tick missed in the gap', () => {
    const input = clean();
    const gapTick = T0 + 50 * MIN;
    const batch = input.ticks.find(
      (k) => k.scheduleId === 'sch_every' && k.reason === 'missed' && k.firstTickAt <= gapTick && k.tickAt >= gapTick,
    )!;
    // Fire the batch's oldest tick late instead.
    const oldest = batch.firstTickAt;
    batch.ticks -= 1;
    batch.firstTickAt += MIN;
    input.ticks.push({
      ...batch,
      tickAt: oldest,
      firstTickAt: oldest,
      ticks: 1,
      outcome: 'fired',
      runId: 'run_late',
      reason: null,
    });
    input.runs.push({ id: 'run_late', scheduleId: 'sch_every', tickAt: null });
    const r = judgeSchedules(input);
    expect(r.doubleFires).toBe(0);
    expect(r.violations.some((v) => /sch_every.*skip policy, but fired late/.test(v))).toBe(true);
    expect(r.violations.some((v) => /sch_every.*skip policy, but the tick missed in the gap/.test(v))).toBe(true);
  });

  it('finds a catch_up_one schedule that fired an older missed tick, or nothing after the gap', () => {
    const older = clean();
    const catchUp = older.ticks.find(
      (k) =>
        k.scheduleId === 'sch_catch' &&
        k.outcome === 'fired' &&
        k.handledAt - k.tickAt > GRACE &&
        k.tickAt > T0 + 40 * MIN,
    )!;
    const batch = older.ticks.find(
      (k) => k.scheduleId === 'sch_catch' && k.reason === 'missed' && k.tickAt === catchUp.tickAt - 2 * MIN,
    )!;
    // Fire the batch's oldest tick too.
    const oldest = batch.firstTickAt;
    batch.ticks -= 1;
    batch.firstTickAt += 2 * MIN;
    older.ticks.push({ ...catchUp, tickAt: oldest, firstTickAt: oldest, runId: 'run_old' });
    older.runs.push({ id: 'run_old', scheduleId: 'sch_catch', tickAt: null });
    const r = judgeSchedules(older);
    expect(r.doubleFires).toBe(0);
    expect(r.violations.some((v) => /sch_catch.*catch_up_one fired a missed tick older than the newest/.test(v))).toBe(
      true,
    );

    const none = clean();
    const fire = none.ticks.find(
      (k) =>
        k.scheduleId === 'sch_cron' &&
        k.outcome === 'fired' &&
        k.handledAt - k.tickAt > GRACE &&
        k.tickAt > T0 + 40 * MIN,
    )!;
    Object.assign(fire, { outcome: 'skipped', runId: null, reason: 'missed' });
    none.runs = none.runs.filter((run) => none.ticks.some((k) => k.runId === run.id));
    const r2 = judgeSchedules(none);
    expect(
      r2.violations.some((v) => /sch_cron.*catch_up_one, the poll at .* fired not the newest due tick/.test(v)),
    ).toBe(true);
  });

  it('finds a skipped batch whose tick count does not match the timing, and a run of a skipped tick', () => {
    const input = clean();
    const batch = input.ticks.find((k) => k.reason === 'missed' && k.ticks > 2)!;
    batch.ticks += 1;
    input.runs.push({ id: 'run_of_skipped', scheduleId: batch.scheduleId, tickAt: batch.tickAt });
    const r = judgeSchedules(input);
    expect(r.violations.some((v) => v.includes(`says ${batch.ticks} ticks`))).toBe(true);
    expect(r.violations.some((v) => v.includes('a run for a tick recorded skipped'))).toBe(true);
  });

  it('allDownSpans: the complement of the alive spans in the window', () => {
    expect(
      allDownSpans(
        [
          { from: 10, to: 20 },
          { from: 15, to: 30 },
          { from: 40, to: 50 },
        ],
        0,
        60,
      ),
    ).toEqual([
      { from: 0, to: 10 },
      { from: 30, to: 40 },
      { from: 50, to: 60 },
    ]);
    expect(allDownSpans([{ from: 0, to: 100 }], 0, 60)).toEqual([]);
  });
});
