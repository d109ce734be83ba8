// Who may see and manage a schedule, and which capabilities its runs may be limited to: its owner and
// administrators; an allowlist only of capabilities the owner may call in the schedule's mode. Pure rules, plus the
// role lookup every host API uses (the identity resolver through resolveRole: only a `user:*` can be `admin`).
import { checkRun } from '../../authorization/evaluate';
import { resolveRole } from '../../authorization/roles';
import { type ActorRole, parseActor } from '../../core/actor';
import type { CapabilityDescriptor } from '../../core/capability-descriptor';
import type { RunMode } from '../../core/run-records';
import type { ScheduleRecord } from '../../core/schedule-records';
import type { IdentityResolver } from '../../ports/identity';
import type { ForbiddenScheduleCapability } from './schedule-errors';

/**
 * The role of `actor` as the host's identity resolver gives it (an API key, system job or run is never `admin`).
 * @throws `ACTOR_INVALID` for a malformed actor
 * @internal
 */
export function scheduleActorRole(identity: IdentityResolver, actor: string): Promise<ActorRole> {
  return resolveRole(identity, actor);
}

/**
 * Whether `actor` (with `role`) may see and manage `schedule`: its owner, or an administrator. `actor` undefined is
 * the host itself (its own code), which may.
 * @internal
 */
export function mayManageSchedule(
  schedule: Pick<ScheduleRecord, 'owner'>,
  actor: string | undefined,
  role: ActorRole,
): boolean {
  return actor === undefined || schedule.owner === actor || (role === 'admin' && parseActor(actor).kind === 'user');
}

/**
 * Whether `actor` (with `role`) may create a schedule owned by `owner`: for themselves, or an administrator for
 * anyone.
 * @internal
 */
export function mayCreateScheduleFor(owner: string, actor: string, role: ActorRole): boolean {
  return owner === actor || (role === 'admin' && parseActor(actor).kind === 'user');
}

/**
 * The owner whose schedules a list shows: an ordinary actor's own (whatever `owner` they ask for: another's gives
 * nothing), an administrator's or the host's the one asked for (undefined: everyone's).
 * @returns the owner to filter on, or undefined for every owner; `null` when nothing may be shown
 * @internal
 */
export function listedScheduleOwner(
  actor: string | undefined,
  role: ActorRole,
  owner: string | undefined,
): string | undefined | null {
  if (actor === undefined || (role === 'admin' && parseActor(actor).kind === 'user')) return owner;
  if (owner !== undefined && owner !== actor) return null;
  return actor;
}

/**
 * The capabilities of an allowlist the owner may not call in runs of `mode`: unknown ids, admin-only capabilities of an
 * owner who is not an administrator, and in a `plan_only` schedule, `execute` and `approve` capabilities (the run rule
 * of the authorizer).
 * @param allowlist - the capability ids
 * @param mode - the schedule's mode
 * @param ownerRole - the owner's role
 * @param describe - the registered capability of an id, or undefined
 * @internal
 */
export function forbiddenScheduleCapabilities(
  allowlist: readonly string[],
  mode: RunMode,
  ownerRole: ActorRole,
  describe: (id: string) => CapabilityDescriptor | undefined,
): ForbiddenScheduleCapability[] {
  const forbidden: ForbiddenScheduleCapability[] = [];
  for (const id of allowlist) {
    const capability = describe(id);
    if (!capability) forbidden.push({ id, reason: 'unknown' });
    else if (capability.adminOnly === true && ownerRole !== 'admin') forbidden.push({ id, reason: 'admin_only' });
    else if (checkRun({ capability, run: { mode, allowlist: null, readOnly: false } }))
      forbidden.push({ id, reason: 'mode' });
  }
  return forbidden;
}
