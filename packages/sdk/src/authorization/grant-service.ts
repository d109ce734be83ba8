import type { Clock } from '../ports/clock';
import { DEFAULT_IDENTITY_RESOLVER, type IdentityResolver } from '../ports/identity';
import { requireAdministrator } from './roles';
import type { IdGenerator } from '../ports/id-generator';
import type { GrantBudget, GrantRecord, GrantScope } from '../core/records';
import type { StorageAdapter } from '../ports/storage-adapter';
import { parseActor } from '../core/actor';
import { actionCovers } from './action-pattern';
import {
  AdministrationForbiddenError,
  GrantMatchesNothingError,
  GrantWideningError,
  InvalidRequestError,
  RecordNotFoundError,
} from './errors';
import { utcDayStart } from '../core/utc-day';

/** Input of {@link GrantService.create}. @public */
export interface CreateGrantInput {
  /** Capability id, `policy.<kind>`, `family.*` or `*`. */
  action: string;
  /** The console administrator creating it (`user:*`). */
  actor: string;
  /** Expiry (ms since epoch); omitted = none. */
  expiresAt?: number;
  /** Policy revision it is bound to (must stay published). */
  policyRevisionId?: string;
  /** Media entities, media kinds and capabilities the grant may touch; omitted or empty restricts nothing. */
  scope?: GrantScope;
  /** Invocations and bytes per UTC day; omitted means unlimited. */
  budget?: GrantBudget;
  /** Why the grant exists, for people reading the audit trail. */
  reason?: string;
  /**
   * Accept an `action` that covers no registered capability (default false: such a grant would
   * authorize nothing, usually a typo, and is refused with `GRANT_MATCHES_NOTHING`). Set it when the
   * capabilities it is meant for are registered later.
   */
  allowUnmatched?: boolean;
}

/**
 * The only changes a grant accepts: revoke it, or move its expiry earlier.
 * @public
 */
export interface UpdateGrantInput {
  /** The console administrator (`user:*`). */
  actor: string;
  /** `revoked` to revoke. */
  status?: 'revoked';
  /** A new expiry (ms) earlier than the current one. */
  expiresAt?: number;
}

const ACTION = /^(\*|[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*(\.\*)?)$/;

/**
 * Standing automation grants. Created by a console administrator;
 * may only be revoked or shortened afterwards.
 * @public
 */
export class GrantService {
  /**
   * @param storage - where grants live; @param clock - time; @param ids - id source
   * @param capabilities - the registered capabilities (id and policy kind), to refuse an action that covers none; omitted: not checked
   * @param identity - who is an administrator (default: every `user:*` actor, {@link DEFAULT_IDENTITY_RESOLVER})
   */
  constructor(
    private readonly storage: StorageAdapter,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly capabilities?: () => ReadonlyArray<{ id: string; policy?: string | undefined }>,
    private readonly identity: IdentityResolver = DEFAULT_IDENTITY_RESOLVER,
  ) {}

  /**
   * Creates an active grant.
   * @throws `ADMIN_FORBIDDEN` unless `actor` is an administrator (`user:*` with role `admin`); `REQUEST_INVALID` for a malformed action, an expiry in
   *   the past, a negative or non-integer budget, a scope that is not lists of strings, unknown scope or budget fields; `POLICY_REVISION_NOT_FOUND` for an unknown policy revision;
   *   `GRANT_MATCHES_NOTHING` for an action that covers no registered capability (unless `allowUnmatched`)
   */
  async create(input: CreateGrantInput): Promise<GrantRecord> {
    await requireAdministrator(this.identity, input.actor, 'create automation grants');
    if (typeof input.action !== 'string' || !ACTION.test(input.action))
      throw new InvalidRequestError(
        `grant action must be a capability id, policy.<kind>, <family>.* or *; got ${JSON.stringify(input.action)}`,
      );
    const now = this.clock.now();
    if (input.expiresAt !== undefined && !(Number.isFinite(input.expiresAt) && input.expiresAt > now))
      throw new InvalidRequestError('grant expiresAt must be a future time in ms');
    const scope = input.scope ?? {};
    if (typeof scope !== 'object' || scope === null || Array.isArray(scope))
      throw new InvalidRequestError('grant scope must be an object');
    for (const [name, value] of Object.entries(scope)) {
      if (!['mediaEntityIds', 'mediaKinds', 'capabilities'].includes(name))
        throw new InvalidRequestError(`unknown grant scope field ${name}`);
      if (
        value !== undefined &&
        !(Array.isArray(value) && value.every((v) => typeof v === 'string' && v.length > 0 && v.length <= 200))
      )
        throw new InvalidRequestError(`grant scope ${name} must be an array of non-empty strings`);
    }
    const budget = input.budget ?? {};
    if (typeof budget !== 'object' || budget === null || Array.isArray(budget))
      throw new InvalidRequestError('grant budget must be an object');
    for (const name of Object.keys(budget))
      if (!['maxInvocationsPerDay', 'maxBytesPerDay'].includes(name))
        throw new InvalidRequestError(`unknown grant budget field ${name}`);
    for (const [name, value] of Object.entries(budget)) {
      if (value !== undefined && !(Number.isInteger(value) && value >= 0))
        throw new InvalidRequestError(`grant budget ${name} must be a non-negative integer`);
    }
    if (input.allowUnmatched !== undefined && typeof input.allowUnmatched !== 'boolean')
      throw new InvalidRequestError('grant allowUnmatched must be a boolean');
    const registered = this.capabilities?.();
    if (registered && input.allowUnmatched !== true && !registered.some((c) => actionCovers(input.action, c))) {
      throw new GrantMatchesNothingError(input.action);
    }
    return this.storage.transaction(async (s) => {
      if (input.policyRevisionId !== undefined && !(await s.policies.get(input.policyRevisionId)))
        throw new RecordNotFoundError('policy revision', input.policyRevisionId);
      const record: GrantRecord = {
        id: this.ids.next('grt'),
        action: input.action,
        status: 'active',
        expiresAt: input.expiresAt ?? null,
        policyRevisionId: input.policyRevisionId ?? null,
        scope: structuredClone(input.scope ?? {}),
        budget: structuredClone(input.budget ?? {}),
        reason: input.reason ?? null,
        createdBy: input.actor,
        createdAt: now,
        updatedAt: now,
      };
      await s.grants.insert(record);
      return record;
    });
  }

  /**
   * Revokes or shortens a grant.
   * @throws `ADMIN_FORBIDDEN`, `GRANT_NOT_FOUND`, `GRANT_WIDENING` for anything that is not a revocation or an
   *   earlier expiry (un-revoking, a later or removed expiry, any other field), `REQUEST_INVALID` for an empty update
   */
  async update(id: string, input: UpdateGrantInput): Promise<GrantRecord> {
    await requireAdministrator(this.identity, input.actor, 'update automation grants');
    const extra = Object.keys(input).filter((k) => !['actor', 'status', 'expiresAt'].includes(k));
    if (extra.length > 0) throw new GrantWideningError(id, `fields ${extra.join(', ')} cannot be changed`);
    if (input.status === undefined && input.expiresAt === undefined)
      throw new InvalidRequestError('nothing to update: give status "revoked" or an earlier expiresAt');
    return this.storage.transaction(async (s) => {
      const current = await s.grants.get(id);
      if (!current) throw new RecordNotFoundError('grant', id);
      const next: GrantRecord = { ...current, updatedAt: this.clock.now() };
      if (input.status !== undefined) {
        if (input.status !== 'revoked')
          throw new GrantWideningError(id, `status can only become revoked, not ${JSON.stringify(input.status)}`);
        next.status = 'revoked';
      }
      if (input.expiresAt !== undefined) {
        if (!Number.isFinite(input.expiresAt)) throw new InvalidRequestError('expiresAt must be a time in ms');
        if (current.expiresAt !== null && input.expiresAt >= current.expiresAt)
          throw new GrantWideningError(id, 'the new expiry is not earlier than the current one');
        next.expiresAt = input.expiresAt;
      }
      await s.grants.update(next);
      return next;
    });
  }

  /**
   * The grant with this id.
   * @throws `GRANT_NOT_FOUND`
   */
  async get(id: string): Promise<GrantRecord> {
    const record = await this.storage.grants.get(id);
    if (!record) throw new RecordNotFoundError('grant', id);
    return record;
  }

  /** Grants, oldest first, optionally by status. */
  list(filter?: { status?: GrantRecord['status'] }): Promise<GrantRecord[]> {
    return this.storage.grants.list(filter);
  }

  /**
   * Claims and bytes charged to the grant in the current UTC day: its usage counters, which every claim the
   * grant authorizes charges in the claim's transaction (what the daily budgets are checked against).
   * @param id - the grant id (an unknown id has zero usage)
   */
  async usageToday(id: string): Promise<{ invocations: number; bytes: number }> {
    const usage = await this.storage.grantUsage.get(id, utcDayStart(this.clock.now()));
    return { invocations: usage.invocations, bytes: usage.bytes };
  }
}
