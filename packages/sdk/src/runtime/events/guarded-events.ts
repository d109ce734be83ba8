// A subscription on an actor's behalf that re-checks the actor's access while it is open.
import type { Clock } from '../../ports/clock';
import type { AccessTicket } from './access-watch';
import type { RunEvent } from './run-event';
import { accessLostEvent, recheckDue, type StreamAccessLostReason, type SubscriberEvent } from './stream-access';

/** Options of {@link guardedEvents}. @internal */
export interface GuardedEventsOptions {
  /** Who subscribed. */
  actor: string;
  /** The run events (a bus subscription) until the given signal aborts. */
  source: (signal: AbortSignal) => AsyncIterable<RunEvent>;
  /** Whether the actor may see one event (the owner filter); asked before each delivery. */
  visible: (event: RunEvent) => boolean | Promise<boolean>;
  /** Re-checks access: undefined while it holds, else why it was lost. `signedOut`: the host said so. */
  check: (signedOut: boolean) => Promise<StreamAccessLostReason | undefined>;
  /** Where the host's identity-change signal for this subscription arrives (opened when the subscription was made). */
  ticket: AccessTicket;
  /** The host's clock: when the periodic re-check is due. */
  clock: Clock;
  /** Interval of the periodic re-check, in ms of `clock`. */
  recheckMs: number;
  /** How often (real ms) the clock is looked at for a due re-check. */
  tickMs: number;
  /** The subscription's `after`. */
  after: number;
  /** Ends the subscription. */
  signal?: AbortSignal | undefined;
}

/**
 * Run events for `actor`, re-checking access at least every `recheckMs` (by `clock`) and at once when the
 * host signals a change for the actor: a change marks the subscription stale synchronously, and no event
 * is delivered while it is stale, so none reaches a subscriber after the change was signalled without
 * the new check. A lost access delivers one `access_lost` event, then the iteration ends.
 * @internal
 */
export async function* guardedEvents(o: GuardedEventsOptions): AsyncGenerator<SubscriberEvent> {
  const inner = new AbortController();
  const { ticket } = o;
  let wake: (() => void) | undefined;
  let lastCheckAt = o.clock.now();
  ticket.onRaise = () => wake?.();
  const stop = () => {
    inner.abort();
    wake?.();
  };
  if (o.signal?.aborted) return;
  o.signal?.addEventListener('abort', stop);
  const tick = setInterval(() => {
    if (recheckDue(lastCheckAt, o.clock.now(), o.recheckMs)) ticket.raise({});
  }, o.tickMs);
  tick.unref?.();
  const iterator = o.source(inner.signal)[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<RunEvent>> | undefined;
  let last = o.after;
  /** Runs the re-checks asked for (more may be asked while one runs); the reason when access was lost. */
  const ensureAccess = async (): Promise<StreamAccessLostReason | undefined> => {
    while (ticket.stale) {
      ticket.stale = false;
      lastCheckAt = o.clock.now();
      const lost = await o.check(ticket.signedOut);
      if (lost) return lost;
    }
    return undefined;
  };
  try {
    for (;;) {
      const lost = await ensureAccess();
      if (lost) {
        yield accessLostEvent(lost, o.actor, o.clock.now(), last);
        return;
      }
      if (inner.signal.aborted) return;
      pending ??= iterator.next();
      const woken = new Promise<'woken'>((resolve) => {
        wake = () => resolve('woken');
      });
      const next = await Promise.race([pending, woken]);
      wake = undefined;
      if (next === 'woken') continue;
      pending = undefined;
      if (next.done) return;
      const event = next.value;
      if (!(await o.visible(event))) continue;
      // A change signalled while the event was read or filtered is checked before it is delivered.
      const lostNow = await ensureAccess();
      if (lostNow) {
        yield accessLostEvent(lostNow, o.actor, o.clock.now(), last);
        return;
      }
      last = event.globalSeq;
      yield event;
    }
  } finally {
    clearInterval(tick);
    ticket.onRaise = undefined;
    o.signal?.removeEventListener('abort', stop);
    inner.abort();
    pending?.catch(() => undefined);
    await iterator.return?.(undefined).catch(() => undefined);
  }
}
