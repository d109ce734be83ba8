import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkProviderSchema } from '../../../src/models/provider-schema/check';
import { REQUIRED_PROVIDER_FAMILIES } from '../../../src/models/provider-schema/types';
import { validateProviderSchema } from '../../../src/models/provider-schema/validate';

describe('checkProviderSchema', () => {
  it('returns a plain-JSON copy, in the same key order, when nothing has to change', () => {
    const input = { type: 'object', required: ['q'], properties: { q: { type: 'string', minLength: 1 } } };
    const check = checkProviderSchema(input);
    expect(check).toEqual({ schema: input, rewrites: [], problems: [], strict: expect.any(Array) });
    expect(check.schema).not.toBe(input);
    expect(JSON.stringify(check.schema)).toBe(JSON.stringify(input));
  });
  it('records a rewrite nobody else recorded as normalized', () => {
    const check = checkProviderSchema({ type: 'object', properties: { a: { type: 'string', minimum: 1 } } });
    expect(check.rewrites.map((r) => r.rule)).toEqual(['keyword-dropped']);
    const dup = checkProviderSchema({ type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'a'] });
    expect(dup.rewrites.map((r) => r.rule)).toEqual(['normalized']);
    expect(dup.schema.required).toEqual(['a']);
  });
  it('refuses values that are not schemas', () => {
    expect(checkProviderSchema(undefined).problems).toEqual([
      { rule: 'schema-invalid', path: '', message: 'the schema is not JSON (undefined)' },
    ]);
    expect(checkProviderSchema(3).problems).toEqual([
      { rule: 'schema-invalid', path: '', message: 'expected a schema object, got 3' },
    ]);
  });
  it('reports strict-mode problems without refusing', () => {
    const check = checkProviderSchema({ type: 'object', properties: { a: { type: 'string' } } });
    expect(check.problems).toEqual([]);
    expect(check.strict.map((p) => p.rule)).toEqual(['openai-strict.additional-properties', 'openai-strict.required']);
  });
  it('never changes its input, and what it accepts every required family accepts', () => {
    const leaf = fc.oneof(
      fc.constant({ type: 'string', format: 'email' }),
      fc.constant({ const: 3 }),
      fc.constant({ type: ['integer', 'null'], exclusiveMinimum: 0 }),
      fc.constant({ type: 'array', prefixItems: [{ type: 'string' }] }),
      fc.constant({ type: 'object', additionalProperties: { type: 'number' } }),
      fc.constant({ $ref: '#/$defs/D' }),
      fc.constant({ oneOf: [{ type: 'string' }, { enum: ['a', 1] }] }),
      fc.constant(true),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('a', 'b', 'c'), leaf), fc.boolean(), (properties, union) => {
        const $defs = { D: { type: 'string', nullable: true } };
        const object = { type: 'object', properties };
        const input = union
          ? { anyOf: [object, { type: 'object', properties: { z: { type: 'null' } } }], $defs }
          : { ...object, $defs };
        const copy = structuredClone(input);
        const check = checkProviderSchema(input);
        expect(input).toEqual(copy);
        expect(check.problems).toEqual([]);
        for (const family of REQUIRED_PROVIDER_FAMILIES)
          expect(validateProviderSchema(check.schema, family)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
