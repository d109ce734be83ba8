import { describe, expect, it } from 'vitest';
import {
  ARRAY_KEYS,
  keysOf,
  NUMBER_KEYS,
  OBJECT_KEYS,
  OUTPUT_KEYS,
  STRING_KEYS,
} from '../../../src/models/provider-schema/schema-keys';
import { GEMINI_KEYWORDS } from '../../../src/models/provider-schema/validate-gemini';

describe('keysOf', () => {
  it('gives the keyword group of each type, none for boolean and null', () => {
    expect(keysOf('string')).toBe(STRING_KEYS);
    expect(keysOf('number')).toBe(NUMBER_KEYS);
    expect(keysOf('integer')).toBe(NUMBER_KEYS);
    expect(keysOf('array')).toBe(ARRAY_KEYS);
    expect(keysOf('object')).toBe(OBJECT_KEYS);
    expect(keysOf('boolean')).toEqual([]);
    expect(keysOf('null')).toEqual([]);
  });
  it('only emits keywords that belong to the type and that Gemini accepts', () => {
    for (const [type, keys] of Object.entries(OUTPUT_KEYS))
      for (const k of keys) {
        expect(GEMINI_KEYWORDS.has(k)).toBe(true);
        if (k !== 'enum') expect(keysOf(type)).toContain(k);
      }
  });
});
