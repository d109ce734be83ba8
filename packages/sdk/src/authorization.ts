/**
 * `@media-agent/sdk/authorization`: the services behind approvals, standing grants, plans, policies and
 * automation settings, the policy authorizer, roles and the scope keys that name what a grant covers.
 *
 * @remarks
 * A host reaches these services through `AgentHost` (`host.approvals`, `host.grants`, `host.plans`,
 * `host.policies`, `host.automation`); this entry holds their classes, their input types and the pure
 * rules beside them, and `parseActor`, which splits an actor string into its kind and id for an authorizer.
 * The authorizer port itself (`Authorizer`, `AuthorizationRequest`, `AuthorizationVerdict`) and the actor types
 * (`Actor`, `ActorKind`, `ActorRole`) are in the root entry. See docs/security.md.
 *
 * @example
 * ```ts
 * import { isHumanActor, scopeKey, type CreateGrantInput } from '@media-agent/sdk/authorization';
 *
 * const grant: CreateGrantInput = { action: 'download.submit', actor: 'user:admin' };
 * await host.grants.create(grant);
 * console.log(isHumanActor('user:alice'), scopeKey('mcp', 'apikey:home')); // true '3:mcp,11:apikey:home,'
 * ```
 *
 * @packageDocumentation
 */
export { isHumanActor, defaultRoleOf, parseActor } from './core/actor';
export { DEFAULT_IDENTITY_RESOLVER } from './ports/identity';
export { IDENTITY_TIMEOUT_MS } from './authorization/identity-deadline';
export { AUTHENTICATE_TIMEOUT_MS } from './core/deadline';
export { compactScopeKey, HASHED_SCOPE_KEY_PREFIX, parseScopeKey, scopeKey } from './core/scope-key';
export { PolicyAuthorizer } from './authorization/policy-authorizer';
export {
  ApprovalService,
  type ApprovalEditCheck,
  type ApprovalEdits,
  type RequestApprovalInput,
  type DecideApprovalInput,
} from './authorization/approval-service';
export { checkApprovedSteps } from './authorization/approval-rules';
export type { RuleFailure } from './authorization/verdict';
export {
  ApprovalEditError,
  ApprovalStepUnknownError,
  type ApprovalEditErrorCode,
} from './authorization/errors';
export { GrantService, type CreateGrantInput, type UpdateGrantInput } from './authorization/grant-service';
export { PlanService, type CreatePlanInput } from './authorization/plan-service';
export { PolicyService } from './authorization/policy-service';
export { AutomationService } from './authorization/automation-service';
export type { AutomationSettings } from './authorization/evaluate';
