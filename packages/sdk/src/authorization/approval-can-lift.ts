// Which denials an approval of the call's plan can lift: a pure rule, shared by dry runs and by the run and MCP
// paths that ask a person for an approval after a denial.

/**
 * Whether an approval of the call's plan could lift a denial with this code: true exactly for
 * `AUTH_NO_AUTHORIZATION` (no approval or grant was given), the `AUTH_APPROVAL_*` failures of the approval
 * given, `APPROVAL_STEP_NOT_APPROVED` and the `AUTH_GRANT_*` failures of a grant (an approval authorizes where the
 * grant did not). False for every other code — a run's limits (`AUTH_NOT_ALLOWED_IN_RUN`,
 * `AUTH_READ_ONLY_SUBAGENT`), the automation switch (`AUTH_AUTOMATION_DISABLED`, `AUTH_READ_ONLY_RECONCILE`),
 * `AUTH_ADMIN_ONLY`, a host's own denials such as `AUTH_HOST_SUPERUSER_REQUIRED` — since those are decided before
 * any approval is looked at: asking a person for one would only waste their decision. False for
 * `TAINTED_ARGUMENT` too: asking a person to approve a target taken from untrusted text would be wrong; the model
 * is told to ask the person instead (docs/untrusted-text.md). True for `FORK_DUPLICATE_EFFECT`: a fork repeating a
 * `never` effect its lineage already performed runs once a person confirms it by approving the plan
 * (docs/forks.md#the-duplicate-rule).
 * @param code - the denial's code
 * @returns whether a person's approval of the plan could make the same call pass
 * @example
 * ```ts
 * approvalCanLift('AUTH_NO_AUTHORIZATION'); // true
 * approvalCanLift('AUTH_HOST_SUPERUSER_REQUIRED'); // false
 * ```
 * @internal
 */
export function approvalCanLift(code: string): boolean {
  return (
    code === 'AUTH_NO_AUTHORIZATION' ||
    code.startsWith('AUTH_APPROVAL_') ||
    code === 'APPROVAL_STEP_NOT_APPROVED' ||
    code.startsWith('AUTH_GRANT_') ||
    code === 'FORK_DUPLICATE_EFFECT'
  );
}
