import { MediaAgentError } from '../core/errors';

/**
 * The actor may not perform this administrative action: only an administrator (a `user:*` actor whose
 * role, from the host's `IdentityResolver`, is `admin`) approves, revokes, changes grants and policies or
 * flips automation switches; an API key, agent or system job never does.
 * @public
 */
export class AdministrationForbiddenError extends MediaAgentError {
  /** @param actor - who tried; @param action - what they tried */
  constructor(actor: string, action: string) {
    super('ADMIN_FORBIDDEN', `${actor} may not ${action}: only an administrator may`, {
      actor,
      action,
    });
  }
}

const NOT_FOUND_CODES = {
  approval: 'APPROVAL_NOT_FOUND',
  grant: 'GRANT_NOT_FOUND',
  plan: 'PLAN_NOT_FOUND',
  'policy revision': 'POLICY_REVISION_NOT_FOUND',
} as const;

/**
 * A record (approval, grant, plan, policy revision) does not exist: code `APPROVAL_NOT_FOUND`,
 * `GRANT_NOT_FOUND`, `PLAN_NOT_FOUND` or `POLICY_REVISION_NOT_FOUND`.
 * @public
 */
export class RecordNotFoundError extends MediaAgentError {
  /** @param kind - record kind; @param id - the id asked for */
  constructor(kind: 'approval' | 'grant' | 'plan' | 'policy revision', id: string) {
    super(NOT_FOUND_CODES[kind], `no ${kind} with id ${JSON.stringify(id)}`, { kind, id });
  }
}

/**
 * The payload hash echoed by the approver differs from the one the approval is bound to.
 * @public
 */
export class ApprovalHashMismatchError extends MediaAgentError {
  /** @param approvalId - the approval */
  constructor(approvalId: string) {
    super(
      'APPROVAL_HASH_MISMATCH',
      `the payload hash given does not match the plan bound to approval ${approvalId}; review the current plan and approve again`,
      { approvalId },
    );
  }
}

/**
 * The approval cannot move to the requested status (e.g. approving a rejected, expired, consumed
 * or stale approval, or one whose plan changed since it was requested).
 * @public
 */
export class ApprovalStateError extends MediaAgentError {
  /** @param approvalId - the approval; @param reason - why the transition is refused */
  constructor(approvalId: string, reason: string) {
    super('APPROVAL_STATE', `approval ${approvalId}: ${reason}`, { approvalId, reason });
  }
}

/**
 * A grant update would widen it: grants may only be revoked or shortened; widening means a new
 * grant.
 * @public
 */
export class GrantWideningError extends MediaAgentError {
  /** @param grantId - the grant; @param reason - what the update tried */
  constructor(grantId: string, reason: string) {
    super(
      'GRANT_WIDENING',
      `grant ${grantId} may only be revoked or shortened: ${reason}; create a new grant instead`,
      { grantId, reason },
    );
  }
}

/**
 * A plan was revised concurrently (its stored revision is not the expected one).
 * @public
 */
export class PlanRevisionConflictError extends MediaAgentError {
  /** @param planId - the plan; @param expected - revision the caller expected */
  constructor(planId: string, expected: number) {
    super('PLAN_REVISION_CONFLICT', `plan ${planId} is no longer at revision ${expected}`, { planId, expected });
  }
}

/**
 * An administrative request is malformed (bad expiry, empty action, negative budget …).
 * @public
 */
export class InvalidRequestError extends MediaAgentError {
  /** @param reason - what is wrong */
  constructor(reason: string) {
    super('REQUEST_INVALID', reason, {});
  }
}

/**
 * A grant's action covers no registered capability, so it would authorize nothing (usually a typo).
 * Pass `allowUnmatched: true` to create it for capabilities registered later. Code `GRANT_MATCHES_NOTHING`.
 * @public
 */
export class GrantMatchesNothingError extends MediaAgentError {
  /** @param action - the grant action as given */
  constructor(action: string) {
    super(
      'GRANT_MATCHES_NOTHING',
      `grant action ${JSON.stringify(action)} covers no registered capability (a typo would authorize nothing); pass allowUnmatched: true for capabilities registered later`,
      { action },
    );
  }
}

/**
 * A plan payload is larger than the host's input limit (`maxInputBytes`, default 1 MiB), measured as
 * UTF-8 bytes of its canonical JSON. Nothing was stored. Code `PLAN_TOO_LARGE`.
 * @public
 */
export class PlanTooLargeError extends MediaAgentError {
  /** @param bytes - the payload's size in bytes; @param limit - the limit in bytes */
  constructor(bytes: number, limit: number) {
    super(
      'PLAN_TOO_LARGE',
      `the plan payload is ${bytes} bytes of JSON, over the ${limit}-byte limit; store large data elsewhere and reference it`,
      { bytes, limit },
    );
  }
}

/**
 * A partial approval names a step the plan does not have (or the plan has no steps). Nothing was decided. Code
 * `APPROVAL_STEP_UNKNOWN`; `details.steps` lists the plan's step ids.
 * @public
 */
export class ApprovalStepUnknownError extends MediaAgentError {
  /** @param approvalId - the approval; @param unknown - the ids not in the plan; @param steps - the plan's step ids */
  constructor(approvalId: string, unknown: string[], steps: string[]) {
    super(
      'APPROVAL_STEP_UNKNOWN',
      steps.length === 0
        ? `approval ${approvalId}: its plan has no steps to approve in part; approve or reject it whole`
        : `approval ${approvalId}: the plan has no step ${unknown.map((s) => JSON.stringify(s)).join(', ')}; its steps are ${steps.join(', ')}`,
      { approvalId, unknown, steps },
    );
  }
}

/** The codes of {@link ApprovalEditError}. @public */
export type ApprovalEditErrorCode =
  | 'APPROVAL_EDIT_INVALID'
  | 'APPROVAL_EDIT_WRONG_CAPABILITY'
  | 'APPROVAL_EDIT_UNSUPPORTED'
  | 'APPROVAL_EDIT_DENIED';

/**
 * An approver's edit was refused; nothing was decided and nothing executes. Codes: `APPROVAL_EDIT_INVALID` (the
 * edited payload does not match the capability's `planPayload` schema; `details.issues` lists where),
 * `APPROVAL_EDIT_WRONG_CAPABILITY` (the edit names another capability), `APPROVAL_EDIT_UNSUPPORTED` (the capability
 * declares no `planPayload`), `APPROVAL_EDIT_DENIED` (the capability's policy refuses the edited plan).
 * @public
 */
export class ApprovalEditError extends MediaAgentError<ApprovalEditErrorCode> {
  /** @param code - which refusal; @param approvalId - the approval; @param reason - why; @param details - more facts */
  constructor(code: ApprovalEditErrorCode, approvalId: string, reason: string, details: Record<string, unknown> = {}) {
    super(code, `approval ${approvalId}: ${reason}`, { approvalId, ...details });
  }
}
