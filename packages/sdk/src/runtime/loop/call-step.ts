// The tool-call step: run the open call, let the middleware see its result, open the next.
import { settleClaimRider } from './claim-commit';
import { commitBeforeCall, deferCommit, endCalls, whileWaiting, WAITING_LOST } from './deferred-commit';
import type { Loop } from './loop';
import { STOPPED, type DriveEnd } from './outcomes';
import type { RunSession } from './run-session';
import { dispatchToolCall, type DispatchedCall } from './tool-dispatch';
import { openNextCall, type TurnCalls } from './turn-calls';

/** What a tool-call step led to: the next call of the turn, the end of the turn, or the end of the drive. */
export type CallOutcome = DriveEnd | { kind: 'next' } | { kind: 'turn_done' };

/**
 * One tool-call step: the open call is answered (the runtime's tools, a capability through the
 * invocation path, or a refusal), `afterToolCall` may rewrite its result, the result is appended,
 * and the next call is opened (or the turn closed). The step commits the settled event, the result,
 * usage, middleware state and the next call's `started` event in one transaction, before the next
 * call runs — or, when the next call only reads, together with that call's step; when the turn is closed, with
 * the next model turn's step unless it carries the settlement of a call that may not run again (`deferred-commit.ts`);
 * the writes of a step that waited so are committed with this one, or on their own once the call has
 * run for the commit window (`runs.commitWindowMs`). The invocation path's own claim and settle transactions are not part of it: they are
 * the ledger's atomicity, and a crash between them and this commit is reconciled from the ledger.
 */
export async function callStep(loop: Loop, session: RunSession, turn: TurnCalls): Promise<CallOutcome> {
  const { call } = turn.current!;
  // The writes of the step that opened the call: committed with its claim (a side effect), or waiting for this
  // step (a read).
  const rider = session.claimRider;
  const waiting = rider ? undefined : deferCommit(loop, session);
  let answered: DispatchedCall;
  try {
    answered = await dispatchToolCall(loop, session, call, turn.failures.get(call.id));
  } catch (error) {
    await waiting?.settle().catch(() => undefined);
    if (rider) await settleClaimRider(loop, session, rider).catch(() => undefined);
    throw error;
  }
  if (rider && !(await settleClaimRider(loop, session, rider))) return STOPPED;
  // The writes of the step that opened a read-only call: committed by now if it ran long, else with this step.
  if (waiting && !(await waiting.settle())) return STOPPED;
  // What the step does next (the middleware's view of the result, opening the next call) runs while the writes set
  // aside still wait, within the commit window; then the step commits, or sets its writes aside in turn.
  const opened = await whileWaiting(loop, session, () => closeCall(loop, session, turn, answered));
  if (opened === WAITING_LOST) return STOPPED;
  if (opened.kind === 'run') return (await commitBeforeCall(loop, session, turn)) ? { kind: 'next' } : STOPPED;
  if (opened.kind === 'turn_done') return (await endCalls(loop, session)) ? { kind: 'turn_done' } : STOPPED;
  return opened;
}

/** The rest of a tool-call step once its call was answered: the result appended, the next call opened. */
async function closeCall(
  loop: Loop,
  session: RunSession,
  turn: TurnCalls,
  answered: DispatchedCall,
): Promise<Awaited<ReturnType<typeof openNextCall>>> {
  const { call, index, kind } = turn.current!;
  if (answered.childUsage) {
    const u = answered.childUsage;
    session.addUsage({
      toolCalls: u.toolCalls,
      inputTokens: u.inputTokens,
      outputTokens: u.outputTokens,
      costUsd: u.costUsd,
      modelCalls: u.modelCalls,
    });
  }
  const message = await loop.pipeline.afterToolCall(session, call, index, kind, answered.status, answered.message);
  session.append(message);
  if (answered.ask) {
    turn.asked = answered.ask;
    session.stop = {
      code: 'GOAL_TARGET_AMBIGUOUS',
      message: answered.ask.question,
      kind: 'stop',
      by: 'the goal target check',
      source: 'runtime',
    };
  }
  return openNextCall(loop, session, turn);
}
