// The limiter's own windows are pruned in place and judged without a copy: the same verdicts as the pure rule.
import { describe, expect, it } from 'vitest';
import { pruneWindow, slidingWindow } from '../../src/limits';
import { prunedWindowVerdict, pruneWindowInPlace } from '../../src/runtime/limits/sliding-window';

describe('pruneWindowInPlace and prunedWindowVerdict', () => {
  it('drop the starts that left the window from the array itself, as pruneWindow does in a copy', () => {
    for (const starts of [[], [1, 2, 3], [1000, 1000, 30_000, 60_999, 61_000, 61_001], [61_000, 61_500]]) {
      const kept = [...starts];
      expect(pruneWindowInPlace(kept, 121_000, 60_000)).toBe(kept);
      expect(kept).toEqual(pruneWindow(starts, 121_000, 60_000));
    }
  });

  it('judge a pruned window as slidingWindow judges the unpruned one', () => {
    const starts = [500, 1000, 30_000, 59_000, 60_500];
    for (const now of [60_000, 60_500, 61_000, 90_000, 200_000])
      for (const max of [1, 2, 3, 5, 6]) {
        const pruned = pruneWindowInPlace([...starts], now, 60_000);
        expect(prunedWindowVerdict(pruned, now, 60_000, max)).toEqual(slidingWindow(starts, now, 60_000, max));
      }
  });
});
