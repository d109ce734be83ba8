// The terminal event of a subscription whose subscriber lost access, and the rules that decide it (pure).
import type { RunEvent } from './run-event';

/**
 * Why an open event stream lost its subscriber's access:
 * - `unauthenticated`: the subscriber signed out, or is no longer authenticated (the host said so through
 *   `host.identityChanged(actor, { signedOut: true })`, or the HTTP router's `authenticate` hook no longer
 *   resolves the stream's request to the same actor);
 * - `role_changed`: an administrator who subscribed to every run's events is no longer an administrator;
 * - `run_not_visible`: a subscription to one run whose subscriber may no longer see that run.
 * @public
 */
export type StreamAccessLostReason = 'unauthenticated' | 'role_changed' | 'run_not_visible';

/**
 * The last event of a subscription made on an actor's behalf (`host.events({ actor })`, the HTTP event
 * stream) whose subscriber lost access: delivered once, then the subscription ends. It is never stored
 * and has no `globalSeq`; `after` is the last global sequence delivered before it (where to resume once
 * signed in again). Over HTTP it is the SSE frame `event: access_lost` with this object as `data` and
 * no `id:`.
 * @public
 */
export interface StreamAccessLostEvent {
  /** Always `access_lost`. */
  type: 'access_lost';
  /** Always `STREAM_ACCESS_LOST` (docs/errors.md). */
  code: 'STREAM_ACCESS_LOST';
  /** Why access was lost. */
  reason: StreamAccessLostReason;
  /** What happened, for people. */
  message: string;
  /** The subscriber the stream was opened for. */
  actor: string;
  /** When access was found lost (ms since the epoch, the host's clock). */
  at: number;
  /** The last `globalSeq` delivered on this subscription (its `after` when none was). */
  after: number;
}

/**
 * What a subscription made on an actor's behalf delivers: run events, and at most one
 * {@link StreamAccessLostEvent} as its very last item.
 * @public
 */
export type SubscriberEvent = RunEvent | StreamAccessLostEvent;

/**
 * What a subscriber was allowed to see when the subscription opened: `all` (an administrator: every
 * run), `own` (the runs the actor owns), `run` (one run, visible to the actor).
 * @public
 */
export type SubscriptionView = 'all' | 'own' | 'run';

/**
 * The access rule of an open subscription: given what the subscriber was allowed to see and what is true
 * now, the reason access was lost, or undefined while it still holds. `own` never loses access to a
 * role change: the runs an actor owns stay theirs.
 * @param view - what the subscription was opened to see
 * @param now - `authenticated` (still signed in), `admin` (still an administrator), `runVisible` (for `run`: may still see it)
 * @public
 */
export function accessLostReason(
  view: SubscriptionView,
  now: { authenticated: boolean; admin: boolean; runVisible?: boolean },
): StreamAccessLostReason | undefined {
  if (!now.authenticated) return 'unauthenticated';
  if (view === 'all' && !now.admin) return 'role_changed';
  if (view === 'run' && now.runVisible === false) return 'run_not_visible';
  return undefined;
}

/**
 * Whether the periodic access re-check is due: `intervalMs` or more since the last one, by the host's clock
 * (a clock set back counts as due, so a re-check is never postponed indefinitely).
 * @public
 */
export function recheckDue(lastCheckAt: number, now: number, intervalMs: number): boolean {
  return now - lastCheckAt >= intervalMs || now < lastCheckAt;
}

/** Messages of the terminal event, per reason. */
const MESSAGES: Record<StreamAccessLostReason, string> = {
  unauthenticated: 'the subscriber is no longer signed in; the stream ended',
  role_changed: "the subscriber is no longer an administrator and may not see every run's events; the stream ended",
  run_not_visible: 'the subscriber may no longer see this run; the stream ended',
};

/**
 * The terminal event for `reason`.
 * @internal
 */
export function accessLostEvent(
  reason: StreamAccessLostReason,
  actor: string,
  at: number,
  after: number,
): StreamAccessLostEvent {
  return { type: 'access_lost', code: 'STREAM_ACCESS_LOST', reason, message: MESSAGES[reason], actor, at, after };
}
