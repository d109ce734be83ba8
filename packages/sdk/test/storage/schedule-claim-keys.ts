/** The keys the schedule claim race contests: what the parent test and its child processes agree on. */

/** One key: a tick of a schedule. */
export interface ClaimKey {
  readonly scheduleId: string;
  readonly tickAt: number;
}

/** The first tick of the race (ms). */
export const FIRST_TICK = Date.UTC(2026, 0, 5, 3, 0);
/** Ticks are this far apart (ms): every 15 minutes. */
export const TICK_MS = 15 * 60_000;

/** The ids of `schedules` schedules: `sch-race-0` … */
export function scheduleIds(schedules: number): string[] {
  return Array.from({ length: schedules }, (_, i) => `sch-race-${i}`);
}

/** `ticksPerSchedule` consecutive ticks of each of `schedules` schedules, schedule by schedule. */
export function claimKeys(schedules: number, ticksPerSchedule: number): ClaimKey[] {
  return scheduleIds(schedules).flatMap((scheduleId) =>
    Array.from({ length: ticksPerSchedule }, (_, k) => ({ scheduleId, tickAt: FIRST_TICK + k * TICK_MS })),
  );
}
