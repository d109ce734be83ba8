// What the due ticks of a schedule mean at one poll: which tick fires, which are recorded skipped, and where the
// schedule goes next. Pure (docs/schedules.md#exactly-one-run-per-tick).
import { utcDayStart } from '../../core/utc-day';
import type { JsonValue } from '../../core/records';
import type { ScheduleRecord, ScheduleSkipReason } from '../../core/schedule-records';
import { type ScheduleDailyCaps, scheduleDailyCaps } from './schedule-budgets';
import { nextTickAfter, ticksBetween } from './schedule-timing';

/** What a schedule's ticks of one UTC day started: runs, and their model cost in USD. @public */
export interface ScheduleDailyUse {
  /** Runs started (fired ticks) that day. */
  runs: number;
  /** The sum of those runs' `usage.costUsd`. */
  costUsd: number;
}

/**
 * Which daily cap leaves no room for one more run, or null: `runs` when `use.runs >= maxRunsPerDay`, `costUsd`
 * when `use.costUsd >= maxCostUsdPerDay`.
 * @public
 */
export function dailyCapReached(caps: ScheduleDailyCaps, use: ScheduleDailyUse): 'runs' | 'costUsd' | null {
  if (caps.maxRunsPerDay !== null && use.runs >= caps.maxRunsPerDay) return 'runs';
  if (caps.maxCostUsdPerDay !== null && use.costUsd >= caps.maxCostUsdPerDay) return 'costUsd';
  return null;
}

/** The fields of a schedule a tick plan reads. @public */
export type TickPlanSchedule = Pick<
  ScheduleRecord,
  'cron' | 'everyMs' | 'anchorAt' | 'timezone' | 'missed' | 'budgets' | 'nextTickAt' | 'lastTickAt'
>;

/** One tick record a plan asks to claim (the runner adds the schedule id, run id, time and process). @public */
export interface PlannedTick {
  /** `fired` or `skipped`. */
  outcome: 'fired' | 'skipped';
  /** The tick (for a skipped batch, its newest). */
  tickAt: number;
  /** The oldest tick covered. */
  firstTickAt: number;
  /** Ticks covered (1 for a fire). */
  ticks: number;
  /** Why nothing started; null for a fire. */
  reason: ScheduleSkipReason | null;
}

/** What one poll does with a due schedule. @public */
export interface TickPlan {
  /** The tick records to claim, oldest first (at most one `fired`). */
  records: PlannedTick[];
  /** The tick that starts a run, or null. */
  fire: number | null;
  /** The fire turned into a `daily_budget` skip, and which cap: `runs` or `costUsd`; else null. */
  capped: 'runs' | 'costUsd' | null;
  /** The schedule's next `nextTickAt`: the first tick after `now` (null when the cron expression has none). */
  nextTickAt: number | null;
  /** The schedule's next `lastTickAt`: the newest tick handled. */
  lastTickAt: number | null;
}

/** Input of {@link tickPlan}. @public */
export interface TickPlanInput {
  /** The schedule as stored. */
  schedule: TickPlanSchedule;
  /** The poll's time (ms). */
  now: number;
  /** How late a tick may be handled and still fire on time (ms). */
  graceMs: number;
  /** What the schedule started on the UTC day of the tick that would fire ({@link firingDay}); default none. */
  used?: ScheduleDailyUse;
}

/**
 * The tick that would fire before daily caps, or null: the newest due tick when it is within `graceMs` of `now`
 * (on time), else, for `catch_up_one`, the newest missed tick.
 * @public
 */
export function candidateFire(schedule: TickPlanSchedule, now: number, graceMs: number): number | null {
  const due = dueTicks(schedule, now);
  if (!due) return null;
  if (now - due.newest <= graceMs || schedule.missed === 'catch_up_one') return due.newest;
  return null;
}

/**
 * The start (ms) of the UTC day whose counts {@link tickPlan} needs in `used`: that of the tick that would fire,
 * or null when none would.
 * @public
 */
export function firingDay(schedule: TickPlanSchedule, now: number, graceMs: number): number | null {
  const fire = candidateFire(schedule, now, graceMs);
  return fire === null ? null : utcDayStart(fire);
}

/** The due ticks of a schedule: the oldest, the newest and how many; undefined when none is due. */
function dueTicks(
  schedule: TickPlanSchedule,
  now: number,
): { first: number; newest: number; before: number | null; count: number } | undefined {
  const from = schedule.nextTickAt;
  if (from === null || from > now) return undefined;
  const { ticks, count, more } = ticksBetween(schedule, from, now, 2);
  if (count === 0) return undefined;
  const newest = ticks[ticks.length - 1]!;
  const first = more ? (nextTickAfter(schedule, from - 1) ?? from) : ticks[0]!;
  return { first, newest, before: ticks.length > 1 ? ticks[ticks.length - 2]! : null, count };
}

/**
 * Decides what the due ticks (from `schedule.nextTickAt` to `now`) mean. The newest due tick fires when it is within
 * `graceMs` of `now`; the older ones were missed and are recorded as one skipped batch (reason `missed`). When the
 * newest is late too, `skip` fires nothing (every due tick is in the missed batch) and `catch_up_one` fires the
 * newest and records the rest skipped. At most one tick fires per plan, and every due tick is covered by exactly one
 * record. A fire over a daily cap (`used` against the schedule's `scheduleDailyCaps`) is recorded skipped instead
 * (reason `daily_budget`). The next `nextTickAt` is the first tick after `now`.
 * @public
 */
export function tickPlan(input: TickPlanInput): TickPlan {
  const { schedule, now, graceMs } = input;
  const due = dueTicks(schedule, now);
  if (!due)
    return { records: [], fire: null, capped: null, nextTickAt: schedule.nextTickAt, lastTickAt: schedule.lastTickAt };
  const nextTickAt = nextTickAfter(schedule, now);
  let fire = candidateFire(schedule, now, graceMs);
  const records: PlannedTick[] = [];
  const missed = fire === null ? due.count : due.count - 1;
  if (missed > 0)
    records.push({
      outcome: 'skipped',
      tickAt: fire === null ? due.newest : (due.before ?? due.newest),
      firstTickAt: due.first,
      ticks: missed,
      reason: 'missed',
    });
  let capped: TickPlan['capped'] = null;
  if (fire !== null) {
    capped = dailyCapReached(scheduleDailyCaps(schedule.budgets), input.used ?? { runs: 0, costUsd: 0 });
    records.push({
      outcome: capped ? 'skipped' : 'fired',
      tickAt: fire,
      firstTickAt: fire,
      ticks: 1,
      reason: capped ? 'daily_budget' : null,
    });
    if (capped) fire = null;
  }
  return { records, fire, capped, nextTickAt, lastTickAt: due.newest };
}
