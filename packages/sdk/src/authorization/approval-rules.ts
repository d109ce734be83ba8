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
  /** Idempotency key of the invocation (an approval consumed by this same key still covers its retries). */
  idempotencyKey: string | undefined;
  /** Now (ms). */
  now: number;
}

/**
 * Checks a single-use approval: status `approved`
 * (or `consumed` by this very idempotency key, so the retry of one execution is covered but no other
 * call is); unexpired; bound to this plan type and id; the plan's current payload hash and revision
 * equal those bound at request time.
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
  return null;
}
