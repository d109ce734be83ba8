// The similarity ratio of two strings by Ratcliff/Obershelp matching, as Python's
// `difflib.SequenceMatcher(None, a, b).ratio()` computes it (https://docs.python.org/3/library/difflib.html),
// so thresholds such as 0.5, 0.7 and 0.8 mean what they mean there.

/**
 * The similarity of two strings in [0, 1]: twice the number of matched code points over the total,
 * where matches are found by repeatedly taking the longest common block (Ratcliff/Obershelp) and
 * recursing on both sides of it. For a `b` of 200 code points or more, code points occurring in more
 * than 1 % of `b` (plus one) are not used as match seeds ("auto-junk"), exactly as Python does.
 *
 * @param a - first string (compared by code points)
 * @param b - second string
 * @returns 1 for two empty strings, else `2 × matched / (|a| + |b|)`
 * @example
 * ```ts
 * sequenceRatio('abcd', 'bcde'); // 0.75
 * ```
 * @public
 */
export function sequenceRatio(a: string, b: string): number {
  const ca = Array.from(a);
  const cb = Array.from(b);
  const total = ca.length + cb.length;
  if (total === 0) return 1;
  return (2 * matchedCount(ca, cb)) / total;
}

/** An upper bound of {@link sequenceRatio} from the lengths alone (to skip hopeless comparisons). */
export function ratioUpperBound(a: string, b: string): number {
  const la = a.length;
  const lb = b.length;
  return la + lb === 0 ? 1 : (2 * Math.min(la, lb)) / (la + lb);
}

function indexOfB(b: readonly string[]): Map<string, number[]> {
  const b2j = new Map<string, number[]>();
  b.forEach((ch, j) => {
    const list = b2j.get(ch);
    if (list) list.push(j);
    else b2j.set(ch, [j]);
  });
  if (b.length >= 200) {
    const limit = Math.floor(b.length / 100) + 1;
    for (const [ch, list] of [...b2j]) if (list.length > limit) b2j.delete(ch);
  }
  return b2j;
}

function longestMatch(
  a: readonly string[],
  b: readonly string[],
  b2j: Map<string, number[]>,
  alo: number,
  ahi: number,
  blo: number,
  bhi: number,
): [number, number, number] {
  let besti = alo;
  let bestj = blo;
  let bestsize = 0;
  let lengths = new Map<number, number>();
  for (let i = alo; i < ahi; i++) {
    const next = new Map<number, number>();
    for (const j of b2j.get(a[i]!) ?? []) {
      if (j < blo) continue;
      if (j >= bhi) break;
      const k = (lengths.get(j - 1) ?? 0) + 1;
      next.set(j, k);
      if (k > bestsize) {
        besti = i - k + 1;
        bestj = j - k + 1;
        bestsize = k;
      }
    }
    lengths = next;
  }
  // Grow the block over equal neighbours that were not seeds (the auto-junked ones).
  while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
    besti--;
    bestj--;
    bestsize++;
  }
  while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) bestsize++;
  return [besti, bestj, bestsize];
}

function matchedCount(a: readonly string[], b: readonly string[]): number {
  const b2j = indexOfB(b);
  let matched = 0;
  const queue: Array<[number, number, number, number]> = [[0, a.length, 0, b.length]];
  while (queue.length > 0) {
    const [alo, ahi, blo, bhi] = queue.pop()!;
    const [i, j, k] = longestMatch(a, b, b2j, alo, ahi, blo, bhi);
    if (k === 0) continue;
    matched += k;
    if (alo < i && blo < j) queue.push([alo, i, blo, j]);
    if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
  }
  return matched;
}
