import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evictionsFor, type RunShelf } from '../../src/runtime/context/run-shelf';

const shelfOf = (sizes: number[]): RunShelf => ({
  ids: new Map(sizes.map((b, i) => [`r${i}`, b])),
  bytes: sizes.reduce((a, b) => a + b, 0),
});

describe('run shelf evictions', () => {
  it('evicts nothing while there is room', () => {
    expect(evictionsFor(shelfOf([]), 10, 1, 10)).toEqual([]);
    expect(evictionsFor(shelfOf([3, 3]), 4, 3, 10)).toEqual([]);
  });

  it('evicts the oldest for the count and for the bytes', () => {
    expect(evictionsFor(shelfOf([1, 1, 1]), 1, 3, 100)).toEqual(['r0']);
    expect(evictionsFor(shelfOf([5, 2, 2]), 4, 10, 10)).toEqual(['r0']);
    expect(evictionsFor(shelfOf([1, 1, 5]), 6, 10, 10)).toEqual(['r0', 'r1', 'r2']);
  });

  it('a result over the per-run bytes alone empties the shelf', () => {
    expect(evictionsFor(shelfOf([1, 2]), 50, 10, 10)).toEqual(['r0', 'r1']);
  });

  it('after the evictions the new result fits, or the shelf is empty; only the oldest go', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 20 }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 60 }),
        (sizes, incoming, maxResults, maxBytes) => {
          const evicted = evictionsFor(shelfOf(sizes), incoming, maxResults, maxBytes);
          expect(evicted).toEqual(sizes.slice(0, evicted.length).map((_, i) => `r${i}`));
          const left = sizes.slice(evicted.length);
          const fits = left.length + 1 <= maxResults && left.reduce((a, b) => a + b, 0) + incoming <= maxBytes;
          expect(fits || left.length === 0).toBe(true);
          // and no fewer evictions would do
          if (evicted.length > 0) {
            const kept = sizes.slice(evicted.length - 1);
            expect(kept.length + 1 > maxResults || kept.reduce((a, b) => a + b, 0) + incoming > maxBytes).toBe(true);
          }
        },
      ),
    );
  });
});
