// The approvals a run asks for and is told about.
import type { ApprovalService } from '../../authorization/approval-service';
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import { computeImpact } from '../../capabilities/impact-runner';
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
  deps: {
    approvals: ApprovalService;
    logger: Logger;
    capabilities: CapabilityRegistry;
    storage: StorageAdapter;
    clock: Clock;
    impactTimeoutMs?: number | undefined;
  },
  session: RunSession,
  descriptor: CapabilityDescriptor,
  input: unknown,
): Promise<
  { approvalId: string; approval?: ApprovalRecord; requested?: RunEventPayloads['approval_requested'] } | undefined
> {
  const plan = planTarget(descriptor, input);
  if (!plan) return undefined;
  const run = session.run;
  const existing = (await deps.approvals.list({ planId: plan.planId })).find(
    (a) => a.requestedBy === `agent:${run.id}` && a.status === 'requested',
  );
  if (existing) return { approvalId: existing.id, approval: existing };
  try {
    // What the call would do, for the person (and the model): computed before asking, never fatal.
    const impact = await computeImpact(deps.capabilities.definition(descriptor.id), input, {
      actor: `agent:${run.id}`,
      runId: run.id,
      plan: await deps.storage.plans.get(plan.planId),
      clock: deps.clock,
      logger: deps.logger,
      ...(deps.impactTimeoutMs !== undefined ? { timeoutMs: deps.impactTimeoutMs } : {}),
      signal: session.lease.signal,
    });
    const approval = await deps.approvals.request({
      planType: plan.planType,
      planId: plan.planId,
      actor: `agent:${run.id}`,
      reason: `run ${run.id}: ${run.goal.slice(0, 200)}`,
      capabilityId: descriptor.id,
      impact,
    });
    return {
      approvalId: approval.id,
      approval,
      requested: {
        approvalId: approval.id,
        planType: approval.planType,
        planId: approval.planId,
        payloadHash: approval.payloadHash,
        capabilityId: descriptor.id,
        impact,
        steps: approval.steps.map((s) => ({ id: s.id, label: s.label })),
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

/** Every approval this run asked for, newest first (one read, filtered by requester). */
export async function runApprovals(deps: { approvals: ApprovalService }, runId: string): Promise<ApprovalRecord[]> {
  const requester = `agent:${runId}`;
  // Filtered again here: a storage adapter may ignore `requestedBy` (slower, never wrong).
  return (await deps.approvals.list({ requestedBy: requester })).filter((a) => a.requestedBy === requester);
}

/** Of a run's approvals (`runApprovals`), those still open: requested and not expired at `now` (epoch ms). */
export function stillOpen(approvals: readonly ApprovalRecord[], now: number): ApprovalRecord[] {
  return approvals.filter((a) => a.status === 'requested' && a.expiresAt > now);
}

/** Approvals this run asked for that are still open (not expired). */
export async function openApprovals(
  deps: { approvals: ApprovalService; clock: Clock },
  runId: string,
): Promise<ApprovalRecord[]> {
  return stillOpen(await runApprovals(deps, runId), deps.clock.now());
}

/**
 * Of a run's approvals (`runApprovals`), those decided after the run was last told (no `approval_decided` event
 * yet). The run's events are read only when one of them is decided.
 */
export async function approvalsDecidedSince(
  deps: { storage: StorageAdapter },
  runId: string,
  approvals: readonly ApprovalRecord[],
): Promise<ApprovalRecord[]> {
  const decided = approvals.filter((a) => a.status === 'approved' || a.status === 'rejected');
  if (decided.length === 0) return [];
  const told = new Set(
    (await deps.storage.events.listByRun(runId, { limit: 100_000 }))
      .filter((e) => e.type === 'approval_decided')
      .map((e) => (e.data as { approvalId: string }).approvalId),
  );
  return decided.filter((a) => !told.has(a.id));
}

/**
 * What the model reads about a decided approval: the decision, the steps that may run when only some were approved,
 * and the edited plan when the approver edited it (the proposed plan can no longer execute).
 */
export function decisionNote(a: ApprovalRecord): string {
  const parts = [`Approval ${a.id} for ${a.planType} plan ${a.planId} was ${a.status}.`];
  if (a.status === 'approved' && a.approvedPayload !== null)
    parts.push(
      `The approver edited the plan (now revision ${a.revision}); what executes is ${JSON.stringify(a.approvedPayload).slice(0, 1500)}. The proposed plan will not execute; call the same capability for plan ${a.planId} again.`,
    );
  if (a.status === 'approved' && a.approvedSteps !== null)
    parts.push(
      `Only steps ${a.approvedSteps.join(', ')} were approved: execute with steps: ${JSON.stringify(a.approvedSteps)}; the other steps must not run.`,
    );
  if (a.impact) parts.push(`Impact: ${a.impact.summary}.`);
  parts.push('Continue.');
  return parts.join(' ');
}
