import { describe, expect, it, vi } from 'vitest';
import { RandomIdGenerator, SequentialIdGenerator } from '../../src/index';

describe('RandomIdGenerator', () => {
  it('makes <prefix>_<32 hex digits> ids whose digits are a UUID version 7 (time, version 7, variant 10)', () => {
    const before = Date.now();
    const id = new RandomIdGenerator().next('inv');
    const after = Date.now();
    expect(id).toMatch(/^inv_[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
    const ms = parseInt(id.slice(4, 16), 16);
    // The timestamp is the creation time, or a later one when the counter of an earlier millisecond overflowed.
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after + 2);
  });

  it('gives ids that sort in creation order within a process, across generators, and are unique', () => {
    const a = new RandomIdGenerator();
    const b = new RandomIdGenerator();
    const ids = Array.from({ length: 20_000 }, (_, i) => (i % 2 === 0 ? a : b).next('aud'));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('stays ordered when the wall clock steps back, and when one millisecond needs more ids than its counter holds', () => {
    const ids = new RandomIdGenerator();
    const now = vi.spyOn(Date, 'now');
    try {
      now.mockReturnValue(4_000_000_000_000);
      const first = Array.from({ length: 5_000 }, () => ids.next('x')); // > 4096 in one millisecond
      now.mockReturnValue(3_999_999_999_000); // the clock stepped back one second
      const later = Array.from({ length: 10 }, () => ids.next('x'));
      const all = [...first, ...later];
      expect(new Set(all).size).toBe(all.length);
      expect([...all].sort()).toEqual(all);
      // The timestamp moved on by one when the counter ran out, never back.
      expect(parseInt(all[all.length - 1]!.slice(2, 14), 16)).toBeGreaterThanOrEqual(4_000_000_000_001);
    } finally {
      now.mockRestore();
    }
  });

  it('keeps 62 random bits per id (ids made in the same millisecond differ beyond the counter)', () => {
    const ids = new RandomIdGenerator();
    const tails = new Set(Array.from({ length: 1_000 }, () => ids.next('t').slice(-15)));
    expect(tails.size).toBe(1_000);
  });
});

describe('SequentialIdGenerator', () => {
  it('counts per prefix', () => {
    const ids = new SequentialIdGenerator();
    expect([ids.next('a'), ids.next('a'), ids.next('b')]).toEqual(['a_1', 'a_2', 'b_1']);
  });
});
