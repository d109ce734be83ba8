// The host's check of an approver's edit (docs/approvals.md#approve-with-edits): the edited plan must match the
// `planPayload` schema of the capability the approval was asked for, and that capability's policy (the host's
// authorizer, asked as the requester, with the edited plan) must not refuse it for any reason but the missing
// approval. Returns the edited plan's impact.
import type { ApprovalEditCheck } from '../authorization/approval-service';
import { ApprovalEditError } from '../authorization/errors';
import type { Authorizer } from '../authorization/authorizer';
import { resolveRole } from '../authorization/roles';
import { runOwner } from '../authorization/run-owner';
import type { CapabilityRegistry } from '../capabilities/capability-registry';
import { authorizationTarget } from '../capabilities/authorization-target';
import { computeImpact } from '../capabilities/impact-runner';
import { compileSchema } from '../capabilities/schema-validator';
import { actingForRun } from '../core/acting-for';
import { parseActor, type Actor, type ActorRole } from '../core/actor';
import { canonicalHash } from '../core/canonical-json';
import type { PlanRecord } from '../core/records';
import type { Clock } from '../ports/clock';
import type { IdentityResolver } from '../ports/identity';
import type { Logger } from '../ports/logger';
import type { StorageSession } from '../ports/storage-adapter';

/**
 * Denials that only say the call still needs an approval or a grant: what the approval being decided gives. Any
 * other denial of the edited plan (administrators only, the run's allowlist or mode, the automation switch, a host
 * authorizer's own rule) refuses the edit.
 */
export function editNeedsOnlyTheApproval(code: string): boolean {
  return code === 'AUTH_NO_AUTHORIZATION' || code.startsWith('AUTH_APPROVAL_') || code.startsWith('AUTH_GRANT_');
}

/** What {@link approvalEditCheck} reads. */
export interface ApprovalEditCheckDeps {
  capabilities: CapabilityRegistry;
  authorizer: Authorizer;
  identity: IdentityResolver;
  clock: Clock;
  logger: Logger;
  impactTimeoutMs?: number;
}

/** The role the requester acts with: a person's own, a run's owner's (a subagent's: its top-level run's). */
async function requesterRole(deps: ApprovalEditCheckDeps, s: StorageSession, requester: string): Promise<ActorRole> {
  const actor = parseActor(requester);
  let subject: string | undefined = requester;
  if (actor.kind === 'agent') {
    const run = await s.runs.get(actor.id);
    subject = run ? actingForRun({ startedBy: await runOwner(s.runs, run) }) : undefined;
  }
  return subject === undefined ? 'user' : resolveRole(deps.identity, subject);
}

/**
 * The host's {@link ApprovalEditCheck}: schema, then policy, then the edited plan's impact.
 * @throws `APPROVAL_EDIT_UNSUPPORTED` (capability gone or no `planPayload`), `APPROVAL_EDIT_INVALID` (schema, with
 *   `details.issues`), `APPROVAL_EDIT_DENIED` (policy, with `details.denial`)
 */
export function approvalEditCheck(deps: ApprovalEditCheckDeps): ApprovalEditCheck {
  return async ({ approval, plan, payload, session }) => {
    const id = approval.capabilityId;
    if (id === null || !deps.capabilities.has(id))
      throw new ApprovalEditError(
        'APPROVAL_EDIT_UNSUPPORTED',
        approval.id,
        `${id ?? 'no capability'} is not registered here, so the edit cannot be checked`,
      );
    const capability = deps.capabilities.definition(id);
    if (capability.planPayload === undefined)
      throw new ApprovalEditError(
        'APPROVAL_EDIT_UNSUPPORTED',
        approval.id,
        `${id} declares no planPayload schema, so its plans cannot be edited; approve or reject the plan as proposed`,
      );
    const check = compileSchema(capability.planPayload);
    if (!check.check(payload)) {
      const issues = check.issues(payload).slice(0, 20);
      throw new ApprovalEditError(
        'APPROVAL_EDIT_INVALID',
        approval.id,
        `the edited plan does not match ${id}'s plan payload schema: ${issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ')}`,
        { issues },
      );
    }
    const edited: PlanRecord = { ...plan, payload, payloadHash: canonicalHash(payload) };
    const requester = parseActor(approval.requestedBy);
    const verdict = await deps.authorizer.authorize(
      {
        actor: approval.requestedBy,
        role: await requesterRole(deps, session, approval.requestedBy),
        capability: deps.capabilities.get(id),
        target: authorizationTarget({ planType: plan.type, planId: plan.id }, plan),
        plan: edited,
        approvalId: undefined,
        idempotencyKey: undefined,
        runId: requester.kind === 'agent' ? requester.id : undefined,
        now: deps.clock.now(),
      },
      session,
    );
    if (!verdict.allowed && !editNeedsOnlyTheApproval(verdict.code))
      throw new ApprovalEditError(
        'APPROVAL_EDIT_DENIED',
        approval.id,
        `${id}'s policy refuses the edited plan: ${verdict.code}: ${verdict.reason}`,
        { denial: verdict.code },
      );
    const input = { planId: plan.id };
    if (!compileSchema(capability.input).check(input)) return null;
    return computeImpact(capability, input, {
      actor: approval.requestedBy as Actor,
      runId: requester.kind === 'agent' ? requester.id : undefined,
      plan: edited,
      clock: deps.clock,
      logger: deps.logger,
      ...(deps.impactTimeoutMs !== undefined ? { timeoutMs: deps.impactTimeoutMs } : {}),
    });
  };
}
