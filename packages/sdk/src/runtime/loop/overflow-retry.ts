// A model call the provider refused as too large for its context window, before any output: the
// conversation is compacted to a smaller budget and the call sent again, a bounded number of times.
// Pure rules, tested directly.

/**
 * Compactions and resends after a context overflow, per model turn, before the run ends `failed`
 * with `PROVIDER_CONTEXT_OVERFLOW`.
 * @defaultValue 2
 * @internal
 */
export const MAX_OVERFLOW_RETRIES = 2;

/** What the rule looks at of a finished model call. @internal */
export interface OverflowTurn {
  /** The call ended because the run's signal aborted. */
  aborted: boolean;
  /** The assistant message assembled (empty when nothing was streamed). */
  message: { content: readonly unknown[] };
  /** The error the stream reported, if any. */
  error?: { code?: string } | undefined;
}

/**
 * Whether a model call was refused as too large for the context window before any output: the error
 * is `PROVIDER_CONTEXT_OVERFLOW` (an HTTP 400/413 with an overflow message, or such an error event
 * before the first token) and nothing was streamed. An overflow reported after output is not
 * retried: the reply was already under way.
 * @param turn - the finished call
 * @returns true when the call may be retried after compaction
 * @internal
 */
export function contextOverflowed(turn: OverflowTurn): boolean {
  return !turn.aborted && turn.message.content.length === 0 && turn.error?.code === 'PROVIDER_CONTEXT_OVERFLOW';
}

/**
 * Whether an overflowed call is compacted and sent again.
 * @param retries - overflow retries already made for this turn
 * @param compactionOn - whether the run compacts at all (a threshold above 0); without compaction
 *   the same request would only overflow again
 * @param maxRetries - the bound (default {@link MAX_OVERFLOW_RETRIES})
 * @returns true to compact and resend, false to end the run `failed` with `PROVIDER_CONTEXT_OVERFLOW`
 * @internal
 */
export function overflowRetryDue(retries: number, compactionOn: boolean, maxRetries = MAX_OVERFLOW_RETRIES): boolean {
  return compactionOn && retries < maxRetries;
}
