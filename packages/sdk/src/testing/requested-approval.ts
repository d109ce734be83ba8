import type { ApprovalRecord } from '../core/records';
import { MediaAgentError } from '../core/errors';
import type { AgentHost } from '../runtime/agent-host';
import { listRunEvents } from './run-helpers';

/**
 * The approval a run asked for: the data of its first `approval_requested` event.
 *
 * @param host - the host
 * @param runId - the run (usually waiting for the approval)
 * @returns the approval's id and the id and type of the plan it is bound to
 * @throws `APPROVAL_NOT_FOUND` when the run asked for no approval
 * @public
 */
export async function requestedApproval(
  host: Pick<AgentHost, 'getRun'>,
  runId: string,
): Promise<{ approvalId: string; planId: string; planType: string }> {
  for (const e of await listRunEvents(host, runId)) {
    if (e.type === 'approval_requested') {
      const { approvalId, planId, planType } = e.data;
      return { approvalId, planId, planType };
    }
  }
  throw new MediaAgentError('APPROVAL_NOT_FOUND', `run ${runId} asked for no approval`, { runId });
}

/**
 * Approves the approval a run asked for (from {@link requestedApproval}) as a person would: as `actor`, echoing
 * the plan's payload hash as it is now.
 *
 * @param host - the host
 * @param asked - the approval and the plan it is bound to
 * @param actor - the deciding console administrator (default `user:admin`)
 * @returns the approval as decided
 * @public
 */
export async function approveRequested(
  host: Pick<AgentHost, 'approvals' | 'plans'>,
  asked: { approvalId: string; planId: string },
  actor = 'user:admin',
): Promise<ApprovalRecord> {
  const { payloadHash } = await host.plans.get(asked.planId);
  return host.approvals.decide(asked.approvalId, { status: 'approved', actor, payloadHash });
}
