/**
 * One observed call in the cycle history: `key` is the call signature plus the result fingerprint,
 * `poll` marks calls that may repeat normally.
 * @public
 */
export interface CycleEntry {
  /** Call signature plus result fingerprint. */
  key: string;
  /** True for calls that may repeat normally (polls). */
  poll: boolean;
}

/**
 * Finds a repeating cycle ending at the newest call. For each period from `minPeriod` to `maxPeriod`, smallest first, counts how many trailing
 * laps of `period` entries equal the final lap (same call and same result at every position). A
 * lap made of one repeated entry is left to the identical-calls rule, and a lap made only of polls
 * is legitimate waiting; neither is reported.
 *
 * Example: keys `A,B,A,B` give `{ period: 2, laps: 2 }`; `A,B,C,A,B,C` give `{ period: 3, laps: 2 }`.
 *
 * @param history - observed calls, oldest first (the caller keeps at most 64)
 * @param minLaps - laps needed to report a cycle (≥ 2)
 * @param minPeriod - shortest period checked (default 2)
 * @param maxPeriod - longest period checked (default 4)
 * @returns the smallest period with at least `minLaps` laps and its lap count, or null
 * @public
 */
export function detectCycle(
  history: readonly CycleEntry[],
  minLaps: number,
  minPeriod = 2,
  maxPeriod = 4,
): { period: number; laps: number } | null {
  const n = history.length;
  const laps = Math.max(2, minLaps);
  for (let period = Math.max(2, minPeriod); period <= maxPeriod; period++) {
    if (n < period * laps) continue;
    const lap = history.slice(n - period);
    if (lap.every((e) => e.key === lap[0]?.key)) continue;
    if (lap.every((e) => e.poll)) continue;
    let count = 1;
    for (let base = n - 2 * period; base >= 0; base -= period) {
      let same = true;
      for (let i = 0; i < period; i++) {
        if (history[base + i]?.key !== lap[i]?.key) {
          same = false;
          break;
        }
      }
      if (!same) break;
      count++;
    }
    if (count >= laps) return { period, laps: count };
  }
  return null;
}
