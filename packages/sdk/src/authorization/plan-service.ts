import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/canonical-json';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { JsonValue, PlanRecord } from '../core/records';
import type { StorageAdapter } from '../ports/storage-adapter';
import { parseActor } from '../core/actor';
import { InvalidRequestError, PlanRevisionConflictError, PlanTooLargeError, RecordNotFoundError } from './errors';

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
 * Plan artifacts: the things approvals bind to. Revising a payload bumps the revision, which invalidates
 * approvals given for the old one.
 * @public
 */
export class PlanService {
  /**
   * @param storage - where plans live; @param clock - time; @param ids - id source
   * @param maxPayloadBytes - largest payload accepted, in UTF-8 bytes of canonical JSON (default 1 MiB; the host passes its `maxInputBytes`)
   */
  constructor(
    private readonly storage: StorageAdapter,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly maxPayloadBytes = 1024 * 1024,
  ) {}

  /** The payload's hash (SHA-256 of its canonical JSON, as `canonicalHash`), after checking its size. */
  #hash(payload: JsonValue): string {
    const json = canonicalJson(payload);
    const bytes = Buffer.byteLength(json, 'utf8');
    if (bytes > this.maxPayloadBytes) throw new PlanTooLargeError(bytes, this.maxPayloadBytes);
    return createHash('sha256').update(json, 'utf8').digest('hex');
  }

  /**
   * Stores a new plan at revision 1.
   * @throws `REQUEST_INVALID` for an empty or over-long (more than 100 characters) type, a media entity id or
   *   kind over 200 characters, or negative bytes; `ACTOR_INVALID`; `CANONICAL_JSON_INVALID` for a payload with no
   *   JSON form; `PLAN_TOO_LARGE` for a payload over the size limit
   */
  async create(input: CreatePlanInput): Promise<PlanRecord> {
    parseActor(input.actor);
    if (typeof input.type !== 'string' || !input.type || input.type.length > 100)
      throw new InvalidRequestError('plan type must be a non-empty string of at most 100 characters');
    for (const field of ['mediaEntityId', 'mediaKind'] as const) {
      const value = input[field];
      if (value !== undefined && !(typeof value === 'string' && value.length <= 200))
        throw new InvalidRequestError(`plan ${field} must be a string of at most 200 characters`);
    }
    if (input.bytes !== undefined && !(Number.isFinite(input.bytes) && input.bytes >= 0))
      throw new InvalidRequestError('plan bytes must be a non-negative number');
    const now = this.clock.now();
    const record: PlanRecord = {
      id: this.ids.next('plan'),
      type: input.type,
      payload: input.payload,
      payloadHash: this.#hash(input.payload),
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
   * @throws `PLAN_NOT_FOUND`, `PLAN_REVISION_CONFLICT`, `PLAN_TOO_LARGE`
   */
  async revise(id: string, payload: JsonValue, expectedRevision?: number): Promise<PlanRecord> {
    const payloadHash = this.#hash(payload);
    return this.storage.transaction(async (s) => {
      const current = await s.plans.get(id);
      if (!current) throw new RecordNotFoundError('plan', id);
      if (expectedRevision !== undefined && current.revision !== expectedRevision)
        throw new PlanRevisionConflictError(id, expectedRevision);
      if (payloadHash === current.payloadHash) return current;
      const next: PlanRecord = {
        ...current,
        payload,
        payloadHash,
        revision: current.revision + 1,
        updatedAt: this.clock.now(),
      };
      if (!(await s.plans.compareAndSet(id, current.revision, next)))
        throw new PlanRevisionConflictError(id, current.revision);
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
