// The one storage transaction of a step.
import { decisionEventData } from '../decisions/decision-events';
import type { RunEvent } from '../events/run-event';
import type { RunEventBus } from '../events/run-event-bus';
import type { Clock } from '../../ports/clock';
import type { JsonValue } from '../../core/records';
import type { RunRecord } from '../../core/run-records';
import type { StorageAdapter, StorageSession } from '../../ports/storage-adapter';
import type { RunSession } from './run-session';
import { mergeSteps, type StepReplies, type TakenStep } from './step-writes';

/** Thrown inside the transaction to roll it back when the lease is no longer ours. */
const LEASE_LOST = Symbol('lease lost');

/**
 * Commits the writes of the step in progress — after those of an earlier step set aside for it
 * ({@link RunSession.defer}) — in one `storage.transaction`: the run patch (only while this worker
 * still holds the lease, else nothing is written), the messages, inbox messages marked applied,
 * decisions, then the events; the events are published after the commit. Writes the run makes while
 * the commit is under way are kept for the next one.
 *
 * @param deps - storage, event bus, clock
 * @param session - the run and its pending writes
 * @returns true when committed (or there was nothing to write), false when the lease was lost (the
 * step's writes, and any made since, are dropped)
 * @throws storage errors (nothing of the step is written)
 */
export async function commitStep(deps: CommitDeps, session: RunSession): Promise<boolean> {
  const deferred = session.takeDeferred();
  const step = session.dirty ? session.takeStep() : undefined;
  const all = deferred && step ? mergeSteps(deferred, step) : (deferred ?? step);
  return all ? commitTaken(deps, session, all) : true;
}

/**
 * Commits only the writes set aside by {@link RunSession.defer} (the step in progress keeps its own).
 * @returns true when committed (or nothing was set aside), false when the lease was lost
 * @throws storage errors (nothing of them is written)
 */
export async function commitDeferredStep(deps: CommitDeps, session: RunSession): Promise<boolean> {
  const deferred = session.takeDeferred();
  return deferred ? commitTaken(deps, session, deferred) : true;
}

/** What a commit needs; `replies` derives a channel run's messages (absent: no channels). */
export type CommitDeps = { storage: StorageAdapter; bus: RunEventBus; clock: Clock; replies?: StepReplies };

async function commitTaken(deps: CommitDeps, session: RunSession, step: TakenStep): Promise<boolean> {
  let result: WrittenStep;
  try {
    result = await deps.storage.transaction((s) => writeStepIn(deps, session, step, s));
  } catch (error) {
    if (error !== LEASE_LOST) throw error;
    stepLost(session);
    return false;
  }
  stepCommitted(deps, session, result);
  return true;
}

/** What {@link writeStepIn} wrote: the run as stored and the events to publish once committed. */
export interface WrittenStep {
  run: RunRecord;
  events: RunEvent[];
}

/** True for what {@link writeStepIn} throws when the lease is no longer this worker's. */
export function isLeaseLost(error: unknown): boolean {
  return error === LEASE_LOST;
}

/**
 * Writes a step inside a transaction the caller opened (the run patch, lease-checked, first): the body of
 * every step commit, and what rides on a ledger claim (`claim-rider.ts`). After the transaction commits call
 * {@link stepCommitted}; when it threw {@link isLeaseLost}, {@link stepLost}.
 * @throws the lease-lost marker (roll back), storage errors
 */
export async function writeStepIn(
  deps: CommitDeps,
  session: RunSession,
  step: TakenStep,
  s: StorageSession,
): Promise<WrittenStep> {
  const { bus, clock } = deps;
  const id = session.id;
  // What a channel run says in this step: outbox rows and its conversation state, with the step.
  if (deps.replies) await deps.replies(session, step, s);
  const { patch, writes } = step;
  const now = clock.now();
  let run = await s.runs.patch(id, { ...patch, updatedAt: now }, session.lease.owner);
  if (!run) throw LEASE_LOST;
  for (const message of writes.messages) await s.messages.append(id, message as unknown as JsonValue, now);
  if (writes.applied.length > 0) await s.inbox.markApplied(writes.applied, now);
  for (const work of writes.riding) await work(s);
  const events: RunEvent[] = [];
  for (const d of writes.decisions)
    if (await s.decisions.insert(d))
      events.push(await bus.emit(id, 'decision.created', decisionEventData(d, d.raisedBy), s));
  for (const e of writes.events) events.push(await bus.emit(id, e.type, e.data, s));
  // A message queued while the run was ending wakes it once more.
  if (writes.wakeIfQueued && (await s.inbox.listQueued(id)).length > 0)
    run = (await s.runs.patch(id, { wakeRequested: true, status: 'waiting' })) ?? run;
  return { run, events };
}

/** After the transaction of {@link writeStepIn} committed: the session takes the stored run, the events are published. */
export function stepCommitted(deps: CommitDeps, session: RunSession, written: WrittenStep): void {
  session.committed(written.run);
  deps.bus.publish(...written.events);
}

/** After the lease was lost: the step's writes, and any made since, are dropped. */
export function stepLost(session: RunSession): void {
  session.writes.clear();
  session.takeDeferred();
}

/**
 * After a failed step: the work that rode on the writes it drops (and on writes set aside and not committed) —
 * a model call's spending settlement or record — is written in a transaction of its own, so a call that was
 * made is never left reserved at its worst case (nor left unrecorded) while the process lives. Best effort:
 * a failure is logged by the caller's storage and leaves the reservation as a crash would.
 */
export async function salvageRiding(deps: CommitDeps, session: RunSession): Promise<void> {
  const works = [...(session.takeDeferred()?.writes.riding ?? []), ...session.writes.riding];
  session.writes.riding.length = 0;
  if (works.length === 0) return;
  await deps.storage
    .transaction(async (s) => {
      for (const work of works) await work(s);
    })
    .catch(() => undefined);
}
