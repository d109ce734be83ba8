/**
 * The Wilson score interval of a pass rate: better than the normal approximation for few runs and
 * for rates near 0 or 1. Pure.
 * @param passes - runs that passed (0 … runs)
 * @param runs - runs in all
 * @param z - the normal quantile; 1.96 for 95 %
 * @returns `{ low, high }` between 0 and 1; `{ low: 0, high: 1 }` for no runs
 * @throws `RangeError` for counts that are not integers with 0 ≤ passes ≤ runs
 * @example
 * ```ts
 * wilsonInterval(8, 10); // { low: 0.49, high: 0.94 } (rounded)
 * ```
 * @public
 */
export function wilsonInterval(passes: number, runs: number, z = 1.96): { low: number; high: number } {
  if (!Number.isInteger(passes) || !Number.isInteger(runs) || passes < 0 || runs < 0 || passes > runs)
    throw new RangeError(`wilsonInterval: need integers 0 <= passes <= runs, got ${passes}/${runs}`);
  if (runs === 0) return { low: 0, high: 1 };
  const p = passes / runs;
  const z2 = z * z;
  const centre = (p + z2 / (2 * runs)) / (1 + z2 / runs);
  const half = (z / (1 + z2 / runs)) * Math.sqrt((p * (1 - p)) / runs + z2 / (4 * runs * runs));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
