/**
 * Statistics of interleaved benchmark rounds: each round measures every side once (in rotating order),
 * a ratio is taken per round, and the ratios are reported as their median and interquartile range, so
 * load that falls on one round falls on both sides of its ratio alike.
 */

/** The `q`-quantile (0 ≤ q ≤ 1) of `values`, linearly interpolated between the two nearest ranks. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

/** Median and interquartile range of `values`. */
export interface Spread {
  median: number;
  q1: number;
  q3: number;
  n: number;
}

/** The median and the interquartile range (first and third quartile) of `values`. */
export function spread(values: readonly number[]): Spread {
  return { median: quantile(values, 0.5), q1: quantile(values, 0.25), q3: quantile(values, 0.75), n: values.length };
}

/** `1.93× (1.56–2.42)`: a spread of ratios as the tables print it. */
export function formatRatio(s: Spread, digits = 2): string {
  return `${s.median.toFixed(digits)}× (${s.q1.toFixed(digits)}–${s.q3.toFixed(digits)})`;
}

/** `12.3 (11.9–13.0)`: a spread of plain figures. */
export function formatSpread(s: Spread, digits = 1): string {
  return `${s.median.toFixed(digits)} (${s.q1.toFixed(digits)}–${s.q3.toFixed(digits)})`;
}

/**
 * The order of the sides in round `round`: rotated by one each round, so each side is measured first,
 * second, … equally often.
 */
export function roundOrder(sides: number, round: number): number[] {
  return Array.from({ length: sides }, (_, k) => (k + round) % sides);
}

/**
 * An integer from the environment (`BENCH_ROUNDS`, `BENCH_RUNS`, …), or `fallback` when it is unset; a value that
 * is not an integer ≥ `min` throws, naming the variable (a benchmark never runs on `NaN` or too few rounds).
 */
export function envInt(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min}, got ${raw}`);
  return n;
}
