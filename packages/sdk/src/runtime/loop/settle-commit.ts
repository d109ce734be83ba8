// A side-effecting call's settlement commits with the step that appends its result.
import type { InvocationContext } from '../../capabilities/invocation';
import { attachSettleCarrier } from '../../capabilities/settle-rider';
import type { RunSession } from './run-session';

/**
 * Offers the invocation path to carry the settlement of the call about to be made in the run's next commit (the
 * step that appends its result), instead of a transaction of its own after the handler: the claim was committed
 * before the handler ran, so a crash in between leaves the entry `running` and recovery marks it `unknown`, as a
 * crash during the handler does. When the lease is lost first, the settlement is written on its own (`stepLost`).
 */
export function carrySettlement(session: RunSession, ctx: InvocationContext): void {
  attachSettleCarrier(ctx, { carry: (settlement) => session.writes.settlements.push(settlement) });
}

/** True when the step in progress carries a call settlement: it commits now, not with a later call's step. */
export function carriesSettlement(session: RunSession): boolean {
  return session.writes.settlements.length > 0;
}
