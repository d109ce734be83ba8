import { describe, expect, it } from 'vitest';
import { approvalCanLift } from '../../src/authorization/approval-can-lift';
import type { DenialCode } from '../../src/authorization/verdict';
import { dryRunVerdict } from '../../src/capabilities/dry-run';

// Every SDK denial code, by whether an approval of the plan decides it (evaluateAuthorization looks at the
// approval after the run, admin-only and automation rules): the rule must say exactly this.
const LIFTABLE: Record<DenialCode, boolean> = {
  AUTH_NO_AUTHORIZATION: true,
  AUTH_APPROVAL_NOT_FOUND: true,
  AUTH_APPROVAL_NOT_APPROVED: true,
  AUTH_APPROVAL_CONSUMED: true,
  AUTH_APPROVAL_EXPIRED: true,
  AUTH_APPROVAL_WRONG_PLAN: true,
  AUTH_APPROVAL_PLAN_CHANGED: true,
  APPROVAL_STEP_NOT_APPROVED: true,
  AUTH_GRANT_REVOKED: true,
  AUTH_GRANT_EXPIRED: true,
  AUTH_GRANT_POLICY_NOT_PUBLISHED: true,
  AUTH_GRANT_OUT_OF_SCOPE: true,
  AUTH_GRANT_BUDGET_EXHAUSTED: true,
  AUTH_AUTOMATION_DISABLED: false,
  AUTH_READ_ONLY_RECONCILE: false,
  AUTH_NOT_ALLOWED_IN_RUN: false,
  AUTH_READ_ONLY_SUBAGENT: false,
  AUTH_ADMIN_ONLY: false,
  // A fork repeating a `never` effect of its lineage: a person's approval of the plan confirms it (docs/forks.md).
  FORK_DUPLICATE_EFFECT: true,
};

describe('approvalCanLift', () => {
  it('is true exactly for the denials an approval of the plan decides', () => {
    for (const [code, liftable] of Object.entries(LIFTABLE)) expect(approvalCanLift(code), code).toBe(liftable);
  });

  it("is false for a host's own denials no approval reaches, and for anything unknown", () => {
    expect(approvalCanLift('AUTH_HOST_SUPERUSER_REQUIRED')).toBe(false);
    expect(approvalCanLift('PLUGIN_OPERATION_FORBIDDEN')).toBe(false);
    expect(approvalCanLift('')).toBe(false);
    expect(approvalCanLift('auth_no_authorization')).toBe(false);
  });

  it("is the dry run's approvalRequired for a call that executes a plan (never for one that does not)", () => {
    for (const code of [...Object.keys(LIFTABLE), 'AUTH_HOST_SUPERUSER_REQUIRED']) {
      const denied = { allowed: false, code: code as DenialCode, reason: 'r' } as const;
      expect(dryRunVerdict(denied, true), code).toEqual({ ...denied, approvalRequired: approvalCanLift(code) });
      expect(dryRunVerdict(denied, false).allowed === false && dryRunVerdict(denied, false).approvalRequired).toBe(
        false,
      );
    }
  });
});
