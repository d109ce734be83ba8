import { describe, expect, it } from 'vitest';
import { mergeSchemas, stripAnyOf } from '../../../src/models/provider-schema/merge-schemas';
import { rewrite, rules } from './rewrite';

const run = (a: Record<string, unknown>, b: Record<string, unknown>) => {
  const ctx = rewrite();
  return { out: mergeSchemas(ctx, a, b, '/m'), rules: rules(ctx.rewrites) };
};

describe('mergeSchemas', () => {
  it('merges properties, required and the tighter bounds', () => {
    expect(
      run(
        { type: 'object', properties: { a: { type: 'string', maxLength: 9 } }, required: ['a'], minProperties: 1 },
        {
          properties: { a: { type: 'string', maxLength: 4 }, b: { type: 'null' } },
          required: ['b', 'a'],
          minProperties: 2,
        },
      ).out,
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'string', maxLength: 4 }, b: { type: 'null' } },
      required: ['a', 'b'],
      minProperties: 2,
    });
    expect(run({ type: 'number', minimum: 1, maximum: 9 }, { minimum: 3, maximum: 20 }).out).toEqual({
      type: 'number',
      minimum: 3,
      maximum: 9,
    });
  });
  it('intersects enums, keeping the first when nothing is common', () => {
    expect(run({ type: 'string', enum: ['a', 'b'] }, { enum: ['b', 'c'] }).out.enum).toEqual(['b']);
    expect(run({ type: 'string', enum: ['a'] }, { enum: ['c'] }).out.enum).toEqual(['a']);
  });
  it('number and integer make integer; other conflicts keep the first type', () => {
    expect(run({ type: 'number' }, { type: 'integer' }).out).toEqual({ type: 'integer' });
    expect(run({ type: 'string', minLength: 1 }, { type: 'object', minProperties: 1 })).toEqual({
      out: { type: 'string', minLength: 1 },
      rules: ['all-of-conflict'],
    });
  });
  it('distributes over anyOf on either side', () => {
    expect(run({ anyOf: [{ type: 'string' }, { type: 'null' }], title: 'T' }, { description: 'd' }).out).toEqual({
      title: 'T',
      anyOf: [
        { type: 'string', description: 'd' },
        { type: 'null', description: 'd' },
      ],
    });
    expect(run({ minLength: 2 }, { anyOf: [{ type: 'string' }] }).out).toEqual({ anyOf: [{ minLength: 2 }] });
  });
  it('joins different descriptions and merges items', () => {
    expect(
      run({ type: 'array', description: 'a', items: { type: 'string' } }, { description: 'b', items: { minLength: 1 } })
        .out,
    ).toEqual({ type: 'array', description: 'a b', items: { type: 'string', minLength: 1 } });
  });
});

describe('stripAnyOf', () => {
  it('copies a schema without anyOf', () => {
    const s = { anyOf: [], title: 'x' };
    expect(stripAnyOf(s)).toEqual({ title: 'x' });
    expect(s.anyOf).toEqual([]);
  });
});
