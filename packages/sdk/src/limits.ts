/**
 * `@media-agent/sdk/limits`: what one person (and the whole host) may open at once — event streams and run
 * starts per minute — with the pure rules behind them, and when an open event stream loses access.
 *
 * @remarks
 * A host sets limits with `createAgentHost({ limits })` (`HostLimitOptions`; defaults in
 * {@link DEFAULT_HOST_LIMITS}). Over a limit a call is refused with `STREAM_LIMIT_REACHED` or
 * `RUN_START_RATE_LIMITED` (`HostLimitError`). An open stream re-checks its subscriber every
 * `accessRecheckMs` and ends with an `access_lost` event (`STREAM_ACCESS_LOST`) when the person lost access. See docs/http.md.
 *
 * @example
 * ```ts
 * import { DEFAULT_HOST_LIMITS, HostLimitError } from '@media-agent/sdk/limits';
 *
 * const host = createAgentHost({ limits: { streamsPerActor: 2 * DEFAULT_HOST_LIMITS.streamsPerActor } });
 * try {
 *   await host.startRun({ goal: 'Add Dune', actor: 'user:teen' });
 * } catch (error) {
 *   if (error instanceof HostLimitError) console.log(error.code); // RUN_START_RATE_LIMITED
 *   else throw error;
 * }
 * ```
 *
 * @packageDocumentation
 */
export {
  DEFAULT_ACCESS_RECHECK_MS,
  DEFAULT_HOST_LIMITS,
  type HostLimits,
  type HostLimitOptions,
} from './runtime/limits/host-limits';
export { HostLimitError } from './runtime/limits/limit-errors';
export { pruneWindow, slidingWindow, type WindowVerdict } from './runtime/limits/sliding-window';
export { slotVerdict, type SlotVerdict } from './runtime/limits/open-slots';
export {
  accessLostReason,
  recheckDue,
  type StreamAccessLostEvent,
  type StreamAccessLostReason,
  type SubscriberEvent,
  type SubscriptionView,
} from './runtime/events/stream-access';
export type { IdentityChange } from './runtime/events/access-watch';
