// The one role check of code orchestration: is this actor an administrator?
import { parseActor } from '../../core/actor';

/** Resolves an actor's role (the host's identity resolver). @public */
export type ActorRoleOf = (actor: string) => 'admin' | 'user' | Promise<'admin' | 'user'>;

/**
 * The role an actor has when the host gives no resolver: a console user (`user:*`) is an
 * administrator, every other actor kind a user.
 * @param actor - an actor string
 * @returns `'admin'` or `'user'` (`'user'` for a malformed actor)
 * @public
 */
export function defaultActorRole(actor: string): 'admin' | 'user' {
  try {
    return parseActor(actor).kind === 'user' ? 'admin' : 'user';
  } catch {
    return 'user';
  }
}

/**
 * True when `actor` is an administrator by `roleOf`; a resolver that throws counts as "no".
 * @param roleOf - the role resolver
 * @param actor - the run's actor
 */
export async function isAdministrator(roleOf: ActorRoleOf, actor: string): Promise<boolean> {
  try {
    return (await roleOf(actor)) === 'admin';
  } catch {
    return false;
  }
}
