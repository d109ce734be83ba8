// The one role check of code orchestration: is this actor an administrator?
import { resolveRole } from '../../authorization/roles';
import { isHumanActor } from '../../core/actor';
import type { IdentityResolver } from '../../ports/identity';

/** Resolves an actor's role: the host's identity resolver's `roleOf`. @public */
export type ActorRoleOf = IdentityResolver['roleOf'];

/**
 * True when `actor` is an administrator by `roleOf`; a resolver that throws or answers anything but
 * `admin` counts as "no" (least privilege).
 * @param roleOf - the role resolver
 * @param actor - the actor the run acts for
 */
export async function isAdministrator(roleOf: ActorRoleOf, actor: string): Promise<boolean> {
  return isHumanActor(actor) && (await resolveRole({ roleOf }, actor)) === 'admin';
}
