/**
 * Stable codes of authorization denials, carried by `denied` invocation results and
 * `capability.denied` audit rows.
 * @public
 */
export type DenialCode =
  | 'AUTH_AUTOMATION_DISABLED'
  | 'AUTH_READ_ONLY_RECONCILE'
  | 'AUTH_NOT_ALLOWED_IN_RUN'
  | 'AUTH_READ_ONLY_SUBAGENT'
  | 'AUTH_APPROVAL_NOT_FOUND'
  | 'AUTH_APPROVAL_NOT_APPROVED'
  | 'AUTH_APPROVAL_CONSUMED'
  | 'AUTH_APPROVAL_EXPIRED'
  | 'AUTH_APPROVAL_WRONG_PLAN'
  | 'AUTH_APPROVAL_PLAN_CHANGED'
  | 'APPROVAL_STEP_NOT_APPROVED'
  | 'AUTH_GRANT_REVOKED'
  | 'AUTH_GRANT_EXPIRED'
  | 'AUTH_GRANT_POLICY_NOT_PUBLISHED'
  | 'AUTH_GRANT_OUT_OF_SCOPE'
  | 'AUTH_GRANT_BUDGET_EXHAUSTED'
  | 'AUTH_NO_AUTHORIZATION'
  | 'AUTH_ADMIN_ONLY'
  | 'FORK_DUPLICATE_EFFECT';

/**
 * The authorizer's answer for one invocation.
 * `basis`: `not_required` (read/preview), `human` (a console administrator), `approval`, `grant`.
 * @public
 */
export type AuthorizationVerdict =
  | { allowed: true; basis: 'not_required' | 'human' | 'approval' | 'grant'; approvalId?: string; grantId?: string }
  | { allowed: false; code: DenialCode; reason: string; approvalId?: string; grantId?: string };

/** A failed rule: code and explanation. @public */
export interface RuleFailure {
  /** Denial code. */
  code: DenialCode;
  /** Why. */
  reason: string;
}
