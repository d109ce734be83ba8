import type { CapabilityKind } from '../core/capability-descriptor';
import type { ApprovalRecord, GrantRecord, PlanRecord, PolicyRevisionRecord } from '../core/records';
import { type ActorRole, parseActor } from '../core/actor';
import { checkApproval } from './approval-rules';
import type { AuthorizationVerdict, RuleFailure } from './verdict';
import { checkGrant, grantCoversCapability } from './grant-rules';

/** The global automation settings. @public */
export interface AutomationSettings {
  /** The global automation switch; off denies every automatic `execute`. */
  automationEnabled: boolean;
  /** Read-only reconcile mode; on denies every automatic `execute`. */
  readOnlyReconcile: boolean;
}

/** Everything the authorization rules look at, loaded beforehand. @public */
export interface AuthorizationFacts {
  /** The actor. */
  actor: string;
  /** The role the call is made with (the actor's, or for a run's call the role of the person it acts for). */
  role: ActorRole;
  /** The capability. */
  capability: { id: string; kind: CapabilityKind; policy?: string | undefined; adminOnly?: boolean | undefined };
  /** Automation settings. */
  settings: AutomationSettings;
  /** The plan type/id, media entity, kind and bytes the call touches. */
  target: {
    planType?: string | undefined;
    planId?: string | undefined;
    mediaEntityId?: string | undefined;
    mediaKind?: string | undefined;
    bytes: number;
    /** The plan steps the call executes (undefined: all of them). */
    steps?: string[] | undefined;
  };
  /** The plan as stored now, when the target names one. */
  plan: PlanRecord | undefined;
  /** The approval the caller pointed at (`undefined` with an id means it does not exist). */
  approval: { id: string; record: ApprovalRecord | undefined } | undefined;
  /** Candidate grants with their bound policy revision and today's usage. */
  grants: ReadonlyArray<{
    grant: GrantRecord;
    policyRevision: PolicyRevisionRecord | undefined;
    usageToday: { invocations: number; bytes: number };
  }>;
  /** Idempotency key of the call, when side-effecting. */
  idempotencyKey: string | undefined;
  /** The run the call belongs to, when any: mode, allowlist, and whether it is a read-only subagent. */
  run?: { mode: 'execute' | 'plan_only'; allowlist: readonly string[] | null; readOnly: boolean } | undefined;
  /** Now (ms). */
  now: number;
}

/**
 * The authorization rule, a pure function:
 * 0. a call inside a run obeys the run: a read-only subagent may only `read`/`preview` (enforced here, whatever
 *    the prompt says), a `plan_only` run may not `approve`/`execute`, an allowlist
 *    limits the capabilities;
 * 1. an admin-only capability is denied (`AUTH_ADMIN_ONLY`) unless the role is `admin`;
 *    otherwise `read`/`preview` need no authorization record;
 * 2. an administrator's own call (`user:*` actor with role `admin`) is human authorization; an ordinary
 *    user's own `propose` is allowed too (a plan is reviewed before anything happens), but their `approve`
 *    and `execute` are not (they need an approval or a grant like any automatic call);
 * 3. for every other actor an `execute` is denied while the automation switch is off or read-only
 *    reconcile mode is on;
 * 4. an approval the caller points at (a pointer, never proof) authorizes if {@link checkApproval} passes;
 * 5. otherwise the first grant (oldest first) that passes {@link checkGrant} authorizes;
 * 6. otherwise the call is denied with the most specific reason: the approval's failure, else the
 *    failure of a grant that covers the capability, else `AUTH_NO_AUTHORIZATION`.
 *
 * Text in the input (e.g. "the user agreed") never matters: only records do.
 * @public
 */
export function evaluateAuthorization(facts: AuthorizationFacts): AuthorizationVerdict {
  const { capability } = facts;
  const runRefusal = checkRun(facts);
  if (runRefusal) return { allowed: false, ...runRefusal };
  if (capability.adminOnly === true && facts.role !== 'admin')
    return {
      allowed: false,
      code: 'AUTH_ADMIN_ONLY',
      reason: `${capability.id} is for administrators only, and ${facts.actor} does not act for one`,
    };
  if (capability.kind === 'read' || capability.kind === 'preview') return { allowed: true, basis: 'not_required' };
  if (isAdministratorCall(facts.actor, facts.role)) return { allowed: true, basis: 'human' };
  // A person may always propose (a plan is a reviewable artifact, not an effect); an ordinary user's
  // approve and execute need an approval or a grant.
  if (capability.kind === 'propose' && parseActor(facts.actor).kind === 'user')
    return { allowed: true, basis: 'human' };
  if (capability.kind === 'execute') {
    if (!facts.settings.automationEnabled)
      return {
        allowed: false,
        code: 'AUTH_AUTOMATION_DISABLED',
        reason: 'the automation switch is off: automatic executions are denied',
      };
    if (facts.settings.readOnlyReconcile)
      return {
        allowed: false,
        code: 'AUTH_READ_ONLY_RECONCILE',
        reason: 'read-only reconcile mode: automatic executions are denied',
      };
  }
  let approvalFailure: (RuleFailure & { approvalId: string }) | undefined;
  if (facts.approval) {
    const failure = checkApproval(facts.approval.record, {
      planType: facts.target.planType,
      planId: facts.target.planId,
      plan: facts.plan,
      steps: facts.target.steps,
      idempotencyKey: facts.idempotencyKey,
      now: facts.now,
    });
    if (!failure) return { allowed: true, basis: 'approval', approvalId: facts.approval.id };
    approvalFailure = { ...failure, approvalId: facts.approval.id };
  }
  let grantFailure: (RuleFailure & { grantId: string }) | undefined;
  for (const candidate of facts.grants) {
    const failure = checkGrant(candidate.grant, {
      capability,
      mediaEntityId: facts.target.mediaEntityId,
      mediaKind: facts.target.mediaKind,
      bytes: facts.target.bytes,
      policyRevision: candidate.policyRevision,
      usageToday: candidate.usageToday,
      now: facts.now,
    });
    if (!failure) return { allowed: true, basis: 'grant', grantId: candidate.grant.id };
    if (!grantFailure && grantCoversCapability(candidate.grant, capability))
      grantFailure = { ...failure, grantId: candidate.grant.id };
  }
  if (approvalFailure) return { allowed: false, ...approvalFailure };
  if (grantFailure) return { allowed: false, ...grantFailure };
  return {
    allowed: false,
    code: 'AUTH_NO_AUTHORIZATION',
    reason: `${facts.actor} needs an approval or an automation grant to invoke ${capability.id} (${capability.kind})`,
  };
}

/** The run rule: read-only subagents, plan_only runs and allowlists (a pure function). @public */
export function checkRun(facts: Pick<AuthorizationFacts, 'capability' | 'run'>): RuleFailure | null {
  const { run, capability } = facts;
  if (!run) return null;
  const reads = capability.kind === 'read' || capability.kind === 'preview';
  if (run.readOnly && !reads)
    return {
      code: 'AUTH_READ_ONLY_SUBAGENT',
      reason: `a read-only subagent may not invoke ${capability.id} (${capability.kind})`,
    };
  if (run.mode === 'plan_only' && (capability.kind === 'execute' || capability.kind === 'approve'))
    return {
      code: 'AUTH_NOT_ALLOWED_IN_RUN',
      reason: `${capability.id} (${capability.kind}) cannot run in a plan_only run`,
    };
  if (run.allowlist && !run.allowlist.includes(capability.id))
    return { code: 'AUTH_NOT_ALLOWED_IN_RUN', reason: `${capability.id} is not in this run's capability allowlist` };
  return null;
}

/**
 * True when a call is an administrator's own (a `user:*` actor whose role is `admin`): human
 * authorization for every kind. A run acting for an administrator (`agent:*`) is not.
 * @throws `ACTOR_INVALID` for a malformed actor
 * @public
 */
export function isAdministratorCall(actor: string, role: ActorRole): boolean {
  return role === 'admin' && parseActor(actor).kind === 'user';
}
