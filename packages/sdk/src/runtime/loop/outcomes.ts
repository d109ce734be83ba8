// How a drive ends, as the step functions report it.
import type { BudgetBreach } from '../run-budgets';
import type { SpendBreach } from '../budgets/cap-check';
import type { RunLease } from './driver-types';

/**
 * The end of a drive:
 * - `ended`: the model gave its final reply (the run goes on to goal-settled or finalize);
 * - `aborted`: the user aborted it (ends `cancelled`);
 * - `stopped`: the host is stopping or the lease was lost (left as stored, for the next worker);
 * - `budget`: a per-run budget ran out (ends `budget_exceeded`);
 * - `budget_reached`: a spending budget of the run's owner or of the household has no room for the next model
 *   call (the run waits at the same step until the cap is raised or the period ends; docs/budgets.md);
 * - `failed`: ends `failed` with `code`;
 * - `paused`: waits for a person (`waiting`; a message resumes it), `reason` is the status reason;
 * - `answered`: the runtime answered a `/memory` chat command itself (ends `succeeded`, no model call).
 */
export type DriveEnd =
  | { kind: 'ended' }
  | { kind: 'aborted' }
  | { kind: 'stopped' }
  | { kind: 'budget'; breach: BudgetBreach }
  | { kind: 'budget_reached'; breach: SpendBreach }
  | { kind: 'failed'; code: string; message: string }
  | { kind: 'paused'; code: string; reason: string }
  | { kind: 'answered'; text: string };

/** `stopped`. */
export const STOPPED: DriveEnd = Object.freeze({ kind: 'stopped' });

/** The end for an aborted lease signal: `aborted` when the user aborted, else `stopped`. */
export function interruptedBy(lease: RunLease): DriveEnd {
  return lease.reason() === 'abort' ? { kind: 'aborted' } : STOPPED;
}
