// The approvals a run asks for and is told about.
import type { ApprovalService } from '../../authorization/approval-service';
import { isSideEffecting, type CapabilityDescriptor } from '../../core/capability-descriptor';
import { MediaAgentError } from '../../core/errors';
import type { Clock } from '../../ports/clock';
import type { Logger } from '../../ports/logger';
import type { ApprovalRecord } from '../../core/records';
import type { RunRecord } from '../../core/run-records';
import type { StorageAdapter } from '../../ports/storage-adapter';
import type { RunEventPayloads } from '../events/run-event';
import type { RunSession } from './run-session';

/** The plan a call executes, from the capability's target (if it names one). */
function planTarget(
  descriptor: CapabilityDescriptor,
  input: unknown,
): { planType: string; planId: string } | undefined {
  if (!isSideEffecting(descriptor.kind)) return undefined;
  const target = descriptor.target?.(input);
  return target?.planType && target.planId ? { planType: target.planType, planId: target.planId } : undefined;
}

/** An approved approval this run asked for on the call's plan: passed as a pointer; the record decides. */
export async function approvalFor(
  approvals: ApprovalService,
  run: RunRecord,
  descriptor: CapabilityDescriptor,
  input: unknown,
): Promise<string | undefined> {
  const plan = planTarget(descriptor, input);
  if (!plan) return undefined;
  const list = await approvals.list({ planId: plan.planId });
  return list.find((a) => a.requestedBy === `agent:${run.id}` && (a.status === 'approved' || a.status === 'consumed'))
    ?.id;
}

/**
 * After a denial of a plan execution, asks a person once (per plan revision) for an approval.
 * @returns the approval id, with the `approval_requested` payload when this call asked (the caller writes
 *   the event with the step, after the denied call's settled `tool_call` event, so the events read in
 *   the order things happened); undefined when the call executes no plan or the request failed
 */
export async function requestApproval(
  deps: { approvals: ApprovalService; logger: Logger },
  session: RunSession,
  descriptor: CapabilityDescriptor,
  input: unknown,
): Promise<{ approvalId: string; requested?: RunEventPayloads['approval_requested'] } | undefined> {
  const plan = planTarget(descriptor, input);
  if (!plan) return undefined;
  const run = session.run;
  const existing = (await deps.approvals.list({ planId: plan.planId })).find(
    (a) => a.requestedBy === `agent:${run.id}` && a.status === 'requested',
  );
  if (existing) return { approvalId: existing.id };
  try {
    const approval = await deps.approvals.request({
      planType: plan.planType,
      planId: plan.planId,
      actor: `agent:${run.id}`,
      reason: `run ${run.id}: ${run.goal.slice(0, 200)}`,
    });
    return {
      approvalId: approval.id,
      requested: {
        approvalId: approval.id,
        planType: approval.planType,
        planId: approval.planId,
        payloadHash: approval.payloadHash,
        capabilityId: descriptor.id,
      },
    };
  } catch (error) {
    deps.logger.warn('could not request an approval', {
      runId: run.id,
      code: error instanceof MediaAgentError ? error.code : 'UNKNOWN',
    });
    return undefined;
  }
}

/** Approvals this run asked for that are still open (not expired). */
export async function openApprovals(
  deps: { approvals: ApprovalService; clock: Clock },
  runId: string,
): Promise<ApprovalRecord[]> {
  return (await deps.approvals.list({ status: 'requested' })).filter(
    (a) => a.requestedBy === `agent:${runId}` && a.expiresAt > deps.clock.now(),
  );
}

/** Approvals this run asked for that were decided after the run was last told (no `approval_decided` event yet). */
export async function approvalsDecidedSince(
  deps: { approvals: ApprovalService; storage: StorageAdapter },
  runId: string,
): Promise<ApprovalRecord[]> {
  const all = await deps.approvals.list({});
  const told = new Set(
    (await deps.storage.events.listByRun(runId, { limit: 100_000 }))
      .filter((e) => e.type === 'approval_decided')
      .map((e) => (e.data as { approvalId: string }).approvalId),
  );
  return all.filter(
    (a) =>
      a.requestedBy === `agent:${runId}` && (a.status === 'approved' || a.status === 'rejected') && !told.has(a.id),
  );
}
