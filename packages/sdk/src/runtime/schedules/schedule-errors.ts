// The typed errors of host.schedules (docs/schedules.md#errors). Each refusal stores nothing.
import { MediaAgentError } from '../../core/errors';

/**
 * A schedule definition is invalid (`SCHEDULE_INVALID`): `details.field` names the field (`cron`, `timezone`,
 * `everyMs`, `goal`, `budgets.maxRunsPerDay` …) and `details.reason` says why (for a cron expression, croner's own
 * reason). Nothing was stored.
 * @public
 */
export class ScheduleInvalidError extends MediaAgentError<'SCHEDULE_INVALID'> {
  /** @param field - the field at fault; @param reason - why it is refused */
  constructor(field: string, reason: string) {
    super('SCHEDULE_INVALID', `schedule ${field} ${reason}`, { field, reason });
  }
}

/**
 * No schedule has the id, or the caller may not see it (`SCHEDULE_NOT_FOUND`: an ordinary user is told the schedule
 * of another does not exist).
 * @public
 */
export class ScheduleNotFoundError extends MediaAgentError<'SCHEDULE_NOT_FOUND'> {
  /** @param id - the id asked for */
  constructor(id: string) {
    super('SCHEDULE_NOT_FOUND', `no schedule with id ${JSON.stringify(id)}`, { id });
  }
}

/** One capability of an allowlist its owner may not call, and why. @public */
export interface ForbiddenScheduleCapability {
  /** The capability id. */
  id: string;
  /** `unknown` (not registered), `admin_only` (the owner is not an administrator) or `mode` (not in a `plan_only` run). */
  reason: 'unknown' | 'admin_only' | 'mode';
}

/**
 * The capability allowlist names a capability the schedule's owner may not call (`SCHEDULE_CAPABILITY_FORBIDDEN`):
 * `details.capabilities` lists each with its reason. Nothing was stored.
 * @public
 */
export class ScheduleCapabilityForbiddenError extends MediaAgentError<'SCHEDULE_CAPABILITY_FORBIDDEN'> {
  /** @param owner - the schedule's owner; @param capabilities - the refused ids and why */
  constructor(owner: string, capabilities: readonly ForbiddenScheduleCapability[]) {
    super(
      'SCHEDULE_CAPABILITY_FORBIDDEN',
      `${owner} may not schedule runs with ${capabilities.map((c) => `${c.id} (${c.reason})`).join(', ')}`,
      { owner, capabilities: capabilities.map((c) => ({ ...c })) },
    );
  }
}

/**
 * The owner already created a schedule with this client key and a different definition (`SCHEDULE_KEY_REUSED`):
 * `details.scheduleId` is the first one, which is unchanged. The definition is compared with the schedule as it is
 * now: once it was updated (`details.changedSince: true`), a retry of the original create is refused too — read the
 * schedule with `host.schedules.get(details.scheduleId)`.
 * @public
 */
export class ScheduleKeyReusedError extends MediaAgentError<'SCHEDULE_KEY_REUSED'> {
  /**
   * @param owner - the owner; @param clientKey - the key; @param scheduleId - the schedule created with it;
   * @param changedSince - whether that schedule was changed after its create (its revision is above 1)
   */
  constructor(owner: string, clientKey: string, scheduleId: string, changedSince = false) {
    super(
      'SCHEDULE_KEY_REUSED',
      changedSince
        ? `${owner} already created schedule ${scheduleId} with client key ${JSON.stringify(clientKey)}, and it was changed since: its definition differs from this one (read it with host.schedules.get)`
        : `${owner} already created schedule ${scheduleId} with client key ${JSON.stringify(clientKey)} and another definition`,
      { owner, clientKey, scheduleId, changedSince },
    );
  }
}

/**
 * The schedule changed under the request on every attempt (`SCHEDULE_CONFLICT`: other writers or its own ticks);
 * nothing was applied. Try again.
 * @public
 */
export class ScheduleConflictError extends MediaAgentError<'SCHEDULE_CONFLICT'> {
  /** @param id - the schedule; @param attempts - how many compare-and-set attempts were made */
  constructor(id: string, attempts: number) {
    super('SCHEDULE_CONFLICT', `schedule ${id} kept changing during ${attempts} attempts; try again`, {
      id,
      attempts,
    });
  }
}
