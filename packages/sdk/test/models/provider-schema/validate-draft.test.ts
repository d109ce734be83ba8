import { describe, expect, it } from 'vitest';
import { findings } from '../../../src/models/provider-schema/findings';
import type { JsonSchemaObject } from '../../../src/models/provider-schema/types';
import { validateDraft } from '../../../src/models/provider-schema/validate-draft';

const run = (family: 'anthropic' | 'openai', schema: JsonSchemaObject) => {
  const f = findings(family);
  validateDraft(f, schema);
  return f.problems.map((p) => `${p.rule} ${p.path}`);
};

describe('validateDraft', () => {
  it('accepts a plain object schema', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: ['string', 'null'] }, b: { type: 'array', items: { type: 'integer' } } },
      required: ['a'],
    };
    expect(run('anthropic', schema)).toEqual([]);
    expect(run('openai', schema)).toEqual([]);
  });
  it('reports bad type names and unresolved $refs for both families', () => {
    const schema = { type: 'object', properties: { a: { type: 'text' }, b: { $ref: '#/$defs/X' } } };
    for (const family of ['anthropic', 'openai'] as const)
      expect(run(family, schema)).toEqual([
        `${family}.type /properties/a/type`,
        `${family}.ref-unresolved /properties/b/$ref`,
      ]);
  });
  it('Anthropic: items must be one schema, required unique strings', () => {
    const schema = {
      type: 'object',
      properties: { t: { type: 'array', items: [{ type: 'string' }] }, o: { type: 'object', required: ['a', 'a'] } },
      required: [1],
    };
    expect(run('anthropic', schema)).toEqual([
      'anthropic.required /required',
      'anthropic.items-array /properties/t/items',
      'anthropic.required /properties/o/required',
    ]);
  });
  it('OpenAI: every array declares items (a type list with array counts)', () => {
    const schema = { type: 'object', properties: { a: { type: 'array' }, b: { type: ['array', 'null'] } } };
    expect(run('openai', schema)).toEqual(['openai.array-items /properties/a', 'openai.array-items /properties/b']);
    expect(run('anthropic', schema)).toEqual([]);
  });
  it('reports subschemas that are not schemas, but accepts boolean ones', () => {
    const schema = { type: 'object', properties: { a: 3, b: true }, additionalProperties: false };
    expect(run('openai', schema)).toEqual(['openai.schema-invalid /properties/a']);
  });
});
