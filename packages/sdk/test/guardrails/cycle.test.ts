import { describe, expect, it } from 'vitest';
import { detectCycle, type CycleEntry } from '../../src/runtime/guardrails/index';

const h = (keys: string, poll = false): CycleEntry[] => [...keys].map((key) => ({ key, poll }));

describe('cycle detection (seed 000: 2–4 step cycles within the last 64 calls)', () => {
  it('finds periods 2, 3 and 4 when the last 2×period calls are the same sequence twice', () => {
    expect(detectCycle(h('xABAB'), 2)).toEqual({ period: 2, laps: 2 });
    expect(detectCycle(h('ABCABC'), 2)).toEqual({ period: 3, laps: 2 });
    expect(detectCycle(h('ABCDABCD'), 2)).toEqual({ period: 4, laps: 2 });
    expect(detectCycle(h('ABABABAB'), 2)).toEqual({ period: 2, laps: 4 });
  });

  it('ignores periods over 4, broken laps, one repeated call and cycles made only of polls', () => {
    expect(detectCycle(h('ABCDEABCDE'), 2)).toBeNull();
    expect(detectCycle(h('ABAC'), 2)).toBeNull();
    expect(detectCycle(h('AAAA'), 2)).toBeNull();
    expect(detectCycle(h('ABAB', true), 2)).toBeNull();
    expect(detectCycle(h('ABAB'), 3)).toBeNull();
  });
});
