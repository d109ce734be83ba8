import type { ApprovalRecord, PlanRecord } from '../core/records';
import type { RuleFailure } from './verdict';

/** Facts an approval is checked against. @public */
export interface ApprovalCheck {
  /** Plan type and id the invocation executes (from its target). */
  planType: string | undefined;
  /** Plan id the invocation executes. */
  planId: string | undefined;
  /** The plan as stored now (undefined when missing). */
  plan: PlanRecord | undefined;
  /** The plan steps the call executes (from its target); undefined: all of the plan's steps. */
  steps?: string[] | undefined;
  /** Idempotency key of the invocation (an approval consumed by this same key still covers its retries). */
  idempotencyKey: string | undefined;
  /** Now (ms). */
  now: number;
}

/**
 * Checks a single-use approval: status `approved`
 * (or `consumed` by this very idempotency key, so the retry of one execution is covered but no other
 * call is); unexpired; bound to this plan type and id; the plan's current payload hash and revision
 * equal those bound at request time; and, when the approver approved only some steps, every step the call executes is
 * one of them ({@link checkApprovedSteps}).
 *
 * @returns `null` when the approval authorizes the call, else the failed rule
 * @public
 */
export function checkApproval(approval: ApprovalRecord | undefined, facts: ApprovalCheck): RuleFailure | null {
  if (!approval) return { code: 'AUTH_APPROVAL_NOT_FOUND', reason: 'the approval does not exist' };
  if (approval.status === 'consumed') {
    if (facts.idempotencyKey === undefined || approval.consumedBy !== facts.idempotencyKey)
      return {
        code: 'AUTH_APPROVAL_CONSUMED',
        reason: 'the approval was already used by another execution and cannot be replayed',
      };
  } else if (approval.status !== 'approved') {
    return { code: 'AUTH_APPROVAL_NOT_APPROVED', reason: `the approval is ${approval.status}, not approved` };
  }
  if (facts.now >= approval.expiresAt) return { code: 'AUTH_APPROVAL_EXPIRED', reason: 'the approval has expired' };
  if (facts.planId !== approval.planId || facts.planType !== approval.planType)
    return {
      code: 'AUTH_APPROVAL_WRONG_PLAN',
      reason: `the approval is for ${approval.planType} plan ${approval.planId}, not for this call`,
    };
  if (!facts.plan) return { code: 'AUTH_APPROVAL_WRONG_PLAN', reason: `plan ${approval.planId} no longer exists` };
  if (facts.plan.payloadHash !== approval.payloadHash || facts.plan.revision !== approval.revision)
    return {
      code: 'AUTH_APPROVAL_PLAN_CHANGED',
      reason: 'the plan changed after it was approved (payload hash or revision differs)',
    };
  return checkApprovedSteps(approval, facts.steps);
}

/**
 * A partial approval covers only its approved steps: a call that executes any other step (or, giving no steps, the
 * whole plan) fails `APPROVAL_STEP_NOT_APPROVED`, naming the steps that may run.
 * @returns `null` when every executed step is approved (or the whole plan was approved)
 * @public
 */
export function checkApprovedSteps(
  approval: Pick<ApprovalRecord, 'approvedSteps' | 'steps'>,
  steps: readonly string[] | undefined,
): RuleFailure | null {
  const approved = approval.approvedSteps;
  if (approved === null || approved === undefined) return null;
  const executed = steps ?? approval.steps.map((s) => s.id);
  const refused = executed.filter((s) => !approved.includes(s));
  if (refused.length === 0) return null;
  return {
    code: 'APPROVAL_STEP_NOT_APPROVED',
    reason: `step${refused.length === 1 ? '' : 's'} ${refused.join(', ')} of the plan ${refused.length === 1 ? 'is' : 'are'} not approved; only ${approved.join(', ')} may run: call again with steps: ${JSON.stringify(approved)}`,
  };
}
