import { describe, expect, it } from 'vitest';
import { convertObject } from '../../../src/models/provider-schema/convert-object';
import { rewrite, rules } from './rewrite';

const run = (node: Record<string, unknown>) => {
  const ctx = rewrite();
  const notes: string[] = [];
  const out = convertObject(ctx, node, '', [], notes);
  return { out, notes, rules: rules(ctx.rewrites), problems: rules(ctx.problems) };
};

describe('convertObject', () => {
  it('rewrites properties, dedupes required and keeps the counts', () => {
    expect(run({ properties: { a: { const: 1 } }, required: ['a', 'a'], minProperties: 1, maxProperties: 2 })).toEqual({
      out: {
        type: 'object',
        properties: { a: { type: 'integer', minimum: 1, maximum: 1, description: 'Must be 1.' } },
        required: ['a'],
        minProperties: 1,
        maxProperties: 2,
      },
      notes: [],
      rules: ['const', 'enum-non-string'],
      problems: [],
    });
  });
  it('removes additionalProperties booleans', () => {
    expect(run({ additionalProperties: false })).toMatchObject({
      out: { type: 'object' },
      rules: ['additional-properties'],
    });
    expect(run({ additionalProperties: true }).rules).toEqual(['additional-properties']);
  });
  it('describes maps (additionalProperties schemas, patternProperties, propertyNames)', () => {
    expect(run({ additionalProperties: { type: 'integer' } }).notes).toEqual(['any keys, each value integer']);
    expect(run({ properties: {}, additionalProperties: { type: 'integer' } }).notes).toEqual([
      'other keys, each value integer',
    ]);
    const r = run({
      patternProperties: { '^.*$': { type: 'string' }, '^x': { type: 'null' } },
      propertyNames: { pattern: '^[a-z]+$' },
    });
    expect(r.notes).toEqual([
      'any keys, each value string',
      'keys matching ^x, each value null',
      'keys match ^[a-z]+$',
    ]);
    expect(r.rules).toEqual(['map', 'keyword-dropped']);
  });
  it('refuses properties and required of the wrong shape', () => {
    expect(run({ properties: [], required: [1] }).problems).toEqual(['schema-invalid', 'schema-invalid']);
  });
  it('drops dependent keywords', () => {
    expect(run({ dependentRequired: { a: ['b'] }, unevaluatedProperties: false, maxProperties: -1 }).rules).toEqual([
      'keyword-dropped',
      'keyword-dropped',
      'keyword-dropped',
    ]);
  });
});
