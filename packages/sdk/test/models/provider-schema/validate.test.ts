import { describe, expect, it } from 'vitest';
import { REQUIRED_PROVIDER_FAMILIES } from '../../../src/models/provider-schema/types';
import { validateProviderSchema } from '../../../src/models/provider-schema/validate';

describe('validateProviderSchema', () => {
  it('accepts a plain object schema for the required families', () => {
    const schema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
    for (const family of REQUIRED_PROVIDER_FAMILIES) expect(validateProviderSchema(schema, family)).toEqual([]);
  });
  it('stops at a root that is not an object', () => {
    expect(validateProviderSchema('x', 'openai')).toEqual([
      {
        rule: 'openai.root-type',
        path: '',
        message: 'the input schema must be a JSON object with type "object", got "x"',
      },
    ]);
  });
  it('puts the root problems before those of the subschemas', () => {
    const schema = { type: 'string', anyOf: [{ type: 'array' }] };
    expect(validateProviderSchema(schema, 'openai').map((p) => `${p.rule} ${p.path}`)).toEqual([
      'openai.root-type /type',
      'openai.root-combinator /anyOf',
      'openai.array-items /anyOf/0',
    ]);
  });
  it('applies each family its own rules', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', const: 'x' } } };
    expect(validateProviderSchema(schema, 'anthropic')).toEqual([]);
    expect(validateProviderSchema(schema, 'openai')).toEqual([]);
    expect(validateProviderSchema(schema, 'gemini').map((p) => p.rule)).toEqual(['gemini.keyword']);
    expect(validateProviderSchema(schema, 'openai-strict').map((p) => p.rule)).toEqual([
      'openai-strict.additional-properties',
      'openai-strict.required',
    ]);
  });
  it('reports a strict-mode problem once per rule and place', () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      properties: { a: { type: 'object', properties: {}, additionalProperties: false } },
      required: ['a'],
      $defs: { a: { type: 'object', properties: {}, additionalProperties: false } },
    };
    const strict = validateProviderSchema(schema, 'openai-strict');
    expect(new Set(strict.map((p) => `${p.rule} ${p.path}`)).size).toBe(strict.length);
  });
  it('never changes the schema', () => {
    const schema = { type: 'object', properties: { a: { $ref: '#/x' } }, anyOf: [] };
    const copy = structuredClone(schema);
    for (const family of ['anthropic', 'openai', 'openai-strict', 'gemini'] as const)
      validateProviderSchema(schema, family);
    expect(schema).toEqual(copy);
  });
});
