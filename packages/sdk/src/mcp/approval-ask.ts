import type { CapabilityDescriptor } from '../core/capability-descriptor';
import { isSideEffecting } from '../core/capability-descriptor';
import type { Actor } from '../core/actor';
import type { AgentHost } from '../runtime/agent-host';
import type { McpApprovalAsk } from './call-result';

/** The plan a side-effecting call executes, from its capability's target (undefined when it names none or throws). */
export function planOf(
  descriptor: CapabilityDescriptor,
  input: unknown,
): { planType: string; planId: string } | undefined {
  if (!isSideEffecting(descriptor.kind)) return undefined;
  try {
    const target = descriptor.target?.(input);
    return target?.planType && target.planId ? { planType: target.planType, planId: target.planId } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An approved approval this actor asked for on the plan the call executes: passed to the invocation
 * path as a pointer (the approval record decides, as for every caller).
 */
export async function approvedFor(
  host: Pick<AgentHost, 'approvals'>,
  descriptor: CapabilityDescriptor,
  input: unknown,
  actor: Actor,
): Promise<string | undefined> {
  const plan = planOf(descriptor, input);
  if (!plan) return undefined;
  const list = await host.approvals.list({ planId: plan.planId });
  return list.find((a) => a.requestedBy === actor && a.status === 'approved')?.id;
}

/**
 * After a denial of a plan execution: the approval this actor already asked for on the plan (still
 * open), else a new request for a person's approval.
 * @returns the approval, or undefined when the call executes no plan or the request was refused
 */
export async function askForApproval(
  host: Pick<AgentHost, 'approvals'>,
  descriptor: CapabilityDescriptor,
  input: unknown,
  actor: Actor,
): Promise<McpApprovalAsk | undefined> {
  const plan = planOf(descriptor, input);
  if (!plan) return undefined;
  const open = (await host.approvals.list({ planId: plan.planId })).find(
    (a) => a.requestedBy === actor && a.status === 'requested',
  );
  const approval =
    open ??
    (await host.approvals
      .request({ ...plan, actor, reason: `MCP client ${actor} called ${descriptor.id}` })
      .catch(() => undefined));
  return approval
    ? { approvalId: approval.id, status: approval.status, planType: approval.planType, planId: approval.planId }
    : undefined;
}
