// host.schedules: schedules created, read and changed over storage (docs/schedules.md). Every change is a
// compare-and-set on the schedule's revision, written with its `schedule.changed` audit row in one transaction; bad
// input is refused before anything is written.
import { AdministrationForbiddenError } from '../../authorization/errors';
import { parseActor } from '../../core/actor';
import type { CapabilityDescriptor } from '../../core/capability-descriptor';
import { MediaAgentError } from '../../core/errors';
import type { AuditRecord, JsonValue } from '../../core/records';
import type { ScheduleRecord, ScheduleTickRecord } from '../../core/schedule-records';
import type { Clock } from '../../ports/clock';
import type { IdGenerator } from '../../ports/id-generator';
import type { IdentityResolver } from '../../ports/identity';
import type { StorageAdapter } from '../../ports/storage-adapter';
import {
  forbiddenScheduleCapabilities,
  listedScheduleOwner,
  mayCreateScheduleFor,
  mayManageSchedule,
  scheduleActorRole,
} from './schedule-access';
import {
  checkScheduleChange,
  checkScheduleCreate,
  firstTickAfter,
  type ScheduleDefinition,
  type ScheduleDefinitionRules,
  sameScheduleDefinition,
  scheduleDefinitionOf,
} from './schedule-definition';
import {
  ScheduleCapabilityForbiddenError,
  ScheduleConflictError,
  ScheduleKeyReusedError,
  ScheduleNotFoundError,
} from './schedule-errors';
import type { CreateScheduleInput, HostSchedules, ListSchedulesFilter, UpdateScheduleInput } from './schedule-types';

/** Compare-and-set attempts of one change before it fails `SCHEDULE_CONFLICT`. @internal */
export const SCHEDULE_CHANGE_ATTEMPTS = 5;

/** The capabilities a schedule's allowlist is checked against (the host's registry). @internal */
export interface ScheduleCapabilityLookup {
  /** Whether the id is registered. */
  has(id: string): boolean;
  /** The registered capability (only called after `has` answered true). */
  get(id: string): CapabilityDescriptor;
}

/** Dependencies of {@link ScheduleService}. @internal */
export interface ScheduleServiceDeps {
  /** Where schedules and audit rows are kept. */
  storage: StorageAdapter;
  /** Time (creation, next ticks, audit rows). */
  clock: Clock;
  /** Schedule (`sch_…`) and audit row ids. */
  ids: IdGenerator;
  /** Who is an administrator. */
  identity: IdentityResolver;
  /** The registered capabilities. */
  capabilities: ScheduleCapabilityLookup;
  /** The host's rules (`schedules.minIntervalMs`). */
  rules: ScheduleDefinitionRules;
}

/** The operations audited, as the `capabilityId` of their audit rows (`host.schedules.<operation>`). */
type ScheduleOperation = 'create' | 'update' | 'pause' | 'resume' | 'delete';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The default {@link HostSchedules} (docs/schedules.md).
 * @internal
 */
export class ScheduleService implements HostSchedules {
  readonly #deps: ScheduleServiceDeps;

  /** @param deps - storage, clock, ids, identity, capabilities, the host's rules */
  constructor(deps: ScheduleServiceDeps) {
    this.#deps = deps;
  }

  /** {@inheritDoc HostSchedules.create} */
  async create(input: CreateScheduleInput): Promise<ScheduleRecord> {
    const { storage, clock, ids, identity, rules } = this.#deps;
    const now = clock.now();
    const checked = checkScheduleCreate(input, rules, now);
    const { actor, owner, clientKey, definition } = checked;
    const role = await scheduleActorRole(identity, actor);
    if (!mayCreateScheduleFor(owner, actor, role))
      throw new AdministrationForbiddenError(actor, `create a schedule for ${owner}`);
    if (clientKey !== null) {
      const first = await storage.schedules.findByClientKey(owner, clientKey);
      if (first) return replayed(first, definition, clientKey);
    }
    await this.#checkCapabilities(definition, owner, owner === actor ? role : undefined);
    const record: ScheduleRecord = {
      id: ids.next('sch'),
      owner,
      createdBy: actor,
      clientKey,
      ...recordFields(definition),
      anchorAt: now,
      status: checked.paused ? 'paused' : 'active',
      nextTickAt: checked.paused ? null : firstTickAfter(definition, now, now),
      lastTickAt: null,
      lastRunId: null,
      revision: 1,
      createdAt: now,
      updatedAt: now,
    };
    const inserted = await storage.transaction(async (s) => {
      if (!(await s.schedules.insert(record))) return false;
      await s.audit.append(this.#audit('create', actor, record, { definition, paused: checked.paused }));
      return true;
    });
    if (inserted) return record;
    // Another create with the same key committed between the look-up and the insert.
    const first = await storage.schedules.findByClientKey(owner, clientKey as string);
    if (!first) throw new ScheduleConflictError(record.id, 1);
    return replayed(first, definition, clientKey as string);
  }

  /** {@inheritDoc HostSchedules.get} */
  async get(id: string, actor?: string): Promise<ScheduleRecord> {
    return this.#visible(id, actor);
  }

  /** {@inheritDoc HostSchedules.list} */
  async list(filter: ListSchedulesFilter = {}): Promise<ScheduleRecord[]> {
    if (!isObject(filter)) throw requestInvalid('filter must be an object { actor?, owner?, status?, limit? }');
    for (const key of Object.keys(filter))
      if (!['actor', 'owner', 'status', 'limit'].includes(key))
        throw requestInvalid(`unknown filter field ${key}; known: actor, owner, status, limit`);
    const { actor, owner, status, limit } = filter as ListSchedulesFilter;
    if (actor !== undefined) parseActor(actor);
    if (owner !== undefined && typeof owner !== 'string') throw requestInvalid('owner must be an actor string');
    if (status !== undefined && status !== 'active' && status !== 'paused')
      throw requestInvalid(`status must be active or paused; got ${JSON.stringify(status)}`);
    const n = checkLimit(limit, 100);
    const role = actor === undefined ? 'user' : await scheduleActorRole(this.#deps.identity, actor);
    const listed = listedScheduleOwner(actor, role, owner);
    if (listed === null) return [];
    return this.#deps.storage.schedules.list({
      ...(listed !== undefined ? { owner: listed } : {}),
      ...(status !== undefined ? { status } : {}),
      limit: n,
    });
  }

  /** {@inheritDoc HostSchedules.update} */
  update(id: string, change: UpdateScheduleInput, actor: string): Promise<ScheduleRecord> {
    return this.#change(id, actor, 'update', async (current, now) => {
      const before = scheduleDefinitionOf(current);
      const { definition, timingChanged } = checkScheduleChange(change, before, this.#deps.rules, now);
      if (sameScheduleDefinition(before, definition)) return undefined;
      if (definition.capabilityAllowlist !== null) await this.#checkCapabilities(definition, current.owner);
      const anchorAt = timingChanged ? now : current.anchorAt;
      return {
        record: {
          ...current,
          ...recordFields(definition),
          anchorAt,
          nextTickAt:
            timingChanged && current.status === 'active'
              ? firstTickAfter(definition, anchorAt, now)
              : current.nextTickAt,
        },
        summary: { change: change as unknown as JsonValue },
      };
    });
  }

  /** {@inheritDoc HostSchedules.pause} */
  pause(id: string, actor: string): Promise<ScheduleRecord> {
    return this.#change(id, actor, 'pause', async (current) =>
      current.status === 'paused' ? undefined : { record: { ...current, status: 'paused', nextTickAt: null } },
    );
  }

  /** {@inheritDoc HostSchedules.resume} */
  resume(id: string, actor: string): Promise<ScheduleRecord> {
    return this.#change(id, actor, 'resume', async (current, now) =>
      current.status === 'active'
        ? undefined
        : {
            record: {
              ...current,
              status: 'active',
              nextTickAt: firstTickAfter(scheduleDefinitionOf(current), current.anchorAt, now),
            },
          },
    );
  }

  /** {@inheritDoc HostSchedules.delete} */
  async delete(id: string, actor: string): Promise<void> {
    parseActor(actor);
    const { storage } = this.#deps;
    for (let attempt = 1; attempt <= SCHEDULE_CHANGE_ATTEMPTS; attempt++) {
      const current = await this.#visible(id, actor);
      const deleted = await storage.transaction(async (s) => {
        if (!(await s.schedules.delete(id, current.revision))) return false;
        await s.audit.append(this.#audit('delete', actor, current, {}));
        return true;
      });
      if (deleted) return;
    }
    throw new ScheduleConflictError(id, SCHEDULE_CHANGE_ATTEMPTS);
  }

  /** {@inheritDoc HostSchedules.ticks} */
  async ticks(
    id: string,
    options: { actor?: string; before?: number; limit?: number } = {},
  ): Promise<ScheduleTickRecord[]> {
    if (!isObject(options)) throw requestInvalid('options must be an object { actor?, before?, limit? }');
    for (const key of Object.keys(options))
      if (!['actor', 'before', 'limit'].includes(key))
        throw requestInvalid(`unknown option ${key}; known: actor, before, limit`);
    const { actor, before } = options as { actor?: string; before?: number };
    if (before !== undefined && !Number.isSafeInteger(before))
      throw requestInvalid('before must be a time in ms (an integer)');
    const limit = checkLimit(options.limit, 50);
    await this.#visible(id, actor);
    return this.#deps.storage.schedules.ticks(id, { ...(before !== undefined ? { before } : {}), limit });
  }

  /** The schedule if `actor` (undefined: the host) may see it. */
  async #visible(id: string, actor: string | undefined): Promise<ScheduleRecord> {
    if (actor !== undefined) parseActor(actor);
    if (typeof id !== 'string') throw new ScheduleNotFoundError(String(id));
    const record = await this.#deps.storage.schedules.get(id);
    if (!record) throw new ScheduleNotFoundError(id);
    if (actor === undefined || record.owner === actor) return record;
    const role = await scheduleActorRole(this.#deps.identity, actor);
    if (!mayManageSchedule(record, actor, role)) throw new ScheduleNotFoundError(id);
    return record;
  }

  /**
   * Applies `next` to the schedule as stored, compare-and-set on its revision with its audit row in one transaction,
   * retried on a concurrent change. `next` returns undefined when nothing changes (nothing is written).
   */
  async #change(
    id: string,
    actor: string,
    operation: ScheduleOperation,
    next: (
      current: ScheduleRecord,
      now: number,
    ) => Promise<{ record: ScheduleRecord; summary?: Record<string, JsonValue> } | undefined>,
  ): Promise<ScheduleRecord> {
    parseActor(actor);
    const { storage, clock } = this.#deps;
    for (let attempt = 1; attempt <= SCHEDULE_CHANGE_ATTEMPTS; attempt++) {
      const current = await this.#visible(id, actor);
      const now = clock.now();
      const changed = await next(current, now);
      if (!changed) return current;
      const record: ScheduleRecord = { ...changed.record, id, revision: current.revision + 1, updatedAt: now };
      const stored = await storage.transaction(async (s) => {
        if (!(await s.schedules.compareAndSet(id, current.revision, record))) return false;
        await s.audit.append(this.#audit(operation, actor, record, changed.summary ?? {}));
        return true;
      });
      if (stored) return record;
    }
    throw new ScheduleConflictError(id, SCHEDULE_CHANGE_ATTEMPTS);
  }

  /** Refuses an allowlist naming a capability the owner may not call in the schedule's mode. */
  async #checkCapabilities(definition: ScheduleDefinition, owner: string, ownerRole?: 'admin' | 'user'): Promise<void> {
    const allowlist = definition.capabilityAllowlist;
    if (allowlist === null || allowlist.length === 0) return;
    const { capabilities, identity } = this.#deps;
    const role = ownerRole ?? (await scheduleActorRole(identity, owner));
    const forbidden = forbiddenScheduleCapabilities(allowlist, definition.mode, role, (id) =>
      capabilities.has(id) ? capabilities.get(id) : undefined,
    );
    if (forbidden.length > 0) throw new ScheduleCapabilityForbiddenError(owner, forbidden);
  }

  /** The `schedule.changed` audit row of a change. */
  #audit(
    operation: ScheduleOperation,
    actor: string,
    record: ScheduleRecord,
    summary: Record<string, unknown>,
  ): AuditRecord {
    const { ids, clock } = this.#deps;
    const text =
      JSON.stringify({
        schedule: record.id,
        owner: record.owner,
        revision: record.revision,
        status: record.status,
        ...summary,
      }) ?? 'null';
    return {
      id: ids.next('aud'),
      seq: 0,
      at: clock.now(),
      action: 'schedule.changed',
      actor,
      capabilityId: `host.schedules.${operation}`,
      invocationId: ids.next('inv'),
      runId: null,
      taskId: null,
      outcome: 'succeeded',
      approvalId: null,
      grantId: null,
      idempotencyKey: record.clientKey,
      inputSummary: text.length > 2000 ? `${text.slice(0, 2000)}…` : text,
      reason: null,
    };
  }
}

/** The stored fields of a definition. */
function recordFields(definition: ScheduleDefinition) {
  return {
    cron: definition.cron,
    everyMs: definition.everyMs,
    timezone: definition.timezone,
    goal: definition.goal,
    mode: definition.mode,
    capabilityAllowlist: definition.capabilityAllowlist,
    budgets: definition.budgets as unknown as JsonValue,
    missed: definition.missed,
  };
}

/** The first schedule of a repeated client key, when the definition is the same. */
function replayed(first: ScheduleRecord, definition: ScheduleDefinition, clientKey: string): ScheduleRecord {
  if (!sameScheduleDefinition(scheduleDefinitionOf(first), definition))
    throw new ScheduleKeyReusedError(first.owner, clientKey, first.id, first.revision > 1);
  return first;
}

function requestInvalid(message: string): MediaAgentError {
  return new MediaAgentError('REQUEST_INVALID', `schedules: ${message}`, {});
}

function checkLimit(limit: unknown, fallback: number): number {
  if (limit === undefined) return fallback;
  if (!(typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 && limit <= 1000))
    throw requestInvalid(`limit must be an integer from 1 to 1000; got ${String(limit)}`);
  return limit;
}
