// Who may read, steer and abort a run: its owner and administrators; everyone else is told it does not exist.
import { parseActor } from '../core/actor';
import type { RunRecord } from '../core/run-records';
import type { IdentityResolver } from '../ports/identity';
import type { StorageAdapter } from '../ports/storage-adapter';
import { resolveRole } from '../authorization/roles';

/** How far up a subagent's parents the owner is looked for (subagents nest far less deep). */
const MAX_PARENT_HOPS = 16;

/**
 * The actor a run belongs to: who started it, or for a subagent, who started its top-level run. An
 * administrator who steers another user's run does not become its owner.
 */
export async function runOwner(storage: StorageAdapter, run: RunRecord): Promise<string> {
  let current = run;
  for (let hop = 0; current.parentRunId !== null && hop < MAX_PARENT_HOPS; hop++) {
    const parent = await storage.runs.get(current.parentRunId);
    if (!parent) break;
    current = parent;
  }
  return current.startedBy;
}

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
  if ((await runOwner(storage, run)) === actor) return true;
  // The same people who may administer: a person whose role is `admin` (never an API key or a job).
  return kind === 'user' && (await resolveRole(identity, actor)) === 'admin';
}
