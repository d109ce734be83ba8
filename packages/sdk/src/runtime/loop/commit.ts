// The one storage transaction of a step.
import { decisionEventData } from '../decisions/decision-events';
import type { CarriedSettlement } from '../../capabilities/settle-rider';
import type { RunEvent, RunEventPayloads, RunEventType } from '../events/run-event';
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

/**
 * What a commit needs: storage, event bus, clock; optionally `replies`, which derives a channel run's messages, and
 * `onOutboxWritten`, called after a commit that inserted channel outbox rows (it wakes the outbox dispatcher; a throw
 * is ignored).
 */
export type CommitDeps = {
  storage: StorageAdapter;
  bus: RunEventBus;
  clock: Clock;
  replies?: StepReplies;
  onOutboxWritten?: () => void;
};

async function commitTaken(deps: CommitDeps, session: RunSession, step: TakenStep): Promise<boolean> {
  let result: WrittenStep;
  try {
    result = await deps.storage.transaction((s) => writeStepIn(deps, session, step, s));
  } catch (error) {
    if (error !== LEASE_LOST) {
      // Nothing of the step was written: what rode on it (a call's settlement, a model call's spending) goes back to
      // the session, for the failed run's salvage (`salvageRiding`) to write on its own.
      session.writes.riding.unshift(...step.writes.riding);
      session.writes.settlements.unshift(...step.writes.settlements);
      throw error;
    }
    await stepLost(deps, session, step);
    return false;
  }
  stepCommitted(deps, session, result);
  return true;
}

/** What {@link writeStepIn} wrote: the run as stored and the events to publish once committed. */
export interface WrittenStep {
  run: RunRecord;
  events: RunEvent[];
  /** Messages the run has stored once the step commits, when known. */
  messageCount: number | undefined;
  /** How many channel outbox rows the step inserted (rows already stored under their key are not counted). */
  outboxInserted?: number;
  /** The call settlements the step wrote (told once committed). */
  settlements?: CarriedSettlement[];
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
  // The step boundary (docs/forks.md#fork-points): the messages stored once this commit is in, from the position the
  // store gave the last one appended, else what the session knows is committed (unknown before the drive read them).
  const before = session.committedMessages;
  let messageCount = before;
  // The stored count after each message appended: the boundaries of steps merged into this one (`StepWrites.ends`).
  const counts: Array<number | undefined> = [];
  for (const message of writes.messages) {
    messageCount = (await s.messages.append(id, message as unknown as JsonValue, now)).seq;
    counts.push(messageCount);
  }
  if (writes.applied.length > 0) await s.inbox.markApplied(writes.applied, now);
  for (const work of writes.riding) await work(s);
  // The settlements of the calls this step answered: with the result the step appends (settle-rider.ts).
  for (const settlement of writes.settlements) await settlement.write(s);
  // What the run says on a message channel: in the step's transaction, so a crash after the commit delivers it
  // after restart, and a step committed twice writes each row once (its idempotency key).
  let outboxInserted = 0;
  for (const row of writes.outbox) if ((await s.outbox.insert(row)).inserted) outboxInserted++;
  const pending: Array<{ type: RunEventType; data: RunEventPayloads[RunEventType] }> = [];
  for (const d of writes.decisions)
    if (await s.decisions.insert(d)) pending.push({ type: 'decision.created', data: decisionEventData(d, d.raisedBy) });
  const own = pending.length;
  pending.push(...writes.events);
  // The last event of each step merged into this commit carries that step's boundary, the last event of all this one's.
  const boundaries = new Map<number, number | undefined>();
  for (const end of writes.ends)
    boundaries.set(own + end.events - 1, end.messages === 0 ? before : counts[end.messages - 1]);
  const events: RunEvent[] = [];
  for (let i = 0; i < pending.length; i++) {
    const e = pending[i]!;
    const count = i === pending.length - 1 ? messageCount : boundaries.get(i);
    events.push(await bus.emit(id, e.type, e.data, s, count));
  }
  // A message queued while the run was ending wakes it once more.
  if (writes.wakeIfQueued && (await s.inbox.listQueued(id)).length > 0)
    run = (await s.runs.patch(id, { wakeRequested: true, status: 'waiting' })) ?? run;
  // An approval it waits for, decided since it was read open, makes the waiting run due now (see `wakeIfDecided`).
  else if (run.status === 'waiting' && (await anyDecided(s, writes.wakeIfDecided)))
    run = (await s.runs.patch(id, { notBefore: 0 })) ?? run;
  return { run, events, messageCount, outboxInserted, settlements: [...writes.settlements] };
}

/** Whether any of these approvals (ids) is no longer open, read in the step's transaction. */
async function anyDecided(s: StorageSession, approvalIds: readonly string[]): Promise<boolean> {
  for (const approvalId of approvalIds) if ((await s.approvals.get(approvalId))?.status !== 'requested') return true;
  return false;
}

/** After the transaction of {@link writeStepIn} committed: the session takes the stored run, the events are published. */
export function stepCommitted(deps: CommitDeps, session: RunSession, written: WrittenStep): void {
  session.committed(written.run);
  if (written.messageCount !== undefined) session.committedMessages = written.messageCount;
  deps.bus.publish(...written.events);
  for (const settlement of written.settlements ?? []) settlement.committed();
  if ((written.outboxInserted ?? 0) > 0 && deps.onOutboxWritten) {
    try {
      deps.onOutboxWritten();
    } catch {
      // Only a hint: the dispatcher polls anyway.
    }
  }
}

/**
 * After the lease was lost: the step's writes, and any made since, are dropped — except the settlements of calls that
 * ran (in `taken`, the session's writes or those set aside), written on their own: the effect happened, and its
 * outcome is the ledger's, whoever holds the run now. Best effort: a claim already taken over refuses it.
 */
export async function stepLost(deps: CommitDeps, session: RunSession, taken?: TakenStep): Promise<void> {
  const settlements = [
    ...(taken?.writes.settlements ?? []),
    ...(session.takeDeferred()?.writes.settlements ?? []),
    ...session.writes.settlements,
  ];
  session.writes.clear();
  await writeSettlementsAlone(deps, settlements);
}

/** Writes call settlements in a transaction of their own and tells them once committed; a failure is ignored. */
async function writeSettlementsAlone(deps: CommitDeps, settlements: CarriedSettlement[]): Promise<void> {
  if (settlements.length === 0) return;
  const written = await deps.storage
    .transaction(async (s) => {
      for (const settlement of settlements) await settlement.write(s);
      return true;
    })
    .catch(() => false);
  if (written) for (const settlement of settlements) settlement.committed();
}

/**
 * After a failed step: the work that rode on the writes it drops (and on writes set aside and not committed) —
 * a model call's spending settlement or record — is written in a transaction of its own, so a call that was
 * made is never left reserved at its worst case (nor left unrecorded) while the process lives. Best effort:
 * a failure is logged by the caller's storage and leaves the reservation as a crash would.
 */
export async function salvageRiding(deps: CommitDeps, session: RunSession): Promise<void> {
  const deferred = session.takeDeferred();
  const works = [...(deferred?.writes.riding ?? []), ...session.writes.riding];
  const settlements = [...(deferred?.writes.settlements ?? []), ...session.writes.settlements];
  session.writes.riding.length = 0;
  session.writes.settlements.length = 0;
  if (works.length > 0)
    await deps.storage
      .transaction(async (s) => {
        for (const work of works) await work(s);
      })
      .catch(() => undefined);
  await writeSettlementsAlone(deps, settlements);
}
