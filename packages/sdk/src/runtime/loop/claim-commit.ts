// A step that opened a side-effecting call commits in the transaction that claims the call.
import { attachClaimRider } from '../../capabilities/claim-rider';
import { DefaultCapabilityRegistry } from '../../capabilities/capability-registry';
import type { InvocationContext } from '../../capabilities/invocation';
import { isSideEffecting } from '../../core/capability-descriptor';
import { commitDeferredStep, isLeaseLost, stepCommitted, stepLost, writeStepIn, type WrittenStep } from './commit';
import type { Loop } from './loop';
import type { RunSession } from './run-session';
import type { StepRider } from './step-rider';
import type { TakenStep } from './step-writes';
import type { TurnCalls } from './turn-calls';

/**
 * True when the call `turn` opened is a registered capability with a side effect (`propose`, `approve`,
 * `execute`): the invocation path claims it in the ledger, in a transaction of its own, before its handler runs.
 */
export function opensClaimedCall(loop: Loop, turn: TurnCalls): boolean {
  const open = turn.current;
  const registry = loop.deps.capabilities;
  if (!open || loop.tools.has(open.call.name) || !registry.has(open.call.name)) return false;
  return isSideEffecting(registry.get(open.call.name).kind) && reachesOwnPipeline(registry);
}

/**
 * True when `registry` invokes through the SDK's own invocation path with the context as given (the
 * `DefaultCapabilityRegistry` itself, its `invoke` not overridden): only then does the claim take the rider
 * attached to the context. A host's registry that wraps or replaces `invoke` (it may pass a copy of the
 * context on) gets the step committed before the call instead, as without riders.
 */
function reachesOwnPipeline(registry: Loop['deps']['capabilities']): boolean {
  return (
    registry instanceof DefaultCapabilityRegistry &&
    (registry as { invoke: unknown }).invoke === DefaultCapabilityRegistry.prototype.invoke
  );
}

/**
 * The rider that writes the step set aside ({@link RunSession.defer}) inside the claim's transaction: the
 * assistant message and the call's `started` event are committed with the claim, in one commit, and before
 * the handler runs, as when they were committed just before it.
 */
export function stepRider(loop: Loop, session: RunSession): StepRider {
  let taken: TakenStep | undefined;
  let written: WrittenStep | undefined;
  let state: StepRider['state'] = 'waiting';
  let dropped: TakenStep | undefined;
  return {
    get state() {
      return state;
    },
    get dropped() {
      return dropped;
    },
    async write(s) {
      // A claim attempted again (after a rollback) writes the same step again.
      taken ??= session.takeDeferred();
      if (!taken) return;
      try {
        written = await writeStepIn(loop.deps, session, taken, s);
      } catch (error) {
        if (isLeaseLost(error)) {
          state = 'lost';
          dropped = taken;
        }
        throw error;
      }
    },
    committed() {
      state = 'committed';
      taken = undefined;
      if (written) stepCommitted(loop.deps, session, written);
    },
    restore() {
      if (state === 'waiting' && taken) session.restoreDeferred(taken);
      taken = undefined;
    },
  };
}

/** Attaches the session's rider, if any, to the context of the invocation about to be made. */
export function rideOnClaim(session: RunSession, ctx: InvocationContext): void {
  if (session.claimRider) attachClaimRider(ctx, session.claimRider);
}

/**
 * After the call's invocation: writes the claim did not carry (the call was refused before its claim, or the
 * claim's transaction failed) are committed now; nothing of the call ran in that case.
 * @returns false when the lease was lost (the writes are dropped)
 */
export async function settleClaimRider(loop: Loop, session: RunSession, rider: StepRider): Promise<boolean> {
  session.claimRider = undefined;
  if (rider.state === 'committed') return true;
  if (rider.state === 'lost') {
    await stepLost(loop.deps, session, rider.dropped);
    return false;
  }
  rider.restore();
  return commitDeferredStep(loop.deps, session);
}
