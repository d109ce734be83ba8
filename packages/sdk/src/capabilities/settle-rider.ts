// A settlement the caller of the invocation path commits together with writes of its own.
import type { StorageSession } from '../ports/storage-adapter';
import type { InvocationContext } from './invocation';

/**
 * The settlement of a side-effecting call whose handler has returned: the ledger entry's outcome, what it releases
 * or notes (an approval restored after a failure, an intent's plan) and its audit row, written by `write` inside a
 * transaction the caller opens; `committed` runs once that transaction has committed.
 * @internal
 */
export interface CarriedSettlement {
  /** Writes the settlement; throws the ledger's stale-executor error when the claim is no longer this executor's. */
  write(s: StorageSession): Promise<void>;
  /** Called once the transaction that ran `write` has committed (publishes the invocation event). */
  committed(): void;
}

/**
 * Storage work the caller of a side-effecting invocation offers to carry: instead of a transaction of its own after
 * the handler, the settlement is committed with the caller's next writes (the run loop's step that appends the
 * call's result). The claim is still committed before the handler runs; a crash between the handler's return and
 * the caller's commit leaves the entry `running`, which recovery marks `unknown` — as a crash during the handler
 * does — so the effect is never run twice.
 * @internal
 */
export interface SettleCarrier {
  /** Takes the settlement of the call; the caller must write it in its next commit, or on its own. */
  carry(settlement: CarriedSettlement): void;
}

const carriers = new WeakMap<InvocationContext, SettleCarrier>();

/**
 * Attaches `carrier` to the context of the invocation about to be made. Only a side-effecting call that ran its
 * handler uses it; every other outcome is written by the invocation path as before.
 * @internal
 */
export function attachSettleCarrier(ctx: InvocationContext, carrier: SettleCarrier): void {
  carriers.set(ctx, carrier);
}

/**
 * The carrier attached to `ctx`, taken (a second call returns undefined).
 * @internal
 */
export function takeSettleCarrier(ctx: InvocationContext): SettleCarrier | undefined {
  const carrier = carriers.get(ctx);
  if (carrier) carriers.delete(ctx);
  return carrier;
}
