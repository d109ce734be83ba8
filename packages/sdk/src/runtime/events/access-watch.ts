// Where the host's identity-change signal reaches the open subscriptions of the actor it names.

/**
 * What changed for an actor, as the host reports it with `host.identityChanged`.
 * @public
 */
export interface IdentityChange {
  /**
   * The actor signed out or was removed: every subscription on their behalf ends with `access_lost`
   * (`unauthenticated`) whatever their role. Default false: only a re-check (role changes).
   */
  signedOut?: boolean;
}

/**
 * One open subscription's view of the host's signals: raised by a change of its actor, read and
 * cleared by the subscription before it delivers anything more.
 * @internal
 */
export class AccessTicket {
  /** A change was signalled and not re-checked yet. */
  stale = false;
  /** The actor was signed out (sticks once set). */
  signedOut = false;
  /** Called when the ticket is raised (the subscription waiting for its next event wakes up). */
  onRaise: (() => void) | undefined;

  /** @param close - stops listening */
  constructor(readonly close: () => void) {}

  /** Marks the subscription stale (and signed out, when the change says so), then wakes it. */
  raise(change: IdentityChange): void {
    if (change.signedOut) this.signedOut = true;
    this.stale = true;
    this.onRaise?.();
  }
}

/**
 * The open subscriptions made on actors' behalf, so that a change signalled for one actor (or for
 * everyone) reaches them synchronously — also a subscription that was opened but not iterated yet.
 * @internal
 */
export class AccessWatch {
  readonly #byActor = new Map<string, Set<AccessTicket>>();

  /** A ticket that listens to the changes of `actor` until it is closed. */
  open(actor: string): AccessTicket {
    let set = this.#byActor.get(actor);
    if (!set) this.#byActor.set(actor, (set = new Set()));
    const tickets = set;
    const ticket = new AccessTicket(() => {
      tickets.delete(ticket);
      if (tickets.size === 0 && this.#byActor.get(actor) === tickets) this.#byActor.delete(actor);
    });
    tickets.add(ticket);
    return ticket;
  }

  /**
   * Tells the subscriptions of `actor` (every subscription when `actor` is undefined) that it changed.
   * @returns how many subscriptions were told
   */
  changed(actor: string | undefined, change: IdentityChange = {}): number {
    const sets = actor === undefined ? [...this.#byActor.values()] : [this.#byActor.get(actor) ?? new Set()];
    let told = 0;
    for (const set of sets)
      for (const ticket of [...set]) {
        ticket.raise(change);
        told++;
      }
    return told;
  }
}
