/** Milliseconds in a UTC day. */
const DAY_MS = 86_400_000;

/**
 * The start (ms since the epoch) of the UTC day containing `now`: daily counters (grant budgets,
 * a run's daily budgets) are keyed by it.
 * @public
 */
export function utcDayStart(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS;
}
