// The tick plan: which due tick fires, which are recorded skipped, daily caps. Cases, then properties over random
// poll times (fast-check): no tick is handled twice, every due tick is covered once, a tick polled on time fires,
// the daily caps hold.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utcDayStart } from '../../../src/core/utc-day';
import { scheduleDailyCaps as dailyCaps } from '../../../src/runtime/schedules/schedule-budgets';
import { firingDay, tickPlan, type TickPlanSchedule } from '../../../src/runtime/schedules/schedule-tick-plan';
import { nextTickAfter } from '../../../src/runtime/schedules/schedule-timing';

const T0 = Date.UTC(2026, 2, 1, 0, 0, 0);
const MIN = 60_000;
const HOUR = 3_600_000;

const every = (ms: number, over: Partial<TickPlanSchedule> = {}): TickPlanSchedule => ({
  cron: null,
  everyMs: ms,
  anchorAt: T0,
  timezone: 'UTC',
  missed: 'skip',
  budgets: {},
  nextTickAt: T0 + ms,
  lastTickAt: null,
  ...over,
});

describe('tickPlan', () => {
  it('fires the one due tick when polled within the grace', () => {
    const plan = tickPlan({ schedule: every(HOUR), now: T0 + HOUR + 5_000, graceMs: MIN });
    expect(plan.fire).toBe(T0 + HOUR);
    expect(plan.records).toEqual([
      { outcome: 'fired', tickAt: T0 + HOUR, firstTickAt: T0 + HOUR, ticks: 1, reason: null },
    ]);
    expect(plan.nextTickAt).toBe(T0 + 2 * HOUR);
    expect(plan.lastTickAt).toBe(T0 + HOUR);
  });

  it('nothing is due before nextTickAt, nor for a paused schedule', () => {
    expect(tickPlan({ schedule: every(HOUR), now: T0 + HOUR - 1, graceMs: MIN }).records).toEqual([]);
    expect(tickPlan({ schedule: every(HOUR, { nextTickAt: null }), now: T0 + 9 * HOUR, graceMs: MIN }).fire).toBe(null);
  });

  it('skip: after 5 h of downtime one skipped record covers the 5 missed ticks and nothing fires', () => {
    const plan = tickPlan({ schedule: every(HOUR), now: T0 + 5 * HOUR + 30 * MIN, graceMs: MIN });
    expect(plan.fire).toBe(null);
    expect(plan.records).toEqual([
      { outcome: 'skipped', tickAt: T0 + 5 * HOUR, firstTickAt: T0 + HOUR, ticks: 5, reason: 'missed' },
    ]);
    expect(plan.nextTickAt).toBe(T0 + 6 * HOUR);
  });

  it('catch_up_one: the newest missed tick fires once and the 4 older are one skipped record', () => {
    const plan = tickPlan({
      schedule: every(HOUR, { missed: 'catch_up_one' }),
      now: T0 + 5 * HOUR + 30 * MIN,
      graceMs: MIN,
    });
    expect(plan.fire).toBe(T0 + 5 * HOUR);
    expect(plan.records).toEqual([
      { outcome: 'skipped', tickAt: T0 + 4 * HOUR, firstTickAt: T0 + HOUR, ticks: 4, reason: 'missed' },
      { outcome: 'fired', tickAt: T0 + 5 * HOUR, firstTickAt: T0 + 5 * HOUR, ticks: 1, reason: null },
    ]);
  });

  it('skip with the newest tick on time: it fires, the older ones are recorded missed', () => {
    const plan = tickPlan({ schedule: every(HOUR), now: T0 + 3 * HOUR + 10_000, graceMs: MIN });
    expect(plan.fire).toBe(T0 + 3 * HOUR);
    expect(plan.records.map((r) => [r.outcome, r.tickAt, r.ticks, r.reason])).toEqual([
      ['skipped', T0 + 2 * HOUR, 2, 'missed'],
      ['fired', T0 + 3 * HOUR, 1, null],
    ]);
  });

  it('a cron schedule (0 3 * * * in Europe/Berlin) missed for a week', () => {
    const base = {
      cron: '0 3 * * *',
      everyMs: null,
      anchorAt: T0,
      timezone: 'Europe/Berlin',
      budgets: {},
      lastTickAt: null,
    } as const;
    const first = nextTickAfter(base, T0)!;
    expect(new Date(first).toISOString()).toBe('2026-03-01T02:00:00.000Z');
    const plan = tickPlan({
      schedule: { ...base, missed: 'skip', nextTickAt: first },
      now: first + 7 * 24 * HOUR - HOUR,
      graceMs: MIN,
    });
    expect(plan.records).toEqual([
      {
        outcome: 'skipped',
        tickAt: first + 6 * 24 * HOUR,
        firstTickAt: first,
        ticks: 7,
        reason: 'missed',
      },
    ]);
    expect(plan.nextTickAt).toBe(first + 7 * 24 * HOUR);
  });

  it('daily caps: a fire over maxRunsPerDay or maxCostUsdPerDay is skipped daily_budget', () => {
    const schedule = every(HOUR, { budgets: { maxRunsPerDay: 2, maxCostUsdPerDay: 0.5 } });
    const now = T0 + HOUR + 1000;
    expect(firingDay(schedule, now, MIN)).toBe(utcDayStart(T0 + HOUR));
    expect(tickPlan({ schedule, now, graceMs: MIN, used: { runs: 1, costUsd: 0.49 } }).fire).toBe(T0 + HOUR);
    const byRuns = tickPlan({ schedule, now, graceMs: MIN, used: { runs: 2, costUsd: 0 } });
    expect(byRuns).toMatchObject({ fire: null, capped: 'runs', nextTickAt: T0 + 2 * HOUR });
    expect(byRuns.records).toEqual([
      { outcome: 'skipped', tickAt: T0 + HOUR, firstTickAt: T0 + HOUR, ticks: 1, reason: 'daily_budget' },
    ]);
    expect(tickPlan({ schedule, now, graceMs: MIN, used: { runs: 0, costUsd: 0.5 } }).capped).toBe('costUsd');
  });

  it('dailyCaps: defaults 48 runs and 1 USD, null is no cap', () => {
    expect(dailyCaps({})).toEqual({ maxRunsPerDay: 48, maxCostUsdPerDay: 1 });
    expect(dailyCaps({ maxRunsPerDay: null, maxCostUsdPerDay: 3 })).toEqual({
      maxRunsPerDay: null,
      maxCostUsdPerDay: 3,
    });
    expect(dailyCaps(null)).toEqual({ maxRunsPerDay: 48, maxCostUsdPerDay: 1 });
  });
});

/** Polls a schedule at the given times, applying each plan as the runner stores it. */
function simulate(
  schedule: TickPlanSchedule,
  polls: number[],
  graceMs: number,
  costPerRun = 0,
): {
  records: ReturnType<typeof tickPlan>['records'];
  plans: Array<{ now: number; plan: ReturnType<typeof tickPlan> }>;
} {
  const records: ReturnType<typeof tickPlan>['records'] = [];
  const plans: Array<{ now: number; plan: ReturnType<typeof tickPlan> }> = [];
  let current = schedule;
  for (const now of polls) {
    const day = firingDay(current, now, graceMs);
    const fired = day === null ? [] : records.filter((r) => r.outcome === 'fired' && utcDayStart(r.tickAt) === day);
    const plan = tickPlan({
      schedule: current,
      now,
      graceMs,
      used: { runs: fired.length, costUsd: fired.length * costPerRun },
    });
    plans.push({ now, plan });
    records.push(...plan.records);
    current = { ...current, nextTickAt: plan.nextTickAt, lastTickAt: plan.lastTickAt };
  }
  return { records, plans };
}

const pollTimes = (everyMs: number) =>
  fc
    .array(fc.integer({ min: 1, max: everyMs * 6 }), { minLength: 1, maxLength: 60 })
    .map((gaps) => gaps.reduce<number[]>((acc, g) => [...acc, (acc.at(-1) ?? T0) + g], []));

describe('tickPlan properties', () => {
  const arb = fc.record({
    everyMs: fc.constantFrom(MIN, 5 * MIN, HOUR),
    missed: fc.constantFrom('skip' as const, 'catch_up_one' as const),
    graceFraction: fc.double({ min: 0.01, max: 0.9, noNaN: true }),
  });

  it('never two records for one tick, every due tick covered exactly once, at most one fire per poll', () => {
    fc.assert(
      fc.property(
        arb.chain((a) => pollTimes(a.everyMs).map((polls) => ({ ...a, polls }))),
        (a) => {
          const graceMs = Math.floor(a.everyMs * a.graceFraction);
          const { records, plans } = simulate(
            every(a.everyMs, { missed: a.missed, budgets: { maxRunsPerDay: null, maxCostUsdPerDay: null } }),
            a.polls,
            graceMs,
          );
          const keys = records.map((r) => r.tickAt);
          expect(new Set(keys).size).toBe(keys.length);
          const fires = records.filter((r) => r.outcome === 'fired').map((r) => r.tickAt);
          expect(new Set(fires).size).toBe(fires.length);
          // Coverage: the ticks up to the last poll, each in exactly one record.
          const last = a.polls.at(-1)!;
          const due = Math.floor((last - T0) / a.everyMs);
          expect(records.reduce((n, r) => n + r.ticks, 0)).toBe(due);
          for (const { now, plan } of plans) {
            expect(plan.records.filter((r) => r.outcome === 'fired').length).toBeLessThanOrEqual(1);
            // The newest due tick polled within the grace fires, whatever the policy.
            const newest = T0 + Math.floor((now - T0) / a.everyMs) * a.everyMs;
            if (plan.records.length > 0 && now - newest <= graceMs) expect(plan.fire).toBe(newest);
            // skip never fires a late tick.
            if (a.missed === 'skip' && plan.fire !== null) expect(now - plan.fire).toBeLessThanOrEqual(graceMs);
            if (plan.nextTickAt !== null) expect(plan.nextTickAt).toBeGreaterThan(now);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the daily caps hold: fires per UTC day never exceed maxRunsPerDay nor, by cost, maxCostUsdPerDay', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 1, max: 4 }),
        pollTimes(5 * MIN).map((p) => p.map((t, i) => t + i * 2 * HOUR)),
        (maxRuns, costCents, polls) => {
          const costPerRun = costCents / 100;
          const { records } = simulate(
            every(5 * MIN, { missed: 'catch_up_one', budgets: { maxRunsPerDay: maxRuns, maxCostUsdPerDay: 0.1 } }),
            polls,
            MIN,
            costPerRun,
          );
          const perDay = new Map<number, number>();
          for (const r of records.filter((x) => x.outcome === 'fired'))
            perDay.set(utcDayStart(r.tickAt), (perDay.get(utcDayStart(r.tickAt)) ?? 0) + 1);
          for (const n of perDay.values()) {
            expect(n).toBeLessThanOrEqual(maxRuns);
            // The cost cap stops a run once the day's cost reached it: at most one run over it.
            expect((n - 1) * costPerRun).toBeLessThan(0.1 + 1e-9);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
