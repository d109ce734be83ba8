// How long a stopping host lets the steps in flight finish: the one option of `host.stop()`, and what a drain did.
import { MediaAgentError } from '../core/errors';

/**
 * The default of `host.stop({ drainMs })`, in ms: 10 s, the steps in flight finish within it. Behind
 * `docker stop` (10 s grace before SIGKILL) pass 8 000, so the storage is closed before the kill.
 * @public
 */
export const DEFAULT_DRAIN_MS = 10_000;

/** Options of `host.stop()`. @public */
export interface StopOptions {
  /**
   * How long the steps in flight (a model call, a capability handler) may run on before their signal is
   * aborted, in ms (default {@link DEFAULT_DRAIN_MS}). `0`: abort them at once. At `drainMs` a capability call in
   * flight ends at once even when its handler ignores its signal (a side effect is settled `unknown`, a read
   * fails), so `stop()` returns shortly after `drainMs`. A finite number `>= 0`;
   * anything else is refused with `OPTIONS_INVALID` (`details.option` `stop.drainMs`).
   */
  drainMs?: number;
  /**
   * Called once the workers stopped (before the storage closes) with what the drain did; the host also logs it
   * (`agent host drained`, level info). A callback that throws is ignored.
   */
  onDrained?: (summary: DrainSummary) => void;
}

/**
 * What a drain did (`host.stop()`): every run this process drove when the stop began is counted in
 * `drained` or `aborted`; `released` counts those left unfinished for another process.
 * @public
 */
export interface DrainSummary {
  /** Runs whose step in flight ended (and was committed) within `drainMs`, or that were between steps. */
  drained: number;
  /**
   * Runs left for another process: their lease given up at a step boundary (or after their aborted step), status
   * unchanged, so any worker leases them at once (no wait for the lease to expire).
   */
  released: number;
  /**
   * Runs whose step was still in flight at `drainMs`: its signal was aborted, and a model call or capability call in
   * it ended there (an effect in it is `unknown`, whatever its handler did afterwards). A step that was already
   * writing its commit at that instant still commits.
   */
  aborted: number;
  /** Time the workers took to stop, in ms. */
  ms: number;
}

/**
 * The drain time of `host.stop(options)`.
 * @returns `options.drainMs`, else {@link DEFAULT_DRAIN_MS}
 * @throws {@link MediaAgentError} `OPTIONS_INVALID` unless `options` is an object (or undefined), `drainMs` a
 *   finite number `>= 0` (or undefined) and `onDrained` a function (or undefined)
 */
export function resolveDrainMs(options: unknown): number {
  if (options === undefined) return DEFAULT_DRAIN_MS;
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new MediaAgentError('OPTIONS_INVALID', 'option stop must be an object such as { drainMs: 8000 }', {
      option: 'stop',
    });
  const drainMs = (options as { drainMs?: unknown }).drainMs;
  const onDrained = (options as { onDrained?: unknown }).onDrained;
  if (onDrained !== undefined && typeof onDrained !== 'function')
    throw new MediaAgentError('OPTIONS_INVALID', 'option stop.onDrained must be a function', {
      option: 'stop.onDrained',
    });
  if (drainMs === undefined) return DEFAULT_DRAIN_MS;
  if (typeof drainMs !== 'number' || !Number.isFinite(drainMs) || drainMs < 0)
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      `option stop.drainMs must be a finite number of ms >= 0 (0: abort the steps in flight at once), got ${typeof drainMs === 'string' ? JSON.stringify(drainMs) : String(drainMs)}`,
      { option: 'stop.drainMs' },
    );
  return drainMs;
}
