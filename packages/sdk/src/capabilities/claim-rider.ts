// Writes a caller of the invocation path commits together with the ledger claim of the call it makes.
import type { StorageSession } from '../ports/storage-adapter';
import type { InvocationContext } from './invocation';

/**
 * Storage work the caller of a side-effecting invocation asks to be committed in the transaction that claims
 * the call (before the handler runs), instead of a commit of its own just before it: the run loop's step that
 * opened the call (the assistant message, the call's `started` event). The claim and those writes are then one
 * commit, and they are both written before any effect, as before.
 * @internal
 */
export interface ClaimRider {
  /** Runs inside the claim's transaction, before the claim; a throw rolls the transaction back (nothing runs). */
  write(s: StorageSession): Promise<void>;
  /** Called once that transaction has committed, before the handler runs. */
  committed(): void;
}

const riders = new WeakMap<InvocationContext, ClaimRider>();

/**
 * Attaches `rider` to the context of the invocation about to be made. Only the claim of a side-effecting call
 * takes it; when the call is refused before its claim (or only reads), it stays untaken and the caller commits
 * its writes itself.
 * @internal
 */
export function attachClaimRider(ctx: InvocationContext, rider: ClaimRider): void {
  riders.set(ctx, rider);
}

/**
 * The rider attached to `ctx`, taken (a second call returns undefined).
 * @internal
 */
export function takeClaimRider(ctx: InvocationContext): ClaimRider | undefined {
  const rider = riders.get(ctx);
  if (rider) riders.delete(ctx);
  return rider;
}
