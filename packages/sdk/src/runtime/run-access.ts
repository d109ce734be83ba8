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

/**
 * The owner of an event stream: a run's stream belongs to the run's owner, a schedule's stream (named by the
 * schedule id: its `schedule.skipped` events and decisions about it) to the schedule's owner; undefined for any
 * other stream (a decision's own stream), which only administrators read.
 * @param storage - where runs and schedules are read
 * @param streamId - the event's `runId`
 */
export async function streamOwner(storage: StorageAdapter, streamId: string): Promise<string | undefined> {
  const run = await storage.runs.get(streamId);
  if (run) return runOwner(storage.runs, run);
  return (await storage.schedules.get(streamId))?.owner;
}

/**
 * Whether `actor` may read the event stream `streamId` of a run or a schedule: its owner (see {@link streamOwner})
 * or an administrator; false for any other stream.
 * @throws `ACTOR_INVALID` for a malformed actor
 */
export async function mayReadStream(
  storage: StorageAdapter,
  identity: IdentityResolver,
  streamId: string,
  actor: string,
): Promise<boolean> {
  const { kind } = parseActor(actor);
  const owner = await streamOwner(storage, streamId);
  if (owner === undefined) return false;
  if (owner === actor) return true;
  return kind === 'user' && (await resolveRole(identity, actor)) === 'admin';
}
