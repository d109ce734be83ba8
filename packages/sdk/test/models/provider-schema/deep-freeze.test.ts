import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../../src/models/provider-schema/deep-freeze';

describe('deepFreeze', () => {
  it('freezes a value and everything in it, and returns it', () => {
    const value = { a: { b: [1, { c: 2 }] } };
    expect(deepFreeze(value)).toBe(value);
    expect(Object.isFrozen(value.a.b[1])).toBe(true);
    expect(() => {
      (value.a.b as unknown[]).push(3);
    }).toThrow(TypeError);
  });
  it('leaves primitives and already frozen objects as they are', () => {
    expect(deepFreeze(3)).toBe(3);
    expect(deepFreeze(null)).toBeNull();
    const inner = { x: 1 };
    const outer = Object.freeze({ inner });
    deepFreeze(outer);
    expect(Object.isFrozen(inner)).toBe(false);
  });
});
