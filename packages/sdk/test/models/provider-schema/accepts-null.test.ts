import { describe, expect, it } from 'vitest';
import { acceptsNull } from '../../../src/models/provider-schema/accepts-null';

describe('acceptsNull', () => {
  it('is true for type null and unions with a null branch at any depth', () => {
    expect(acceptsNull({ type: 'null' })).toBe(true);
    expect(acceptsNull({ anyOf: [{ type: 'string' }, { anyOf: [{ type: 'null' }] }] })).toBe(true);
  });
  it('is false otherwise', () => {
    expect(acceptsNull({ type: 'string' })).toBe(false);
    expect(acceptsNull({ type: ['string', 'null'] })).toBe(false);
    expect(acceptsNull({ anyOf: [{ type: 'string' }, 'null'] })).toBe(false);
  });
});
