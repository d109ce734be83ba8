import { describe, expect, it } from 'vitest';
import { pruneForType } from '../../../src/models/provider-schema/prune-for-type';

describe('pruneForType', () => {
  it('keeps only the type, annotations and the keywords of that type, in place', () => {
    const s = { type: 'string', title: 'T', minLength: 1, minimum: 3, items: {}, enum: ['a'], format: 'date-time' };
    expect(pruneForType(s)).toBe(s);
    expect(s).toEqual({ type: 'string', title: 'T', minLength: 1, enum: ['a'], format: 'date-time' });
  });
  it('removes a format other than date-time', () => {
    expect(pruneForType({ type: 'string', format: 'email' })).toEqual({ type: 'string' });
  });
  it('leaves schemas without one type name alone', () => {
    const s = { anyOf: [], minLength: 1 };
    expect(pruneForType(s)).toEqual({ anyOf: [], minLength: 1 });
    expect(pruneForType({ type: 'boolean', minimum: 1, default: true })).toEqual({ type: 'boolean', default: true });
  });
});
