import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rememberRecent } from '../../src/runtime/guardrails/recent-record';

describe('rememberRecent', () => {
  it('moves a key seen again to the end and forgets the least recently seen beyond max', () => {
    const r: Record<string, number> = {};
    rememberRecent(r, 'a', 1, 2);
    rememberRecent(r, 'b', 2, 2);
    rememberRecent(r, 'a', 3, 2); // a is now the most recent
    rememberRecent(r, 'c', 4, 2); // b goes
    expect(Object.entries(r)).toEqual([
      ['a', 3],
      ['c', 4],
    ]);
  });

  it('keeps at least one key when max is 0 or negative', () => {
    const r: Record<string, string> = { x: 'old' };
    rememberRecent(r, 'y', 'new', 0);
    expect(r).toEqual({ y: 'new' });
    rememberRecent(r, 'z', 'newer', -3);
    expect(r).toEqual({ z: 'newer' });
  });

  it('never holds more than max keys, and holds the last max distinct keys in recency order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<string>('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 40 }),
        fc.integer({ min: 1, max: 5 }),
        (keys, max) => {
          const r: Record<string, number> = {};
          for (const [i, k] of keys.entries()) rememberRecent(r, k, i, max);
          const recency: string[] = [];
          for (const k of keys) {
            const at = recency.indexOf(k);
            if (at >= 0) recency.splice(at, 1);
            recency.push(k);
          }
          expect(Object.keys(r)).toEqual(recency.slice(-max));
          for (const k of Object.keys(r)) expect(r[k]).toBe(keys.lastIndexOf(k));
        },
      ),
    );
  });
});
