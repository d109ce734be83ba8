// The ledger-style keys of budget reservations: deterministic, so reserving again is a no-op (docs/budgets.md).

/**
 * The key of one model call of a run: the run, the turn (the index the turn's reply will have in the run's
 * conversation, stable on resume) and the attempt within the turn (0, then 1, 2 … for a resend after a refusal).
 * A retry or a crash-resume of the same call reserves under the same key and is not charged twice.
 * @public
 */
export function modelCallKey(runId: string, turn: number, attempt: number): string {
  return `${runId}:call:${turn}:${attempt}`;
}

/**
 * The key of the start of a run (its runs-started charge): one per run, whatever happens to it.
 * @public
 */
export function runStartKey(runId: string): string {
  return `${runId}:start`;
}
