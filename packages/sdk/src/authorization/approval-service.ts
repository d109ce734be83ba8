import { EventEmitter } from 'eventemitter3';
import { DEFAULT_IDENTITY_RESOLVER, type IdentityResolver } from '../ports/identity';
import { requireAdministrator } from './roles';
import type { EventSource } from '../ports/event-source';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { ApprovalRecord, ApprovalStatus } from '../core/records';
import type { StorageAdapter } from '../ports/storage-adapter';
import { parseActor } from '../core/actor';
import {
  AdministrationForbiddenError,
  ApprovalHashMismatchError,
  ApprovalStateError,
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
}

/** Input of {@link ApprovalService.decide}. @public */
export interface DecideApprovalInput {
  /** The decision. */
  status: 'approved' | 'rejected';
  /** The deciding console administrator (`user:*`). */
  actor: string;
  /** The plan's payload hash, echoed back by the approver (required to approve). */
  payloadHash?: string;
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
  ) {}

  /**
   * Asks for approval of a plan's current revision.
   * @throws `ACTOR_INVALID`, `PLAN_NOT_FOUND`, `REQUEST_INVALID` (plan type mismatch, bad ttl)
   */
  async request(input: RequestApprovalInput): Promise<ApprovalRecord> {
    parseActor(input.actor);
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
      };
      await s.approvals.insert(record);
      return record;
    });
  }

  /**
   * Approves or rejects a requested approval.
   * @throws `ADMIN_FORBIDDEN` unless `actor` is an administrator (`user:*` with role `admin`) (an API key, agent or system job can never approve),
   *   `APPROVAL_NOT_FOUND`, `APPROVAL_HASH_MISMATCH` when approving without echoing the bound payload hash,
   *   `APPROVAL_STATE` when it is not `requested`, has expired, or its plan changed since the request
   */
  async decide(id: string, input: DecideApprovalInput): Promise<ApprovalRecord> {
    await requireAdministrator(this.identity, input.actor, 'decide approvals');
    return this.storage
      .transaction(async (s) => {
        const current = await s.approvals.get(id);
        if (!current) throw new RecordNotFoundError('approval', id);
        if (current.status !== 'requested') throw new ApprovalStateError(id, `it is ${current.status}, not requested`);
        const now = this.clock.now();
        if (now >= current.expiresAt) throw new ApprovalStateError(id, 'it has expired');
        if (input.status === 'approved') {
          if (input.payloadHash !== current.payloadHash) throw new ApprovalHashMismatchError(id);
          const plan = await s.plans.get(current.planId);
          if (!plan || plan.payloadHash !== current.payloadHash || plan.revision !== current.revision)
            throw new ApprovalStateError(id, 'the plan changed since approval was requested; request a new approval');
        } else if (input.status !== 'rejected') {
          throw new InvalidRequestError('status must be approved or rejected');
        }
        const patch = { status: input.status as ApprovalStatus, decidedBy: input.actor, decidedAt: now };
        if (!(await s.approvals.compareAndSet(id, 'requested', patch)))
          throw new ApprovalStateError(id, 'it was decided concurrently');
        return { ...current, ...patch };
      })
      .then((decided) => {
        this.#emitter.emit('decided', decided);
        return decided;
      });
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
   * Approvals, newest first, filtered by status and/or plan.
   * @throws `REQUEST_INVALID` for an unknown status or field, or a limit that is not a positive integer
   *   (a misspelt filter would otherwise list nothing, silently)
   */
  async list(filter?: { status?: ApprovalStatus; planId?: string; limit?: number }): Promise<ApprovalRecord[]> {
    if (filter !== undefined) {
      if (typeof filter !== 'object' || filter === null) throw new InvalidRequestError('the filter must be an object');
      const unknown = Object.keys(filter).filter((k) => !['status', 'planId', 'limit'].includes(k));
      if (unknown.length > 0) throw new InvalidRequestError(`unknown approval filter field ${unknown.join(', ')}`);
      if (filter.status !== undefined && !APPROVAL_STATUSES.includes(filter.status))
        throw new InvalidRequestError(
          `approval status must be one of ${APPROVAL_STATUSES.join(', ')}; got ${JSON.stringify(filter.status)}`,
        );
      if (filter.planId !== undefined && typeof filter.planId !== 'string')
        throw new InvalidRequestError('planId must be a string');
      if (filter.limit !== undefined && !(Number.isInteger(filter.limit) && filter.limit > 0))
        throw new InvalidRequestError(`limit must be a positive integer; got ${String(filter.limit)}`);
    }
    return this.storage.approvals.list(filter);
  }
}

/** Every approval status, for filters. */
const APPROVAL_STATUSES: readonly ApprovalStatus[] = ['requested', 'approved', 'rejected', 'revoked', 'consumed'];
