// The `schedules` option of createAgentHost: whether this host fires schedules and how its runner polls. Pure: checks
// and defaults.
import { MediaAgentError } from '../../core/errors';

/**
 * Schedules of `AgentOptions.schedules` (docs/schedules.md).
 * @public
 */
export interface ScheduleOptions {
  /**
   * Whether this host process fires due ticks. Its scheduler runs with its run workers: started by `host.start()`
   * (not by `start({ workers: false })`) and stopped by `host.stop()`. `host.schedules` works either way: a host
   * with `enabled: false`, or without workers, still creates and manages schedules that other processes on the same
   * store fire.
   * @defaultValue true
   */
  enabled?: boolean;
  /**
   * How often the runner looks for due schedules, in real ms (a timer of the process, not the host's `clock`; an
   * integer, 1 – 3 600 000).
   * @defaultValue 1 000
   */
  pollMs?: number;
  /**
   * How late a tick may still fire as on time, in ms (an integer, 0 – 86 400 000): a tick older than this when a
   * process sees it counts as missed and the schedule's `missed` policy applies.
   * @defaultValue 60 000
   */
  graceMs?: number;
  /**
   * The shortest interval a schedule may have, in ms (an integer, 1 – 86 400 000): `everyMs` below it, or a cron
   * expression whose ticks come closer together, is refused with `SCHEDULE_INVALID`.
   * @defaultValue 60 000 (one minute)
   */
  minIntervalMs?: number;
  /**
   * The most due schedules the runner handles per poll (an integer, 1 – 1 000).
   * @defaultValue 20
   */
  maxPerPoll?: number;
}

/** {@link ScheduleOptions} after defaults. @public */
export interface ResolvedScheduleOptions {
  /** See {@link ScheduleOptions.enabled}. */
  enabled: boolean;
  /** See {@link ScheduleOptions.pollMs}. */
  pollMs: number;
  /** See {@link ScheduleOptions.graceMs}. */
  graceMs: number;
  /** See {@link ScheduleOptions.minIntervalMs}. */
  minIntervalMs: number;
  /** See {@link ScheduleOptions.maxPerPoll}. */
  maxPerPoll: number;
}

/** The defaults of {@link ScheduleOptions}. @public */
export const DEFAULT_SCHEDULE_OPTIONS: Readonly<ResolvedScheduleOptions> = Object.freeze({
  enabled: true,
  pollMs: 1_000,
  graceMs: 60_000,
  minIntervalMs: 60_000,
  maxPerPoll: 20,
});

/** Each integer option's range. */
const RANGES = {
  pollMs: [1, 3_600_000, 'ms'],
  graceMs: [0, 86_400_000, 'ms'],
  minIntervalMs: [1, 86_400_000, 'ms'],
  maxPerPoll: [1, 1_000, 'schedules'],
} as const;

const invalid = (option: string, message: string) =>
  new MediaAgentError('OPTIONS_INVALID', `option ${option} ${message}`, { option });

/**
 * Checks `schedules` and applies the defaults.
 * @param options - the option as given (undefined: every default)
 * @throws `MediaAgentError` `OPTIONS_INVALID` naming the path (`schedules.pollMs`) for a value that is not an object,
 *   an unknown field, an `enabled` that is not a boolean, or a number that is not an integer in its range
 * @public
 */
export function resolveScheduleOptions(options?: unknown): ResolvedScheduleOptions {
  if (options === undefined) return { ...DEFAULT_SCHEDULE_OPTIONS };
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw invalid('schedules', 'must be an object such as { pollMs: 1000, minIntervalMs: 60000 }');
  const { enabled, ...numbers } = options as Record<string, unknown>;
  const resolved: ResolvedScheduleOptions = { ...DEFAULT_SCHEDULE_OPTIONS };
  if (enabled !== undefined) {
    if (typeof enabled !== 'boolean')
      throw invalid('schedules.enabled', `must be true or false; got ${String(enabled)}`);
    resolved.enabled = enabled;
  }
  for (const [name, value] of Object.entries(numbers)) {
    if (!Object.hasOwn(RANGES, name))
      throw invalid(`schedules.${name}`, `is unknown; known: enabled, ${Object.keys(RANGES).join(', ')}`);
    if (value === undefined) continue;
    const [lo, hi, unit] = RANGES[name as keyof typeof RANGES];
    if (!(typeof value === 'number' && Number.isInteger(value) && value >= lo && value <= hi))
      throw invalid(`schedules.${name}`, `must be an integer from ${lo} to ${hi} (${unit}); got ${String(value)}`);
    resolved[name as keyof typeof RANGES] = value;
  }
  return resolved;
}
