/**
 * Record shapes persisted by a {@link StorageAdapter}. Times are milliseconds since the Unix epoch (UTC).
 * @packageDocumentation
 */

/** A JSON value as stored (the result of `JSON.parse`). @public */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * State of a ledger entry:
 * `running` claimed, side effect may be under way; `succeeded` done with a recorded result;
 * `failed` did not take effect (bad arguments, explicit rejection); `pending` an async job was
 * accepted, not finished; `unknown` the real outcome is not known (transport broke after the
 * request, timeout, crash).
 * @public
 */
export type LedgerState = 'running' | 'succeeded' | 'failed' | 'pending' | 'unknown';

/** An error as recorded: stable code plus message (never a stack or secrets). @public */
export interface RecordedError {
  /** Stable error code. */
  code: string;
  /** Human-readable message. */
  message: string;
}

/**
 * One side-effecting invocation in the ledger, identified by its idempotency key.
 * Raw input is never stored, only a redacted summary.
 * @public
 */
export interface LedgerEntry {
  /** Idempotency key (primary key). */
  key: string;
  /** Capability id. */
  capabilityId: string;
  /** Capability version. */
  capabilityVersion: number;
  /** Run id, task id or `request:<invocationId>`. */
  scopeId: string;
  /** Model tool-call id or host request id, when the caller gave one. */
  callId: string | null;
  /** SHA-256 of the canonical JSON input. */
  argsHash: string;
  /** Current state. */
  state: LedgerState;
  /** Executor token of the current claim; only its holder may settle. */
  token: string;
  /** Actor of the latest claim. */
  actor: string;
  /** Invocation id of the latest claim. */
  invocationId: string;
  /** Run id, when the call came from a run. */
  runId: string | null;
  /** Task id, when the call came from a background task. */
  taskId: string | null;
  /** Approval that authorized the latest claim. */
  approvalId: string | null;
  /** Grant that authorized the latest claim (counted against its daily budget). */
  grantId: string | null;
  /** Bytes the call moves (e.g. a release size), counted against a grant's byte budget. */
  bytes: number;
  /** Recorded output (for `succeeded` and `pending`). */
  output: JsonValue | null;
  /** Recorded error (for `failed` and `unknown`). */
  error: RecordedError | null;
  /** Redacted JSON summary of the input. */
  inputSummary: string;
  /** Number of claims of this key (1 on first execution). */
  attempts: number;
  /** Time of the latest claim (ms). */
  claimedAt: number;
  /** Time of the latest change (ms). */
  updatedAt: number;
  /** Time the entry reached a settled state (ms), or null while `running`. */
  settledAt: number | null;
}

/** Status of an approval record. @public */
export type ApprovalStatus = 'requested' | 'approved' | 'rejected' | 'revoked' | 'consumed';

/**
 * A single-use approval bound to one revision of one plan.
 * @public
 */
export interface ApprovalRecord {
  /** Approval id. */
  id: string;
  /** Plan type, e.g. `download` or `organize`. */
  planType: string;
  /** Plan id. */
  planId: string;
  /** Payload hash of the plan when approval was requested. */
  payloadHash: string;
  /** Plan revision when approval was requested. */
  revision: number;
  /** Current status. */
  status: ApprovalStatus;
  /** Actor that asked for the approval. */
  requestedBy: string;
  /** Why it was asked (free text, shown to the approver). */
  reason: string | null;
  /** Creation time (ms). */
  requestedAt: number;
  /** Expiry (ms); after it the approval no longer authorizes anything. */
  expiresAt: number;
  /** Console administrator who approved, rejected or revoked it. */
  decidedBy: string | null;
  /** Time of the decision (ms). */
  decidedAt: number | null;
  /** Invocation that consumed it. */
  consumedBy: string | null;
  /** Time it was consumed (ms). */
  consumedAt: number | null;
}

/** Status of an automation grant. @public */
export type GrantStatus = 'active' | 'revoked';

/** What a grant may touch; an absent or empty list means no restriction on that axis. @public */
export interface GrantScope {
  /** Media entity ids the grant covers. */
  mediaEntityIds?: string[];
  /** Media kinds (e.g. `movie`, `tv`) the grant covers. */
  mediaKinds?: string[];
  /** Capability ids or patterns (`family.*`) the grant covers. */
  capabilities?: string[];
}

/**
 * Daily budgets of a grant, per UTC day, checked against the grant's {@link GrantUsage} counters (charged by
 * every claim the grant authorizes).
 * @public
 */
export interface GrantBudget {
  /** Maximum claims per UTC day. */
  maxInvocationsPerDay?: number;
  /** Maximum bytes per UTC day (sum of the `bytes` of the claims charged that day). */
  maxBytesPerDay?: number;
}

/**
 * What a grant was charged on one UTC day: one record per grant and day, kept by `GrantUsageRepository`.
 * @public
 */
export interface GrantUsage {
  /** Grant id. */
  grantId: string;
  /** Start of the UTC day, in ms since the epoch (a multiple of 86 400 000). */
  day: number;
  /** Claims the grant authorized that day (a re-claim of the same key counts again). */
  invocations: number;
  /** Sum of the `bytes` of those claims. */
  bytes: number;
}

/**
 * A standing automation grant.
 * @public
 */
export interface GrantRecord {
  /** Grant id. */
  id: string;
  /** Capability id, `policy.<kind>`, `family.*` or `*`. */
  action: string;
  /** Current status. */
  status: GrantStatus;
  /** Expiry (ms) or null for none. */
  expiresAt: number | null;
  /** Policy revision the grant is bound to; it must still be published. */
  policyRevisionId: string | null;
  /** Scope restrictions. */
  scope: GrantScope;
  /** Daily budgets. */
  budget: GrantBudget;
  /** Why the grant exists. */
  reason: string | null;
  /** Console administrator who created it. */
  createdBy: string;
  /** Creation time (ms). */
  createdAt: number;
  /** Time of the latest change (ms). */
  updatedAt: number;
}

/**
 * A plan artifact that approvals bind to: its payload hash is the fingerprint of the frozen plan.
 * @public
 */
export interface PlanRecord {
  /** Plan id. */
  id: string;
  /** Plan type, e.g. `download`, `organize`. */
  type: string;
  /** The plan itself. */
  payload: JsonValue;
  /** SHA-256 of the canonical JSON payload. */
  payloadHash: string;
  /** Starts at 1, incremented on every change of the payload. */
  revision: number;
  /** Media entity the plan targets, when known. */
  mediaEntityId: string | null;
  /** Media kind the plan targets, when known. */
  mediaKind: string | null;
  /** Bytes the plan will move, when known. */
  bytes: number;
  /** Actor that created the plan. */
  createdBy: string;
  /** Creation time (ms). */
  createdAt: number;
  /** Time of the latest change (ms). */
  updatedAt: number;
}

/** Status of a policy revision. @public */
export type PolicyRevisionStatus = 'draft' | 'published' | 'retired';

/** One revision of a host policy; grants may be bound to a published revision. @public */
export interface PolicyRevisionRecord {
  /** Revision id. */
  id: string;
  /** Policy kind, e.g. `acquisition`, `automation`. */
  kind: string;
  /** Current status. */
  status: PolicyRevisionStatus;
  /** Creation time (ms). */
  createdAt: number;
  /** Time of the latest change (ms). */
  updatedAt: number;
}

/**
 * Audit actions written by the invocation path: `capability.invoke` (the handler ran, or its recorded
 * result was returned), `capability.denied` (authorization said no), `capability.refused` (the call
 * was refused before authorization: unknown capability, invalid or oversized input, invalid context).
 * @public
 */
export type AuditAction = 'capability.invoke' | 'capability.denied' | 'capability.refused';

/**
 * One audit row: written for every invocation.
 * @public
 */
export interface AuditRecord {
  /** Audit id. */
  id: string;
  /** Storage-assigned order, increasing; 0 before insertion. */
  seq: number;
  /** Time (ms). */
  at: number;
  /** See {@link AuditAction}. */
  action: AuditAction;
  /** Actor string. */
  actor: string;
  /** Capability id. */
  capabilityId: string;
  /** Invocation id. */
  invocationId: string;
  /** Run id, when any. */
  runId: string | null;
  /** Task id, when any. */
  taskId: string | null;
  /** Outcome: an invocation status (`succeeded`, `failed`, `pending`, `unknown`, `denied`). */
  outcome: string;
  /** Approval that authorized the call. */
  approvalId: string | null;
  /** Grant that authorized the call. */
  grantId: string | null;
  /** Idempotency key, for side-effecting kinds. */
  idempotencyKey: string | null;
  /** Redacted JSON summary of the input. */
  inputSummary: string;
  /** Denial reason or error code, when any. */
  reason: string | null;
}
