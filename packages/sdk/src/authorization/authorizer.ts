import type { ActorRole } from '../core/actor';
import type { CapabilityDescriptor } from '../core/capability-descriptor';
import type { StorageSession } from '../ports/storage-adapter';
import type { PlanRecord } from '../core/records';
import type { AuthorizationVerdict } from './verdict';

/** One authorization question. @public */
export interface AuthorizationRequest {
  /** The actor. */
  actor: string;
  /**
   * The role the call is made with, resolved by the host's `IdentityResolver`: the actor's own, or for a
   * call a run makes (`agent:<runId>`), the role of the run's owner (who started it; for a subagent, who
   * started its top-level run), whoever steered it since; `user` when the owner is not a person. Only a
   * `user:*` actor can have the role `admin`. Resolved only where it matters — an `adminOnly` capability, or a
   * `user:*` actor's `propose`/`approve`/`execute` call — and `user` otherwise.
   */
  role: ActorRole;
  /** The capability. */
  capability: CapabilityDescriptor;
  /** What the call touches (plan, media entity, kind, bytes). */
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
  /** Approval id the caller points at. */
  approvalId: string | undefined;
  /** Idempotency key, for side-effecting kinds. */
  idempotencyKey: string | undefined;
  /** The run the call belongs to: its mode, allowlist and subagent status limit every call. */
  runId: string | undefined;
  /** Now (ms). */
  now: number;
}

/**
 * The authorization port: decides allow/deny for one invocation from the actor,
 * capability, target, approval and grant records. Called inside the invocation's storage
 * transaction, so budget checks and the ledger claim are atomic.
 * @public
 */
export interface Authorizer {
  /**
   * Decides whether one invocation may run.
   * @param request - the question
   * @param session - the storage session of the invocation's transaction (read records only through it)
   * @returns the verdict; never throws for a denial
   */
  authorize(request: AuthorizationRequest, session: StorageSession): Promise<AuthorizationVerdict>;
}
