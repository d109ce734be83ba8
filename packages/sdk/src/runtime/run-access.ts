// Who may read, steer and abort a run: its owner and administrators; everyone else is told it does not exist.
import { parseActor } from '../core/actor';
import type { RunRecord } from '../core/run-records';
import type { IdentityResolver } from '../ports/identity';
import type { StorageAdapter } from '../ports/storage-adapter';
import { resolveRole } from '../authorization/roles';
import { runOwner } from '../authorization/run-owner';

/**
 * Whether `actor` may see and act on `run`: the owner (same actor string: users are keyed by a stable
 * id, so a renamed user keeps their runs and a recycled name inherits none) or an administrator (a
 * `user:*` actor whose role is `admin`).
 * @throws `ACTOR_INVALID` for a malformed actor
 */
export async function mayAccessRun(
  storage: StorageAdapter,
  identity: IdentityResolver,
  run: RunRecord,
  actor: string,
): Promise<boolean> {
  const { kind } = parseActor(actor);
  if ((await runOwner(storage.runs, run)) === actor) return true;
  // The same people who may administer: a person whose role is `admin` (never an API key or a job).
  return kind === 'user' && (await resolveRole(identity, actor)) === 'admin';
}
