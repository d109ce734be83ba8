// A step whose next call only reads, or whose next model call changes nothing outside the run, commits together
// with the step after it, within a bounded time.
import { stepRider, opensClaimedCall } from './claim-commit';
import { commitDeferredStep, commitStep } from './commit';
import { holdsSettlementToCommit } from './settle-commit';
import type { Loop } from './loop';
import type { RunSession } from './run-session';
import type { TurnCalls } from './turn-calls';

/**
 * How long the writes of a step may wait for the steps after it before they are committed on their own, in ms,
 * counted from when the first of them was set aside, unless the host sets `runs.commitWindowMs`: a read or a model
 * call that takes longer does not hide the turn's text, its results and their events from people watching the run.
 * @internal
 */
export const DEFAULT_COMMIT_WINDOW_MS = 50;

/** The run's commit window in ms (`runs.commitWindowMs`); 0: every step commits before the next begins. */
export function commitWindowMs(loop: Loop): number {
  return loop.deps.settings.commitWindowMs ?? DEFAULT_COMMIT_WINDOW_MS;
}

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
  // A step carrying the settlement of a call that may not run again does not wait for a read: the outcome is made
  // durable now. Nor do writes that already waited through a model call: what an earlier turn's calls returned is
  // durable before another handler runs.
  if (
    commitWindowMs(loop) > 0 &&
    opensReadOnlyCall(loop, turn) &&
    !holdsSettlementToCommit(session) &&
    !session.deferredPastModelCall
  ) {
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

/**
 * Ends a step that answered the last call of its turn: the next step is a model call, which changes nothing
 * outside the run. Its writes are set aside to commit with the next step's ({@link RunSession.defer}) — at the
 * latest before the next tool handler runs (with its claim, for a side effect), or on their own once they waited
 * the commit window ({@link commitWindowMs}) — unless the step carries the settlement of a call that may not run again, or the run
 * is draining: then they commit now. If the process dies before they are committed, the run resumes from the last
 * step committed: a model turn whose calls only read is asked again and its reads run again; a `replay: 'safe'` call,
 * whose claim was committed before it ran, is answered `unknown` as after a crash during its handler. Nothing that
 * may not run again is repeated.
 * @returns false when the lease was lost
 */
export async function endCalls(loop: Loop, session: RunSession): Promise<boolean> {
  if (commitWindowMs(loop) === 0 || holdsSettlementToCommit(session) || session.lease.drain?.aborted)
    return commitStep(loop.deps, session);
  session.defer();
  return true;
}

/**
 * The writes set aside for the work about to run (a read-only call, a model call), committed by a timer once they
 * waited the commit window ({@link commitWindowMs}) since they were first set aside, if the work still runs.
 */
export interface DeferredCommit {
  /**
   * Called when the work returned (or threw): cancels the timer, or waits for the commit it started.
   * @returns false when that commit found the lease lost
   */
  settle(): Promise<boolean>;
  /**
   * Commits the writes now (or waits for the commit the timer started): before the work writes something of the run
   * on its own (a streamed text delta, a warning), so the run's events keep their order.
   * @returns false when that commit found the lease lost
   */
  flush(): Promise<boolean>;
}

/**
 * Starts the timer for the writes set aside for the work about to run ({@link RunSession.defer});
 * undefined when nothing waits. Only those writes are committed by the timer; the work's own wait
 * for its step.
 * @param delayMs - how long writes may wait from when they were first set aside (default: {@link commitWindowMs})
 */
export function deferCommit(
  loop: Loop,
  session: RunSession,
  delayMs = commitWindowMs(loop),
): DeferredCommit | undefined {
  if (!session.hasDeferred) return undefined;
  let started: Promise<boolean> | undefined;
  const commit = () => {
    started ??= commitDeferredStep(loop.deps, session);
    // Its outcome is read by `settle`; until then a rejection must not count as unhandled.
    started.catch(() => undefined);
    return started;
  };
  const timer = setTimeout(commit, Math.max(0, session.deferredSince + delayMs - performance.now()));
  const waiting: DeferredCommit = {
    settle: async () => {
      clearTimeout(timer);
      if (covering.get(session) === waiting) covering.delete(session);
      return started ? started : true;
    },
    flush: async () => {
      clearTimeout(timer);
      // Set aside again since (a commit that failed gave them back): committed too.
      const first = await commit();
      return first && session.hasDeferred ? commitDeferredStep(loop.deps, session) : first;
    },
  };
  covering.set(session, waiting);
  return waiting;
}

/** What {@link whileWaiting} returns when the commit of the waiting writes found the lease lost. */
export const WAITING_LOST: unique symbol = Symbol('waiting writes: lease lost');

/**
 * Runs `work` (a middleware hook, opening the next call) while the writes set aside wait, under the commit window's
 * timer ({@link deferCommit}); the timer is settled before this returns, so the caller may commit next.
 * @returns what `work` returned, or {@link WAITING_LOST} when the timer's commit found the lease lost
 * @throws what `work` throws (the timer settled first)
 */
export async function whileWaiting<T>(
  loop: Loop,
  session: RunSession,
  work: () => Promise<T>,
): Promise<T | typeof WAITING_LOST> {
  const waiting = deferCommit(loop, session);
  if (!waiting) return work();
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await waiting.settle().catch(() => undefined);
    throw error;
  }
  return (await waiting.settle()) ? result : WAITING_LOST;
}

/** The timer now covering each run's waiting writes (the latest {@link deferCommit} not yet settled). */
const covering = new WeakMap<RunSession, DeferredCommit>();

/**
 * Before the loop writes an event of the run in a transaction of its own while earlier steps' writes wait (a streamed
 * piece of text, a provider warning, a fallback, a spending decision resolved): commits those writes first, so the
 * run's events keep their order. Nothing to do when no timer covers waiting writes.
 * @returns false when that commit found the lease lost
 */
export async function flushWaitingWrites(session: RunSession): Promise<boolean> {
  const waiting = covering.get(session);
  return waiting ? waiting.flush() : true;
}
