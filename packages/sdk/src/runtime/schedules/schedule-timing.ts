// When a schedule ticks: cron expressions read in an IANA time zone and fixed intervals from an anchor. Pure functions.
// Daylight saving by croner: a wall time in a gap fires once at the first valid instant after it (Europe/Berlin
// 2026-03-29 `30 2 * * *` fires at 03:00 CEST); an hourly-or-slower expression fires once in a repeated hour (the
// first occurrence); a sub-hourly one (`*/30 * * * *`) fires at both instants of the repeated hour, as its wall
// times occur twice. docs/schedules.md shows the cases.
import { Cron } from 'croner';
import type { ScheduleRecord } from '../../core/schedule-records';

/** The fields of a schedule that decide its ticks. @public */
export type ScheduleTiming = Pick<ScheduleRecord, 'cron' | 'everyMs' | 'anchorAt' | 'timezone'>;

const crons = new Map<string, Cron>();

/** A paused croner instance for the expression and zone (cached: parsing is the costly part). */
function cronOf(expression: string, timezone: string): Cron {
  const key = `${timezone}\u0000${expression}`;
  let cron = crons.get(key);
  if (!cron) {
    cron = new Cron(expression, { paused: true, timezone });
    if (crons.size > 1000) crons.clear();
    crons.set(key, cron);
  }
  return cron;
}

/**
 * The first tick strictly after `after` (ms since the epoch), or null when the cron expression has none (a date
 * that never comes again).
 * @param timing - a checked schedule timing (exactly one of `cron`, `everyMs`)
 * @param after - ms since the epoch
 * @public
 */
export function nextTickAfter(timing: ScheduleTiming, after: number): number | null {
  if (timing.everyMs !== null) {
    const every = timing.everyMs;
    if (after < timing.anchorAt) return timing.anchorAt + every;
    const k = Math.floor((after - timing.anchorAt) / every) + 1;
    return timing.anchorAt + k * every;
  }
  if (timing.cron === null) throw new RangeError('a schedule has a cron expression or an interval');
  const next = cronOf(timing.cron, timing.timezone).nextRun(new Date(after));
  return next ? next.getTime() : null;
}

/**
 * The ticks in [`from`, `to`] (ms), oldest first, at most `limit` (the newest are kept when there are more: the
 * result then starts at a later tick and `more` is true).
 * @param timing - a checked schedule timing
 * @param from - the first instant that may be a tick (inclusive)
 * @param to - the last instant that may be a tick (inclusive)
 * @param limit - the most ticks returned
 * @public
 */
export function ticksBetween(
  timing: ScheduleTiming,
  from: number,
  to: number,
  limit: number,
): { ticks: number[]; more: boolean; count: number } {
  const ticks: number[] = [];
  let count = 0;
  if (timing.everyMs !== null) {
    const first = nextTickAfter(timing, from - 1);
    if (first === null || first > to) return { ticks, more: false, count: 0 };
    count = Math.floor((to - first) / timing.everyMs) + 1;
    const start = Math.max(0, count - limit);
    for (let i = start; i < count; i++) ticks.push(first + i * timing.everyMs);
    return { ticks, more: start > 0, count };
  }
  for (let t = nextTickAfter(timing, from - 1); t !== null && t <= to; t = nextTickAfter(timing, t)) {
    count++;
    ticks.push(t);
    if (ticks.length > limit) ticks.shift();
  }
  return { ticks, more: count > ticks.length, count };
}
