// What one actor, and the whole host, may open: event streams at once, runs started per minute.
import { MediaAgentError } from '../../core/errors';

/**
 * Limits on what callers may open on one host process (`AgentOptions.limits`). Counted per actor
 * string (`user:<id>` is a person; each API key counts on its own) and for the host as a whole, in
 * this process. Defaults suit a household on a NAS.
 * @public
 */
export interface HostLimits {
  /**
   * Event streams one actor may hold open at once: HTTP SSE streams of `GET /api/events` and
   * `host.events({ actor })` subscriptions; one more is refused with `STREAM_LIMIT_REACHED` (HTTP 429).
   * @defaultValue 8
   */
  streamsPerActor: number;
  /**
   * Event streams open at once on the host, every actor together (trusted `host.events()` subscriptions
   * without an `actor` are not counted).
   * @defaultValue 64
   */
  streamsTotal: number;
  /**
   * Runs one actor may start in any 60 s window (`host.startRun`, `POST /api/runs`); one more is refused
   * with `RUN_START_RATE_LIMITED` (HTTP 429 with `Retry-After`). A refused or invalid start does not count.
   * @defaultValue 10
   */
  runStartsPerMinutePerActor: number;
  /**
   * Runs started on the host in any 60 s window, every actor together (subagents and the runs the host
   * starts itself for decisions are not counted).
   * @defaultValue 60
   */
  runStartsPerMinuteTotal: number;
}

/** {@link HostLimits} as given in options: every field optional. @public */
export type HostLimitOptions = Partial<HostLimits>;

/**
 * The default {@link HostLimits}: 8 streams per actor, 64 in total, 10 run starts per minute per actor,
 * 60 in total.
 * @public
 */
export const DEFAULT_HOST_LIMITS: Readonly<HostLimits> = Object.freeze({
  streamsPerActor: 8,
  streamsTotal: 64,
  runStartsPerMinutePerActor: 10,
  runStartsPerMinuteTotal: 60,
});

/**
 * How often an open event stream re-checks its subscriber's identity and role, in ms (the default of
 * `AgentOptions.accessRecheckMs`): 30 000.
 * @public
 */
export const DEFAULT_ACCESS_RECHECK_MS = 30_000;

/**
 * The limits with defaults applied.
 * @throws {@link MediaAgentError} `OPTIONS_INVALID` for a group that is not an object, or a limit that is
 *   not a positive safe integer
 * @internal
 */
export function resolveHostLimits(options: HostLimitOptions | undefined): HostLimits {
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options)))
    throw new MediaAgentError('OPTIONS_INVALID', 'option limits must be an object', { option: 'limits' });
  const limits = { ...DEFAULT_HOST_LIMITS, ...(options ?? {}) };
  for (const [name, value] of Object.entries(limits))
    if (!(Number.isSafeInteger(value) && (value as number) > 0))
      throw new MediaAgentError(
        'OPTIONS_INVALID',
        `option limits.${name} must be a positive integer; got ${String(value)}`,
        {
          option: `limits.${name}`,
        },
      );
  return limits;
}

/**
 * The access re-check interval with its default applied.
 * @throws {@link MediaAgentError} `OPTIONS_INVALID` unless a positive integer of at most 3 600 000 ms
 * @internal
 */
export function resolveAccessRecheckMs(value: number | undefined): number {
  const ms = value ?? DEFAULT_ACCESS_RECHECK_MS;
  if (!(Number.isSafeInteger(ms) && ms > 0 && ms <= 3_600_000))
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      `option accessRecheckMs must be an integer from 1 to 3600000; got ${String(value)}`,
      { option: 'accessRecheckMs' },
    );
  return ms;
}
