// Values nested deeper than anyone writes by hand: measured and refused with a typed error, never a stack overflow.
import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../../src/core/json-depth';
import { canonicalJson } from '../../src/storage';
import { thrownMessage } from '../../src/capabilities/impact-runner';

const nested = (depth: number) => {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

describe('nestsDeeperThan', () => {
  it('counts objects and arrays, not scalars', () => {
    expect(nestsDeeperThan('x', 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({ a: [1] }, 2)).toBe(false);
    expect(nestsDeeperThan({ a: [{}] }, 2)).toBe(true);
    expect(nestsDeeperThan(nested(64), 64)).toBe(false);
    expect(nestsDeeperThan(nested(65), 64)).toBe(true);
  });
  it('measures 100 000 levels without overflowing the stack, and follows no cycle twice', () => {
    expect(nestsDeeperThan(nested(100_000), 64)).toBe(true);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(nestsDeeperThan(cycle, 5)).toBe(false);
  });
});

describe('canonicalJson depth', () => {
  it('writes 1 000 levels, refuses deeper with CANONICAL_JSON_INVALID (not a RangeError)', () => {
    expect(() => canonicalJson(nested(999))).not.toThrow();
    expect(() => canonicalJson(nested(20_000))).toThrow(expect.objectContaining({ code: 'CANONICAL_JSON_INVALID' }));
  });
});

describe('thrownMessage', () => {
  it('gives text for anything thrown', () => {
    expect(thrownMessage(new Error('nas down'))).toBe('nas down');
    expect(thrownMessage('plain')).toBe('plain');
    expect(thrownMessage({ code: 7 })).toBe('{"code":7}');
    expect(thrownMessage(Object.create(null))).toBe('{}');
    const hostile = {
      toJSON() {
        throw new Error('no');
      },
    };
    expect(thrownMessage(hostile)).toBe('a thrown object that has no text');
    expect(thrownMessage(undefined)).toBe('undefined');
  });
});
