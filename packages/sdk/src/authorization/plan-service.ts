import { canonicalHash } from '../ledger/canonical-json';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { JsonValue, PlanRecord } from '../storage/records';
import type { StorageAdapter } from '../storage/storage-adapter';
import { parseActor } from './actor';
import { InvalidRequestError, PlanRevisionConflictError, RecordNotFoundError } from './errors';

/** Input of {@link PlanService.create}. @public */
export interface CreatePlanInput {
  /** Plan type, e.g. `download`, `organize`. */
  type: string;
  /** The frozen plan; its canonical SHA-256 is the payload hash approvals bind to. */
  payload: JsonValue;
  /** Who creates it. */
  actor: string;
  /** Media entity it targets. */
  mediaEntityId?: string;
  /** Media kind it targets. */
  mediaKind?: string;
  /** Bytes it will move (counted against grant byte budgets). */
  bytes?: number;
}

/**
 * Plan artifacts: the things approvals bind to (seed 004: organize.plan 把冻结的整理计划存成
 * artifact, payloadHash 就是计划指纹). Revising a payload bumps the revision, which invalidates
 * approvals given for the old one.
 * @public
 */
export class PlanService {
  /** @param storage - where plans live; @param clock - time; @param ids - id source */
  constructor(
    private readonly storage: StorageAdapter,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /**
   * Stores a new plan at revision 1.
   * @throws `REQUEST_INVALID` for an empty type or negative bytes, `ACTOR_INVALID`, `CANONICAL_JSON_INVALID` for a payload with no JSON form
   */
  async create(input: CreatePlanInput): Promise<PlanRecord> {
    parseActor(input.actor);
    if (!input.type) throw new InvalidRequestError('plan type is required');
    if (input.bytes !== undefined && !(Number.isFinite(input.bytes) && input.bytes >= 0)) throw new InvalidRequestError('plan bytes must be a non-negative number');
    const now = this.clock.now();
    const record: PlanRecord = {
      id: this.ids.next('plan'),
      type: input.type,
      payload: input.payload,
      payloadHash: canonicalHash(input.payload),
      revision: 1,
      mediaEntityId: input.mediaEntityId ?? null,
      mediaKind: input.mediaKind ?? null,
      bytes: input.bytes ?? 0,
      createdBy: input.actor,
      createdAt: now,
      updatedAt: now,
    };
    await this.storage.plans.insert(record);
    return record;
  }

  /**
   * Replaces a plan's payload; the revision goes up by one when the payload hash changes.
   * @param expectedRevision - when given, the revision the caller saw
   * @throws `PLAN_NOT_FOUND`, `PLAN_REVISION_CONFLICT`
   */
  async revise(id: string, payload: JsonValue, expectedRevision?: number): Promise<PlanRecord> {
    return this.storage.transaction(async (s) => {
      const current = await s.plans.get(id);
      if (!current) throw new RecordNotFoundError('plan', id);
      if (expectedRevision !== undefined && current.revision !== expectedRevision) throw new PlanRevisionConflictError(id, expectedRevision);
      const payloadHash = canonicalHash(payload);
      if (payloadHash === current.payloadHash) return current;
      const next: PlanRecord = { ...current, payload, payloadHash, revision: current.revision + 1, updatedAt: this.clock.now() };
      if (!(await s.plans.compareAndSet(id, current.revision, next))) throw new PlanRevisionConflictError(id, current.revision);
      return next;
    });
  }

  /**
   * The plan with this id.
   * @throws `PLAN_NOT_FOUND`
   */
  async get(id: string): Promise<PlanRecord> {
    const plan = await this.storage.plans.get(id);
    if (!plan) throw new RecordNotFoundError('plan', id);
    return plan;
  }
}
