import { describe, expect, it } from 'vitest';
import { anyValue } from '../../../src/models/provider-schema/any-value';
import { REQUIRED_PROVIDER_FAMILIES } from '../../../src/models/provider-schema/types';
import { validateProviderSchema } from '../../../src/models/provider-schema/validate';

describe('anyValue', () => {
  it('is an anyOf of every JSON type, arrays one level deep', () => {
    const v = anyValue();
    expect((v.anyOf as { type: string }[]).map((b) => b.type)).toEqual([
      'string',
      'number',
      'boolean',
      'object',
      'null',
      'array',
    ]);
  });
  it('is accepted by every required family as a property', () => {
    for (const family of REQUIRED_PROVIDER_FAMILIES)
      expect(validateProviderSchema({ type: 'object', properties: { v: anyValue() } }, family)).toEqual([]);
  });
  it('is a new object on each call', () => {
    const a = anyValue();
    expect(anyValue()).not.toBe(a);
    (a.anyOf as unknown[]).pop();
    expect((anyValue().anyOf as unknown[]).length).toBe(6);
  });
});
