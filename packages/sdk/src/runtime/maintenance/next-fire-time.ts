// When scheduled maintenance runs next: a daily time of day in a time zone, computed by croner.
import { Cron } from 'croner';

/**
 * A daily time of scheduled maintenance.
 * @public
 */
export interface MaintenanceSchedule {
  /** Hour of the day, 0–23. */
  hour: number;
  /** Minute of the hour, 0–59. @defaultValue 0 */
  minute?: number;
  /**
   * An IANA time zone (`Europe/Berlin`); the time of day is read there, daylight saving time included.
   * @defaultValue the process's local time zone
   */
  timezone?: string;
}

/**
 * The first time strictly after `after` at which `schedule` fires (ms since the epoch).
 * @param schedule - a checked schedule
 * @param after - ms since the epoch (the host clock's now)
 * @public
 */
export function nextFireTime(schedule: MaintenanceSchedule, after: number): number {
  const cron = new Cron(`${schedule.minute ?? 0} ${schedule.hour} * * *`, {
    paused: true,
    ...(schedule.timezone !== undefined ? { timezone: schedule.timezone } : {}),
  });
  const next = cron.nextRun(new Date(after));
  if (!next) throw new RangeError('the maintenance schedule has no next run');
  return next.getTime();
}
