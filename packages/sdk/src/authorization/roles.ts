// Roles as the host's identity resolver gives them, for administrative calls and the invocation path.
import { type ActorRole, parseActor } from '../core/actor';
import type { IdentityResolver } from '../ports/identity';
import { AdministrationForbiddenError } from './errors';

/**
 * The role of `actor` from the host's resolver. Only a person (`user:*`) can be an administrator: an
 * API key, a job or a run is `user` whatever the resolver would answer, and the resolver is not asked.
 * A resolver that throws, or answers anything but `admin`, gives `user` (least privilege); `onError`
 * hears about a throw.
 * @throws `ACTOR_INVALID` for a malformed actor (checked before the resolver is asked)
 */
export async function resolveRole(
  identity: IdentityResolver,
  actor: string,
  onError?: (cause: unknown) => void,
): Promise<ActorRole> {
  if (parseActor(actor).kind !== 'user') return 'user';
  try {
    return (await identity.roleOf(actor)) === 'admin' ? 'admin' : 'user';
  } catch (cause) {
    onError?.(cause);
    return 'user';
  }
}

/**
 * Refuses an administrative action unless `actor` is a person (`user:*`) whose role is `admin`.
 * @param action - what was tried, for the message (e.g. `decide approvals`)
 * @throws `ADMIN_FORBIDDEN` otherwise; `ACTOR_INVALID` for a malformed actor
 */
export async function requireAdministrator(identity: IdentityResolver, actor: string, action: string): Promise<void> {
  if ((await resolveRole(identity, actor)) !== 'admin') throw new AdministrationForbiddenError(actor, action);
}
