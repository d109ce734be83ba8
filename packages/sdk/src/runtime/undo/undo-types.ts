// What host.undo takes and returns (docs/approvals.md#undo).
import type { InvocationResult } from '../../capabilities/invocation';

/**
 * What to undo: one invocation (`{ invocationId }`: the id an `InvocationResult`, an audit row or a run event names)
 * or every effect of a run (`{ runId }`).
 * @public
 */
export type UndoTarget = { invocationId: string } | { runId: string };

/** Options of `host.undo`. @public */
export interface UndoOptions {
  /**
   * Who undoes, e.g. `user:alice`: the actor every inverse is invoked as (under its own authorization). Only the
   * person who performed an effect (for a run's effect: the run's owner) or an administrator may undo it.
   */
  actor: string;
}

/**
 * Why an effect is listed as not undoable (it stays as it is; the undo goes on with the others):
 * - `no_inverse`: its capability declares no inverse;
 * - `inverse_not_registered`: the inverse it declares is not registered on this host;
 * - `capability_unknown`: its capability is no longer registered;
 * - `outcome_unknown`: the ledger says `unknown` (the effect may or may not have happened: verify it first);
 * - `in_progress`: the ledger says `running` (still executing: undo it once it settled).
 * @public
 */
export type NotUndoableReason =
  | 'no_inverse'
  | 'inverse_not_registered'
  | 'capability_unknown'
  | 'outcome_unknown'
  | 'in_progress';

/** One effect that took effect (or may have) and that this undo does not reverse. @public */
export interface NotUndoable {
  /** The invocation that made the effect (the latest claim of its ledger entry). */
  invocationId: string;
  /** Its capability, e.g. `organize.execute`. */
  capabilityId: string;
  /** Its idempotency key (the ledger entry). */
  idempotencyKey: string;
  /** Why it is not undone. */
  reason: NotUndoableReason;
  /** The same in words. */
  message: string;
}

/**
 * An effect this undo does not reach because it stopped at an older-to-newer step before it (`stoppedAt`): nothing
 * is skipped silently.
 * @public
 */
export interface UndoNotAttempted {
  /** The invocation that made the effect. */
  invocationId: string;
  /** Its capability. */
  capabilityId: string;
  /** Its idempotency key. */
  idempotencyKey: string;
  /** The inverse that would have run. */
  inverseCapabilityId: string;
}

/**
 * One inverse the undo invoked (or tried to).
 * @public
 */
export interface UndoStep {
  /** The invocation whose effect is undone (the latest claim of its ledger entry). */
  invocationId: string;
  /** Its capability, e.g. `organize.execute`. */
  capabilityId: string;
  /** Its idempotency key (the ledger entry undone). */
  idempotencyKey: string;
  /** The inverse capability invoked, e.g. `organize.revert`. */
  inverseCapabilityId: string;
  /**
   * `undone` (the inverse succeeded, or its async job was accepted: `result.status` `pending`), `failed` (it failed,
   * its outcome is unknown, its input could not be computed, or calling it threw) or `denied` (its authorization
   * refused it, e.g. it needs an approval).
   */
  status: 'undone' | 'failed' | 'denied';
  /**
   * The inverse's result as the invocation path returned it (`replayed: true` when an earlier undo already ran it:
   * an inverse never runs twice); null when it was never invoked (its input could not be computed, or the call threw).
   */
  result: InvocationResult | null;
  /** Why it failed or was denied: the invocation's code (e.g. `AUTH_NO_AUTHORIZATION`) or an `UNDO_*` code. */
  error?: { code: string; message: string };
}

/**
 * The outcome of an undo:
 * - `undone`: every effect found was undone;
 * - `partial`: nothing failed, but some effects are not undoable (`notUndoable`), the others were undone;
 * - `failed`: an inverse failed (`stoppedAt`): the older effects were not attempted (`notAttempted`) and an
 *   `undo_failed` decision was raised (`decisionId`);
 * - `denied`: an inverse was denied (`stoppedAt.error.code`): the older effects were not attempted;
 * - `nothing_to_undo`: no effect took effect (only reads, failed calls or inverses of an earlier undo).
 * @public
 */
export type UndoStatus = 'undone' | 'partial' | 'failed' | 'denied' | 'nothing_to_undo';

/**
 * What `host.undo` returns.
 * @example
 * ```json
 * { "undoId": "undo_1", "status": "partial", "target": { "runId": "run_7" },
 *   "undone": [{ "invocationId": "inv_9", "capabilityId": "organize.execute", "inverseCapabilityId": "organize.revert",
 *                "status": "undone", "result": { "status": "succeeded", "…": "…" } }],
 *   "notUndoable": [{ "invocationId": "inv_4", "capabilityId": "download.submit", "reason": "no_inverse", "…": "…" }],
 *   "notAttempted": [] }
 * ```
 * @public
 */
export interface UndoResult {
  /** Id of this undo (the invocation id of its `undo.*` audit rows). */
  undoId: string;
  /** See {@link UndoStatus}. */
  status: UndoStatus;
  /** The target as given. */
  target: UndoTarget;
  /** The inverses that ran (or had already run), newest effect first. */
  undone: UndoStep[];
  /** Effects not undone, with why, newest first. */
  notUndoable: NotUndoable[];
  /** The step the undo stopped at (`failed` or `denied`), when it stopped. */
  stoppedAt?: UndoStep;
  /** Undoable effects older than `stoppedAt`, not attempted because the undo stopped; empty otherwise. */
  notAttempted: UndoNotAttempted[];
  /** The `undo_failed` decision raised when an inverse failed (absent when raising it failed: see the log). */
  decisionId?: string;
}

/**
 * What `host.undo` calls (the host's undo service, built by `createAgentHost`).
 * @public
 */
export interface HostUndo {
  /** See `AgentHost.undo`. */
  undo(target: UndoTarget, options: UndoOptions): Promise<UndoResult>;
}
