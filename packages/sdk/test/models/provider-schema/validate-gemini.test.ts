import { describe, expect, it } from 'vitest';
import { findings } from '../../../src/models/provider-schema/findings';
import type { JsonSchemaObject } from '../../../src/models/provider-schema/types';
import { GEMINI_KEYWORDS, validateGemini } from '../../../src/models/provider-schema/validate-gemini';

const run = (schema: JsonSchemaObject) => {
  const f = findings('gemini');
  validateGemini(f, schema);
  return f.problems.map((p) => `${p.rule} ${p.path}`);
};
const obj = (properties: JsonSchemaObject, extra: JsonSchemaObject = {}) => ({ type: 'object', properties, ...extra });

describe('validateGemini', () => {
  it('accepts the Schema subset', () => {
    expect(
      run(
        obj(
          {
            s: { type: 'string', enum: ['a', 'b'], format: 'enum' },
            d: { type: 'string', format: 'date-time', nullable: true },
            n: { type: 'number', format: 'double', minimum: 0 },
            i: { type: 'integer', format: 'int64' },
            l: { type: 'array', items: { type: 'boolean' }, minItems: 1 },
            u: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          },
          { required: ['s'], propertyOrdering: ['s'] },
        ),
      ),
    ).toEqual([]);
  });
  it('refuses keywords outside the Schema object', () => {
    expect(run(obj({ a: { type: 'string', const: 'x' } }, { additionalProperties: false, $defs: {} }))).toEqual([
      'gemini.keyword /additionalProperties',
      'gemini.keyword /$defs',
      'gemini.keyword /properties/a/const',
    ]);
    for (const k of ['$ref', 'oneOf', 'allOf', 'not', 'exclusiveMinimum', 'multipleOf', 'uniqueItems', 'examples'])
      expect(GEMINI_KEYWORDS.has(k)).toBe(false);
  });
  it('needs one type name, present unless anyOf is', () => {
    expect(run(obj({ a: {}, b: { type: ['string', 'null'] }, c: { type: 'text' } }))).toEqual([
      'gemini.type-missing /properties/a',
      'gemini.type /properties/b/type',
      'gemini.type /properties/c/type',
    ]);
  });
  it('allows enum only on strings with string values', () => {
    expect(run(obj({ a: { type: 'integer', enum: [1] }, b: { type: 'string', enum: ['a', 1] } }))).toEqual([
      'gemini.enum /properties/a/enum',
      'gemini.enum /properties/b/enum',
    ]);
  });
  it('allows only the formats of the type', () => {
    expect(
      run(
        obj({
          a: { type: 'string', format: 'email' },
          b: { type: 'number', format: 'int32' },
          c: { type: 'integer', format: 3 },
        }),
      ),
    ).toEqual([
      'gemini.format /properties/a/format',
      'gemini.format /properties/b/format',
      'gemini.format /properties/c/format',
    ]);
  });
  it('needs one items schema on arrays', () => {
    expect(run(obj({ a: { type: 'array' }, b: { type: 'array', items: [{ type: 'string' }] } }))).toEqual([
      'gemini.array-items /properties/a',
      'gemini.array-items /properties/b',
    ]);
  });
  it('needs required names to be declared properties', () => {
    expect(run(obj({ a: { type: 'string' } }, { required: ['a', 'b', 3] }))).toEqual([
      'gemini.required /required/1',
      'gemini.required /required/2',
    ]);
    expect(run(obj({}, { required: 'a' }))).toEqual(['gemini.required /required']);
  });
  it('refuses boolean subschemas', () => {
    expect(run(obj({ a: true }))).toEqual(['gemini.schema-invalid /properties/a']);
  });
});
