// A dry run of one call: the authorization verdict and the impact, with nothing run, claimed, consumed or charged
// (docs/approvals.md#dry-runs). The ledger refuses a dry-run claim as well (LEDGER_DRY_RUN), so no path can write.
import { approvalCanLift } from '../authorization/approval-can-lift';
import type { AuthorizationVerdict } from '../authorization/verdict';
import type { DryRunVerdict } from './invocation';

/**
 * The verdict part of a dry run: allowed with its basis, or denied with the code and reason, and whether an approval
 * of the call's plan would authorize it.
 * @internal
 */
export function dryRunVerdict(verdict: AuthorizationVerdict, executesPlan: boolean): DryRunVerdict {
  if (verdict.allowed) return { allowed: true, basis: verdict.basis };
  const approvalRequired = executesPlan && approvalCanLift(verdict.code);
  return { allowed: false, code: verdict.code, reason: verdict.reason, approvalRequired };
}
