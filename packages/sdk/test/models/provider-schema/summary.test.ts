import { describe, expect, it } from 'vitest';
import { anyValue } from '../../../src/models/provider-schema/any-value';
import { summary } from '../../../src/models/provider-schema/summary';

describe('summary', () => {
  it('names types, enums and arrays', () => {
    expect(summary({ type: 'integer' })).toBe('integer');
    expect(summary({ type: 'string', enum: ['a', 1] })).toBe('one of "a", 1');
    expect(summary({ type: 'array', items: { type: 'array', items: { type: 'string' } } })).toBe(
      'array of array of string',
    );
    expect(summary({ type: 'array' })).toBe('array');
  });
  it('joins up to five alternatives, beyond that any JSON value', () => {
    expect(summary({ anyOf: [{ type: 'string' }, { type: 'null' }, 3] })).toBe('string or null');
    expect(summary(anyValue())).toBe('any JSON value');
    expect(summary({})).toBe('any JSON value');
  });
});
