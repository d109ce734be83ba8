// The decision an undo raises when an inverse fails halfway (docs/approvals.md#undo, docs/decisions.md).
import type { JsonValue } from '../../core/records';
import type { RaiseDecisionInput } from '../decisions/raised-decision';
import type { UndoNotAttempted, UndoStep, UndoTarget } from './undo-types';

/** Decision kind raised when an inverse of `host.undo` fails (the rest of the undo stopped). @public */
export const UNDO_FAILED_KIND = 'undo_failed';

/** Who raises `undo_failed` decisions. @public */
export const UNDO_ACTOR = 'system:undo';

/**
 * The `undo_failed` decision of an undo that stopped at a failed inverse: about the run when the target was a run or
 * the undone effect belongs to one (so its owner sees it on the run's stream), else about the invocation undone
 * (subject type `invocation`). Its evidence names the undo, who asked, the failed step and the effects not attempted.
 * One per undone effect (dedupe key `undo_failed:<idempotency key of the effect>`): undoing again after a fix and
 * failing again raises nothing new.
 * @param context - the undo's id, target and actor, the failed step, its run (if any) and what was not attempted
 * @returns the input of `raiseDecision`
 * @public
 */
export function undoFailedDecision(context: {
  undoId: string;
  target: UndoTarget;
  actor: string;
  step: UndoStep;
  runId: string | null;
  notAttempted: readonly UndoNotAttempted[];
}): RaiseDecisionInput {
  const { step } = context;
  const runId = 'runId' in context.target ? context.target.runId : context.runId;
  const subject = runId !== null ? { type: 'run', id: runId } : { type: 'invocation', id: step.invocationId };
  const error = step.error ?? { code: 'UNDO_INVERSE_FAILED', message: 'the inverse failed' };
  const evidence: Record<string, JsonValue> = {
    undoId: context.undoId,
    target: { ...context.target },
    actor: context.actor,
    invocationId: step.invocationId,
    capabilityId: step.capabilityId,
    idempotencyKey: step.idempotencyKey,
    inverseCapabilityId: step.inverseCapabilityId,
    inverseInvocationId: step.result?.invocationId ?? null,
    inverseStatus: step.result?.status ?? null,
    error: { code: error.code, message: error.message.slice(0, 500) },
    notAttempted: context.notAttempted.slice(0, 50).map((n) => ({
      invocationId: n.invocationId,
      capabilityId: n.capabilityId,
      inverseCapabilityId: n.inverseCapabilityId,
    })),
    notAttemptedCount: context.notAttempted.length,
  };
  const rest = context.notAttempted.length;
  return {
    kind: UNDO_FAILED_KIND,
    subject,
    reason:
      `undoing ${step.capabilityId} (${step.invocationId}) with ${step.inverseCapabilityId} failed: ${error.code}; ${
        rest === 0 ? 'nothing older was left to undo' : `${rest} older effect(s) were not undone`
      }. Check the effect and undo again, or reverse it by hand.`.slice(0, 2000),
    raisedBy: UNDO_ACTOR,
    evidence,
    dedupeKey: `${UNDO_FAILED_KIND}:${step.idempotencyKey}`.slice(0, 500),
    rootCause: `${UNDO_FAILED_KIND}:${step.idempotencyKey}`.slice(0, 500),
  };
}
