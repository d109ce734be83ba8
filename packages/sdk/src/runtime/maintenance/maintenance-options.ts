// The `maintenance` option of createAgentHost: when the scheduled prune runs. Pure: checks and defaults.
import { MediaAgentError } from '../../core/errors';
import { type MaintenanceSchedule, nextFireTime } from './next-fire-time';

/**
 * Scheduled maintenance of `AgentOptions.maintenance`.
 * @public
 */
export interface MaintenanceOptions {
  /**
   * When `host.maintenance.prune()` runs by itself: daily at `hour:minute` in `timezone`, read from the host's
   * clock; one process of many prunes each day (a named lease in the store). `false` turns it off.
   * @defaultValue `{ hour: 4, minute: 0 }` in the process's local time zone (a quiet hour at home)
   */
  schedule?: MaintenanceSchedule | false;
  /**
   * How often the schedule looks at the host's clock, in ms (1 – 3 600 000).
   * @defaultValue 60 000
   */
  pollMs?: number;
}

/** Scheduled maintenance after defaults. @public */
export interface ResolvedMaintenanceOptions {
  /** The daily time, or false when the schedule is off. */
  schedule: MaintenanceSchedule | false;
  /** See {@link MaintenanceOptions.pollMs}. */
  pollMs: number;
}

/** The default schedule: daily at 04:00, local time. @public */
export const DEFAULT_MAINTENANCE_SCHEDULE: MaintenanceSchedule = Object.freeze({ hour: 4, minute: 0 });

const invalid = (option: string, message: string) =>
  new MediaAgentError('OPTIONS_INVALID', `option ${option} ${message}`, { option });

const integerIn = (v: unknown, lo: number, hi: number) =>
  typeof v === 'number' && Number.isInteger(v) && v >= lo && v <= hi;

/**
 * Checks `maintenance` and applies the defaults.
 * @throws `MediaAgentError` `OPTIONS_INVALID` naming the path (`maintenance.schedule.hour`) for an hour
 *   outside 0–23, a minute outside 0–59, a time zone the runtime does not know, an unknown field or a `pollMs`
 *   outside 1 – 3 600 000
 * @public
 */
export function resolveMaintenanceOptions(options?: unknown): ResolvedMaintenanceOptions {
  if (options === undefined) return { schedule: DEFAULT_MAINTENANCE_SCHEDULE, pollMs: 60_000 };
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw invalid('maintenance', 'must be an object such as { schedule: { hour: 4 } }');
  const { schedule, pollMs, ...rest } = options as Record<string, unknown>;
  for (const key of Object.keys(rest)) throw invalid(`maintenance.${key}`, 'is unknown; known: schedule, pollMs');
  if (pollMs !== undefined && !integerIn(pollMs, 1, 3_600_000))
    throw invalid('maintenance.pollMs', `must be an integer from 1 to 3600000 (ms); got ${String(pollMs)}`);
  return { schedule: checkSchedule(schedule), pollMs: (pollMs as number | undefined) ?? 60_000 };
}

function checkSchedule(schedule: unknown): MaintenanceSchedule | false {
  if (schedule === undefined) return DEFAULT_MAINTENANCE_SCHEDULE;
  if (schedule === false) return false;
  if (typeof schedule !== 'object' || schedule === null || Array.isArray(schedule))
    throw invalid('maintenance.schedule', 'must be { hour, minute?, timezone? } or false');
  const { hour, minute, timezone, ...rest } = schedule as Record<string, unknown>;
  for (const key of Object.keys(rest))
    throw invalid(`maintenance.schedule.${key}`, 'is unknown; known: hour, minute, timezone');
  if (!integerIn(hour, 0, 23))
    throw invalid('maintenance.schedule.hour', `must be an integer from 0 to 23; got ${String(hour)}`);
  if (minute !== undefined && !integerIn(minute, 0, 59))
    throw invalid('maintenance.schedule.minute', `must be an integer from 0 to 59; got ${String(minute)}`);
  if (timezone !== undefined && typeof timezone !== 'string')
    throw invalid('maintenance.schedule.timezone', 'must be an IANA time zone such as "Europe/Berlin"');
  const checked: MaintenanceSchedule = {
    hour: hour as number,
    ...(minute !== undefined ? { minute: minute as number } : {}),
    ...(timezone !== undefined ? { timezone: timezone as string } : {}),
  };
  try {
    nextFireTime(checked, 0);
  } catch {
    throw invalid('maintenance.schedule.timezone', `is not a time zone this runtime knows: ${String(timezone)}`);
  }
  return checked;
}
