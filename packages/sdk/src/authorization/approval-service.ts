import { EventEmitter } from 'eventemitter3';
import { DEFAULT_IDENTITY_RESOLVER, type IdentityResolver } from '../ports/identity';
import { requireAdministrator } from './roles';
import type { EventSource } from '../ports/event-source';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { ApprovalRecord, ApprovalStatus, AuditRecord, JsonValue, PlanRecord } from '../core/records';
import { MediaAgentError } from '../core/errors';
import type { ApprovalListFilter, StorageAdapter, StorageSession } from '../ports/storage-adapter';
import type { ImpactReport } from '../core/impact';
import { planSteps } from '../core/plan-steps';
import { nestsDeeperThan } from '../core/json-depth';
import { canonicalHash, canonicalJson } from '../core/canonical-json';
import { parseActor } from '../core/actor';
import {
  AdministrationForbiddenError,
  ApprovalEditError,
  ApprovalHashMismatchError,
  ApprovalStateError,
  ApprovalStepUnknownError,
  PlanTooLargeError,
  InvalidRequestError,
  RecordNotFoundError,
} from './errors';

/** Default approval lifetime: 24 hours, in ms. @public */
export const DEFAULT_APPROVAL_TTL_MS = 24 * 60 * 60 * 1000;

/** Input of {@link ApprovalService.request}. @public */
export interface RequestApprovalInput {
  /** Plan type. */
  planType: string;
  /** Plan id; the approval binds to the plan's current payload hash and revision. */
  planId: string;
  /** Who asks (any actor may ask). */
  actor: string;
  /** Why, shown to the approver. */
  reason?: string;
  /** Lifetime in ms (default 86 400 000, 24 h). */
  ttlMs?: number;
  /** The capability whose call asks (the plan's executor); edits are checked against it. */
  capabilityId?: string;
  /** What the call will do, shown to the approver (see `describeImpact`). */
  impact?: ImpactReport;
}

/**
 * An approver's edit of the plan (see {@link DecideApprovalInput.edits}): the whole edited payload. `capabilityId`,
 * when given, must be the approval's own: an edit can never switch capability.
 * @public
 */
export interface ApprovalEdits {
  /** The edited plan payload, validated against the capability's `planPayload` schema and policy. */
  payload: JsonValue;
  /** The capability the edit is for; anything but the approval's `capabilityId` is `APPROVAL_EDIT_WRONG_CAPABILITY`. */
  capabilityId?: string;
}

/**
 * Checks an approver's edit against the approval's capability (its `planPayload` schema and policy), before the
 * deciding transaction (reading through `session`, the store), and returns the edited plan's impact (or null). Throws
 * {@link ApprovalEditError}. The host supplies it; without one, edits are `APPROVAL_EDIT_UNSUPPORTED`.
 * @public
 */
export type ApprovalEditCheck = (args: {
  approval: ApprovalRecord;
  plan: PlanRecord;
  payload: JsonValue;
  session: StorageSession;
}) => Promise<ImpactReport | null>;

/** Input of {@link ApprovalService.decide}. @public */
export interface DecideApprovalInput {
  /** The decision. */
  status: 'approved' | 'rejected';
  /** The deciding console administrator (`user:*`). */
  actor: string;
  /** The plan's payload hash, echoed back by the approver (required to approve): the proposed one, also with edits. */
  payloadHash?: string;
  /**
   * Approve only these steps of the plan (ids from `ApprovalRecord.steps`); omitted: the whole plan. Executing any
   * other step is then denied `APPROVAL_STEP_NOT_APPROVED`.
   */
  steps?: string[];
  /**
   * Approve an edited plan instead ("yes, but the 1080p one"): the edit is validated, becomes the plan's next
   * revision (a new payload hash) and is what executes; the proposed payload can never execute afterwards.
   */
  edits?: ApprovalEdits;
}

/**
 * Single-use approvals: bound to plan type + plan id + payload
 * hash + revision at request time, with an expiry; only a console administrator decides, echoing
 * the payload hash; an API key can never approve (so never its own plan); consumed by the first
 * successful execution and never replayed.
 * @public
 */
export class ApprovalService {
  readonly #emitter = new EventEmitter<{ decided: [ApprovalRecord] }>();
  /** Emits `decided` after an approval was approved, rejected or revoked (the runtime wakes the run that asked). */
  readonly events: EventSource<{ decided: [ApprovalRecord] }> = this.#emitter;

  /**
   * @param storage - where approvals live; @param clock - time; @param ids - id source; @param defaultTtlMs - default lifetime (ms)
   * @param identity - who is an administrator (default: every `user:*` actor, {@link DEFAULT_IDENTITY_RESOLVER})
   */
  constructor(
    private readonly storage: StorageAdapter,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly defaultTtlMs: number = DEFAULT_APPROVAL_TTL_MS,
    private readonly identity: IdentityResolver = DEFAULT_IDENTITY_RESOLVER,
    private readonly editCheck?: ApprovalEditCheck,
    private readonly maxPayloadBytes = 1024 * 1024,
  ) {}

  /**
   * Asks for approval of a plan's current revision.
   * @throws `ACTOR_INVALID`, `PLAN_NOT_FOUND`, `REQUEST_INVALID` (plan type mismatch, bad ttl)
   */
  async request(input: RequestApprovalInput): Promise<ApprovalRecord> {
    parseActor(input.actor);
    if (input.capabilityId !== undefined && (typeof input.capabilityId !== 'string' || input.capabilityId.length > 200))
      throw new InvalidRequestError('capabilityId must be a capability id');
    const ttl = input.ttlMs ?? this.defaultTtlMs;
    if (!(Number.isFinite(ttl) && ttl > 0))
      throw new InvalidRequestError('approval ttlMs must be a positive number of milliseconds');
    return this.storage.transaction(async (s) => {
      const plan = await s.plans.get(input.planId);
      if (!plan) throw new RecordNotFoundError('plan', input.planId);
      if (plan.type !== input.planType)
        throw new InvalidRequestError(`plan ${plan.id} is a ${plan.type} plan, not ${input.planType}`);
      const now = this.clock.now();
      const record: ApprovalRecord = {
        id: this.ids.next('apr'),
        planType: plan.type,
        planId: plan.id,
        payloadHash: plan.payloadHash,
        revision: plan.revision,
        status: 'requested',
        requestedBy: input.actor,
        reason: input.reason ?? null,
        requestedAt: now,
        expiresAt: now + ttl,
        decidedBy: null,
        decidedAt: null,
        consumedBy: null,
        consumedAt: null,
        capabilityId: input.capabilityId ?? null,
        impact: input.impact ?? null,
        steps: planSteps(plan.payload),
        approvedSteps: null,
        proposedPayload: plan.payload,
        proposedPayloadHash: plan.payloadHash,
        approvedPayload: null,
        executedPayloadHash: null,
      };
      await s.approvals.insert(record);
      return record;
    });
  }

  /**
   * Approves or rejects a requested approval.
   * @throws `ADMIN_FORBIDDEN` unless `actor` is an administrator (`user:*` with role `admin`) (an API key, agent or system job can never approve),
   *   `APPROVAL_NOT_FOUND`, `APPROVAL_HASH_MISMATCH` when approving without echoing the bound payload hash,
   *   `APPROVAL_STATE` when it is not `requested`, has expired, or its plan changed since the request;
   *   `REQUEST_INVALID` for `steps` that are not a non-empty list of strings or `edits` without a `payload`;
   *   `APPROVAL_STEP_UNKNOWN` for a step the plan does not have; `APPROVAL_EDIT_INVALID`,
   *   `APPROVAL_EDIT_WRONG_CAPABILITY`, `APPROVAL_EDIT_UNSUPPORTED`, `APPROVAL_EDIT_DENIED` for a refused edit;
   *   `PLAN_TOO_LARGE` for an edited payload over the size limit. A refused decision changes nothing.
   * @example
   * ```ts
   * // "yes, but only the first two files"
   * await host.approvals.decide(approval.id, {
   *   status: 'approved', actor: 'user:dad', payloadHash: approval.payloadHash, steps: ['f1', 'f2'],
   * });
   * ```
   */
  async decide(id: string, input: DecideApprovalInput): Promise<ApprovalRecord> {
    try {
      return await this.#decide(id, input);
    } catch (error) {
      // A refused decision changed nothing; it is audited on its own (a failure to audit never hides it).
      if (error instanceof MediaAgentError)
        await this.storage.audit
          .append(
            this.#auditRow('approval.refused', id, input, 'refused', `${error.code}: ${error.message}`.slice(0, 1000)),
          )
          .catch(() => undefined);
      throw error;
    }
  }

  /** One audit row of a decision on approval `id`. */
  #auditRow(
    action: 'approval.decided' | 'approval.refused',
    id: string,
    input: DecideApprovalInput,
    outcome: string,
    reason: string | null,
    edited?: string,
  ): AuditRecord {
    const summary: Record<string, unknown> = { status: input?.status };
    if (Array.isArray(input?.steps)) summary.steps = input.steps.slice(0, 50);
    if (edited !== undefined) summary.editedPayloadHash = edited;
    else if (input?.edits !== undefined) summary.edited = true;
    return {
      id: this.ids.next('aud'),
      seq: 0,
      at: this.clock.now(),
      action,
      actor: String(input?.actor ?? '').slice(0, 200),
      capabilityId: 'host.approvals.decide',
      invocationId: this.ids.next('inv'),
      runId: null,
      taskId: null,
      outcome,
      approvalId: typeof id === 'string' ? id.slice(0, 200) : null,
      grantId: null,
      idempotencyKey: null,
      inputSummary: JSON.stringify(summary),
      reason,
    };
  }

  async #decide(id: string, input: DecideApprovalInput): Promise<ApprovalRecord> {
    await requireAdministrator(this.identity, input?.actor, 'decide approvals');
    checkDecideShape(input);
    // An edit is checked before the deciding transaction (its impact may take up to impactTimeoutMs, which must not
    // hold the store's write lock); the transaction then applies it only to the plan revision that was checked.
    const checked =
      input.status === 'approved' && input.edits !== undefined ? await this.#checkEdits(id, input.edits) : undefined;
    return this.storage
      .transaction(async (s) => {
        const current = await s.approvals.get(id);
        if (!current) throw new RecordNotFoundError('approval', id);
        if (current.status !== 'requested') throw new ApprovalStateError(id, `it is ${current.status}, not requested`);
        const now = this.clock.now();
        if (now >= current.expiresAt) throw new ApprovalStateError(id, 'it has expired');
        let patch: Partial<ApprovalRecord> = {
          status: input.status as ApprovalStatus,
          decidedBy: input.actor,
          decidedAt: now,
        };
        if (input.status === 'approved') {
          if (input.payloadHash !== current.payloadHash) throw new ApprovalHashMismatchError(id);
          const plan = await s.plans.get(current.planId);
          if (!plan || plan.payloadHash !== current.payloadHash || plan.revision !== current.revision)
            throw new ApprovalStateError(id, 'the plan changed since approval was requested; request a new approval');
          if (input.edits !== undefined && checked !== undefined) {
            if (checked.revision !== plan.revision)
              throw new ApprovalStateError(id, 'the plan changed while the edit was being checked; decide again');
            patch = { ...patch, ...(await this.#applyEdits(s, current, plan, input.edits, checked.impact)) };
          }
          if (input.steps !== undefined) {
            const steps = (patch.steps ?? current.steps).map((step) => step.id);
            const unknown = input.steps.filter((step) => !steps.includes(step));
            if (unknown.length > 0 || steps.length === 0) throw new ApprovalStepUnknownError(id, unknown, steps);
            patch.approvedSteps = steps.filter((step) => input.steps!.includes(step));
          }
        } else if (input.status !== 'rejected') {
          throw new InvalidRequestError('status must be approved or rejected');
        } else if (input.edits !== undefined || input.steps !== undefined) {
          throw new InvalidRequestError('edits and steps are given only when approving');
        }
        if (!(await s.approvals.compareAndSet(id, 'requested', patch)))
          throw new ApprovalStateError(id, 'it was decided concurrently');
        await s.audit.append(
          this.#auditRow(
            'approval.decided',
            id,
            input,
            input.status,
            null,
            patch.approvedPayload ? patch.payloadHash : undefined,
          ),
        );
        return { ...current, ...patch };
      })
      .then((decided) => {
        this.#emitter.emit('decided', decided);
        return decided;
      });
  }

  /**
   * Checks an edit outside any transaction: never another capability, one that can be checked, within the size limit,
   * then the host's check (schema, policy, impact). Returns the plan revision it checked and the edited impact; a
   * missing approval or plan is left to the deciding transaction to report.
   */
  async #checkEdits(
    id: string,
    edits: ApprovalEdits,
  ): Promise<{ revision: number; impact: ImpactReport | null } | undefined> {
    const current = await this.storage.approvals.get(id);
    const plan = current ? await this.storage.plans.get(current.planId) : undefined;
    if (!current || !plan) return undefined;
    if (edits.capabilityId !== undefined && edits.capabilityId !== current.capabilityId)
      throw new ApprovalEditError(
        'APPROVAL_EDIT_WRONG_CAPABILITY',
        current.id,
        `the edit is for ${JSON.stringify(edits.capabilityId)}, but the approval was asked for ${current.capabilityId ?? 'no capability'}; an edit can never switch capability`,
        { capabilityId: current.capabilityId, editCapabilityId: edits.capabilityId },
      );
    if (current.capabilityId === null || this.editCheck === undefined)
      throw new ApprovalEditError(
        'APPROVAL_EDIT_UNSUPPORTED',
        current.id,
        'the approval was asked for without a capability whose plan payload schema could check the edit; approve or reject the plan as proposed',
      );
    const size = Buffer.byteLength(canonicalJson(edits.payload), 'utf8');
    if (size > this.maxPayloadBytes) throw new PlanTooLargeError(size, this.maxPayloadBytes);
    const impact = await this.editCheck({ approval: current, plan, payload: edits.payload, session: this.storage });
    return { revision: plan.revision, impact };
  }

  /**
   * The checked edit becomes the plan's next revision, in the deciding transaction; the approval binds to it (its
   * payload hash and revision), keeping the proposed payload apart.
   */
  async #applyEdits(
    s: StorageSession,
    current: ApprovalRecord,
    plan: PlanRecord,
    edits: ApprovalEdits,
    impact: ImpactReport | null,
  ): Promise<Partial<ApprovalRecord>> {
    const payloadHash = canonicalHash(edits.payload);
    if (payloadHash === plan.payloadHash) return {};
    // The bytes grants count follow the edit when its impact knows them (a bigger release is a bigger plan).
    const bytes =
      impact?.status === 'known' ? (impact.impact.downloadBytes ?? impact.impact.writeBytes ?? plan.bytes) : plan.bytes;
    const next: PlanRecord = {
      ...plan,
      payload: edits.payload,
      payloadHash,
      revision: plan.revision + 1,
      bytes,
      updatedAt: this.clock.now(),
    };
    if (!(await s.plans.compareAndSet(plan.id, plan.revision, next)))
      throw new ApprovalStateError(current.id, 'the plan changed while the edit was being applied');
    return {
      payloadHash,
      revision: next.revision,
      approvedPayload: edits.payload,
      steps: planSteps(edits.payload),
      ...(impact ? { impact } : {}),
    };
  }

  /**
   * Revokes a requested or approved approval.
   * @throws `ADMIN_FORBIDDEN`, `APPROVAL_NOT_FOUND`, `APPROVAL_STATE` when already consumed, rejected or revoked
   */
  async revoke(id: string, actor: string): Promise<ApprovalRecord> {
    await requireAdministrator(this.identity, actor, 'revoke approvals');
    return this.storage
      .transaction(async (s) => {
        const current = await s.approvals.get(id);
        if (!current) throw new RecordNotFoundError('approval', id);
        if (current.status !== 'requested' && current.status !== 'approved')
          throw new ApprovalStateError(id, `it is ${current.status}`);
        const patch = { status: 'revoked' as const, decidedBy: actor, decidedAt: this.clock.now() };
        if (!(await s.approvals.compareAndSet(id, current.status, patch)))
          throw new ApprovalStateError(id, 'it changed concurrently');
        return { ...current, ...patch };
      })
      .then((revoked) => {
        this.#emitter.emit('decided', revoked);
        return revoked;
      });
  }

  /**
   * The approval with this id.
   * @throws `APPROVAL_NOT_FOUND`
   */
  async get(id: string): Promise<ApprovalRecord> {
    const record = await this.storage.approvals.get(id);
    if (!record) throw new RecordNotFoundError('approval', id);
    return record;
  }

  /**
   * Approvals, newest first, filtered by status, plan and/or requester (`requestedBy`: `agent:<runId>` lists what
   * one run asked for).
   * @throws `REQUEST_INVALID` for an unknown status or field, a `planId` or `requestedBy` that is not a string, or a
   *   limit that is not a positive integer (a misspelt filter would otherwise list nothing, silently)
   */
  async list(filter?: ApprovalListFilter): Promise<ApprovalRecord[]> {
    if (filter !== undefined) {
      if (typeof filter !== 'object' || filter === null) throw new InvalidRequestError('the filter must be an object');
      const unknown = Object.keys(filter).filter((k) => !['status', 'planId', 'requestedBy', 'limit'].includes(k));
      if (unknown.length > 0) throw new InvalidRequestError(`unknown approval filter field ${unknown.join(', ')}`);
      if (filter.status !== undefined && !APPROVAL_STATUSES.includes(filter.status))
        throw new InvalidRequestError(
          `approval status must be one of ${APPROVAL_STATUSES.join(', ')}; got ${JSON.stringify(filter.status)}`,
        );
      if (filter.planId !== undefined && typeof filter.planId !== 'string')
        throw new InvalidRequestError('planId must be a string');
      if (filter.requestedBy !== undefined && typeof filter.requestedBy !== 'string')
        throw new InvalidRequestError('requestedBy must be a string');
      if (filter.limit !== undefined && !(Number.isInteger(filter.limit) && filter.limit > 0))
        throw new InvalidRequestError(`limit must be a positive integer; got ${String(filter.limit)}`);
    }
    return this.storage.approvals.list(filter);
  }
}

/** How deep an edited plan payload may nest (plans are records of releases and files, a few levels deep). */
const MAX_EDIT_DEPTH = 64;

/** `steps` a non-empty list of distinct strings; `edits` an object with a `payload` nested at most 64 levels. */
function checkDecideShape(input: DecideApprovalInput): void {
  const { steps, edits } = input as { steps?: unknown; edits?: unknown };
  if (
    steps !== undefined &&
    !(Array.isArray(steps) && steps.length > 0 && steps.length <= 1000 && steps.every((x) => typeof x === 'string'))
  )
    throw new InvalidRequestError('steps must be a non-empty list of step ids (strings)');
  if (edits !== undefined) {
    if (typeof edits !== 'object' || edits === null || Array.isArray(edits) || !('payload' in edits))
      throw new InvalidRequestError('edits must be an object { payload, capabilityId? }');
    const capabilityId = (edits as { capabilityId?: unknown }).capabilityId;
    if (capabilityId !== undefined && typeof capabilityId !== 'string')
      throw new InvalidRequestError('edits.capabilityId must be a string when given');
    if (nestsDeeperThan((edits as { payload: unknown }).payload, MAX_EDIT_DEPTH))
      throw new InvalidRequestError(`edits.payload nests deeper than ${MAX_EDIT_DEPTH} levels`);
  }
}

/** Every approval status, for filters. */
const APPROVAL_STATUSES: readonly ApprovalStatus[] = ['requested', 'approved', 'rejected', 'revoked', 'consumed'];
