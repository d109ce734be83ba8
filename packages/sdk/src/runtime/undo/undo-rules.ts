// The rules of host.undo as small pure functions (docs/approvals.md#undo): the target's shape, the order, what each
// ledger entry means for an undo, who may undo it, the inverse's idempotency scope and the undo's outcome.
import { createHash } from 'node:crypto';
import type { CapabilityDescriptor } from '../../core/capability-descriptor';
import type { LedgerEntry } from '../../core/records';
import { UndoError } from './undo-errors';
import type { NotUndoableReason, UndoStatus, UndoTarget } from './undo-types';

/** Prefix of the task id an inverse is invoked under: `undo:<sha256 of the undone entry's key>`. @public */
export const UNDO_TASK_PREFIX = 'undo:';

/** The most effects one undo of a run takes (a run with more is refused `UNDO_REQUEST_INVALID`). @public */
export const MAX_UNDO_EFFECTS = 10_000;

/**
 * Checks the target of `host.undo`: exactly one of `invocationId` or `runId`, a non-empty string of at most 200
 * characters, and no other field.
 * @param value - the target as given
 * @returns the target, with only its one field
 * @throws `UndoError` (`UNDO_REQUEST_INVALID`)
 * @public
 */
export function parseUndoTarget(value: unknown): UndoTarget {
  const bad = (why: string) =>
    new UndoError('UNDO_REQUEST_INVALID', `the undo target must be { invocationId } or { runId }: ${why}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('got no object');
  const keys = Object.keys(value);
  const extra = keys.filter((k) => k !== 'invocationId' && k !== 'runId');
  if (extra.length > 0) throw bad(`unknown field ${extra.join(', ')}`);
  if (keys.length !== 1) throw bad(keys.length === 0 ? 'neither is given' : 'both are given');
  const field = keys[0] as 'invocationId' | 'runId';
  const id = (value as Record<string, unknown>)[field];
  if (!(typeof id === 'string' && id.trim().length > 0 && id.length <= 200))
    throw bad(`${field} must be a non-empty string of at most 200 characters`);
  return field === 'invocationId' ? { invocationId: id } : { runId: id };
}

/**
 * The order effects are undone in: newest first — by the time of the entry's latest claim (`claimedAt`)
 * descending, ties by key descending (compared as strings), so the order is the same on every store.
 * @public
 */
export function undoOrder<E extends Pick<LedgerEntry, 'claimedAt' | 'key'>>(entries: readonly E[]): E[] {
  return [...entries].sort((a, b) => b.claimedAt - a.claimedAt || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
}

/** Whether a ledger entry is an inverse an earlier undo ran (its task id starts with `undo:`): never undone again. @public */
export function isInverseCall(entry: Pick<LedgerEntry, 'taskId' | 'scopeId'>): boolean {
  return (entry.taskId ?? entry.scopeId).startsWith(UNDO_TASK_PREFIX);
}

/**
 * The task id an inverse of `entryKey` is invoked under: `undo:` and the SHA-256 (hex) of the undone entry's key.
 * Stable, so the inverse's idempotency key is the same at every undo of that entry and the inverse never runs twice.
 * @public
 */
export function inverseTaskId(entryKey: string): string {
  return `${UNDO_TASK_PREFIX}${createHash('sha256').update(entryKey, 'utf8').digest('hex')}`;
}

/**
 * What one ledger entry means for an undo:
 * - `skip` (nothing to undo): a `failed` call (it did not take effect), a read or preview, an inverse of an earlier
 *   undo;
 * - `not_undoable` (listed, the undo goes on): `unknown` outcome, still `running`, capability or inverse not
 *   registered, no inverse declared;
 * - `undo`: a `succeeded` call, or a `pending` one (its async job was accepted: the inverse gets its receipt), whose
 *   capability declares a registered inverse.
 * @param entry - the ledger entry
 * @param lookup - the registered capability with that id, or undefined
 * @public
 */
export function undoPlanOf(
  entry: Pick<LedgerEntry, 'state' | 'capabilityId' | 'taskId' | 'scopeId'>,
  lookup: (id: string) => Pick<CapabilityDescriptor, 'kind' | 'inverse'> | undefined,
):
  | { kind: 'skip'; why: 'not_applied' | 'read' | 'inverse_call' }
  | { kind: 'not_undoable'; reason: NotUndoableReason; message: string }
  | { kind: 'undo'; inverseCapabilityId: string; input: (output: unknown) => unknown } {
  if (isInverseCall(entry)) return { kind: 'skip', why: 'inverse_call' };
  if (entry.state === 'failed') return { kind: 'skip', why: 'not_applied' };
  const capability = lookup(entry.capabilityId);
  if (capability && (capability.kind === 'read' || capability.kind === 'preview')) return { kind: 'skip', why: 'read' };
  if (entry.state === 'unknown')
    return {
      kind: 'not_undoable',
      reason: 'outcome_unknown',
      message: 'outcome unknown: the effect may or may not have happened; verify it with a read first',
    };
  if (entry.state === 'running')
    return { kind: 'not_undoable', reason: 'in_progress', message: 'still running: undo it once it settled' };
  if (!capability)
    return {
      kind: 'not_undoable',
      reason: 'capability_unknown',
      message: `capability ${entry.capabilityId} is not registered on this host`,
    };
  if (!capability.inverse)
    return { kind: 'not_undoable', reason: 'no_inverse', message: `${entry.capabilityId} declares no inverse` };
  if (!lookup(capability.inverse.capability))
    return {
      kind: 'not_undoable',
      reason: 'inverse_not_registered',
      message: `its inverse ${capability.inverse.capability} is not registered on this host`,
    };
  return { kind: 'undo', inverseCapabilityId: capability.inverse.capability, input: capability.inverse.input };
}

/**
 * Who performed an effect, for the rule of who may undo it: the person of a `user:` actor; for a run's call
 * (`agent:<runId>`) the run's owner (`owner`, read from storage by the caller; undefined when the run is gone, then
 * the agent actor itself, which no person is); any other actor (`apikey:`, `system:`) itself.
 * @param actor - the ledger entry's actor
 * @param owner - the run's owner when `actor` is `agent:<runId>`
 * @public
 */
export function effectPerformer(actor: string, owner: string | undefined): string {
  return actor.startsWith('agent:') ? (owner ?? actor) : actor;
}

/**
 * Whether `undoer` may undo an effect `performer` made: their own, or anyone's for an administrator.
 * @public
 */
export function mayUndo(performer: string, undoer: string, undoerIsAdmin: boolean): boolean {
  return undoerIsAdmin || performer === undoer;
}

/**
 * The outcome of an undo from its steps (see {@link UndoStatus}).
 * @param stopped - the status of the step it stopped at, if it stopped
 * @param undone - how many inverses ran
 * @param notUndoable - how many effects are not undoable
 * @public
 */
export function undoStatus(stopped: 'failed' | 'denied' | undefined, undone: number, notUndoable: number): UndoStatus {
  if (stopped) return stopped;
  if (notUndoable > 0) return 'partial';
  return undone > 0 ? 'undone' : 'nothing_to_undo';
}
