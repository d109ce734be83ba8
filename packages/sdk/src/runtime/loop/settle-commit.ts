// A side-effecting call's settlement commits with the step that appends its result.
import type { InvocationContext } from '../../capabilities/invocation';
import { attachSettleCarrier, type CarriedSettlement } from '../../capabilities/settle-rider';
import type { ReplayPolicy } from '../../core/capability-descriptor';
import type { RunSession } from './run-session';

/** Settlements of calls whose capability may be re-run freely (`replay: 'safe'`). */
const replaySafe = new WeakSet<CarriedSettlement>();

/**
 * Offers the invocation path to carry the settlement of the call about to be made in the run's next commit (the
 * step that appends its result), instead of a transaction of its own after the handler: the claim was committed
 * before the handler ran, so a crash in between leaves the entry `running` and recovery marks it `unknown`, as a
 * crash during the handler does. When the lease is lost first, the settlement is written on its own (`stepLost`).
 * @param replay - the capability's replay policy: the settlement of a `safe` call may wait for a later step
 * ({@link holdsSettlementToCommit})
 */
export function carrySettlement(session: RunSession, ctx: InvocationContext, replay: ReplayPolicy): void {
  attachSettleCarrier(ctx, {
    carry: (settlement) => {
      if (replay === 'safe') replaySafe.add(settlement);
      session.writes.settlements.push(settlement);
    },
  });
}

/** True when the step in progress carries a call settlement: it commits now, not with a later call's step. */
export function carriesSettlement(session: RunSession): boolean {
  return session.writes.settlements.length > 0;
}

/**
 * True when the step in progress carries the settlement of a call that may not run again (`replay` other than
 * `safe`): it commits before the run goes on, so a crash after the handler returned leaves the entry `unknown`
 * only for as long as it did before. A `safe` call's settlement may wait for the next step's commit: a crash
 * before it re-runs the call on resume, which its policy allows.
 */
export function holdsSettlementToCommit(session: RunSession): boolean {
  return session.writes.settlements.some((settlement) => !replaySafe.has(settlement));
}
