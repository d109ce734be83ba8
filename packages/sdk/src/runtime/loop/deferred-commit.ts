// A step whose next call only reads commits together with that call's step.
import { stepRider, opensClaimedCall } from './claim-commit';
import { commitDeferredStep, commitStep } from './commit';
import { carriesSettlement } from './settle-commit';
import type { Loop } from './loop';
import type { RunSession } from './run-session';
import type { TurnCalls } from './turn-calls';

/**
 * How long the writes of a step may wait for the read-only call it opened before they are committed
 * on their own, in ms: a read that takes longer does not hide the turn's text and its `started`
 * event from people watching the run.
 */
export const DEFERRED_COMMIT_MS = 50;

/**
 * True when the call `turn` opened is a capability of kind `read`: running it has no effect outside
 * the run, so the writes of the step that opened it may commit with its result. If the process dies
 * before that commit, the run resumes from the step before and the model turn is asked again; the
 * read runs again, which changes nothing. Calls with effects (and the runtime's own tools) are
 * always preceded by the commit of the step that opened them.
 */
export function opensReadOnlyCall(loop: Loop, turn: TurnCalls): boolean {
  const open = turn.current;
  if (!open || loop.tools.has(open.call.name) || !loop.deps.capabilities.has(open.call.name)) return false;
  return loop.deps.capabilities.get(open.call.name).kind === 'read';
}

/**
 * Ends a step that opened a call: commits its writes now; or, when the call only reads, sets them
 * aside for the call's step ({@link RunSession.defer}); or, when the call has a side effect, sets them
 * aside for the transaction that claims it in the ledger (`claim-commit.ts`).
 * @returns false when the lease was lost
 */
export async function commitBeforeCall(loop: Loop, session: RunSession, turn: TurnCalls): Promise<boolean> {
  // A step carrying a call's settlement does not wait for a read: the outcome is made durable now.
  if (opensReadOnlyCall(loop, turn) && !carriesSettlement(session)) {
    session.defer();
    return true;
  }
  // A call with a side effect: the step commits in the transaction that claims it (claim-commit.ts).
  if (opensClaimedCall(loop, turn)) {
    session.defer();
    session.claimRider = stepRider(loop, session);
    return true;
  }
  return commitStep(loop.deps, session);
}

/** The waiting writes of the step before a read-only call, committed after {@link DEFERRED_COMMIT_MS} if the call still runs. */
export interface DeferredCommit {
  /**
   * Called when the call returned (or threw): cancels the timer, or waits for the commit it started.
   * @returns false when that commit found the lease lost
   */
  settle(): Promise<boolean>;
}

/**
 * Starts the timer for the writes set aside for the call about to run ({@link RunSession.defer});
 * undefined when nothing waits. Only those writes are committed by the timer; the call's own wait
 * for its step.
 */
export function deferCommit(loop: Loop, session: RunSession, delayMs = DEFERRED_COMMIT_MS): DeferredCommit | undefined {
  if (!session.hasDeferred) return undefined;
  let started: Promise<boolean> | undefined;
  const timer = setTimeout(() => {
    started = commitDeferredStep(loop.deps, session);
    // Its outcome is read by `settle`; until then a rejection must not count as unhandled.
    started.catch(() => undefined);
  }, delayMs);
  return {
    settle: async () => {
      clearTimeout(timer);
      return started ? started : true;
    },
  };
}
