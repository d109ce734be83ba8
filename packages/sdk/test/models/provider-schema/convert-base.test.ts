import { describe, expect, it } from 'vitest';
import { anyValue } from '../../../src/models/provider-schema/any-value';
import { convertBase } from '../../../src/models/provider-schema/convert-base';
import { rewrite, rules } from './rewrite';

const run = (node: Record<string, unknown>) => {
  const ctx = rewrite();
  const out = convertBase(ctx, node, '/b', [], []);
  return { out, rules: rules(ctx.rewrites), problems: rules(ctx.problems), paths: ctx.rewrites.map((r) => r.path) };
};

describe('convertBase', () => {
  it('is undefined for a node that constrains nothing by itself', () => {
    expect(run({ title: 'T', anyOf: [{ type: 'string' }], $id: 'x', nullable: true })).toEqual({
      out: undefined,
      rules: [],
      problems: [],
      paths: [],
    });
  });
  it('converts one type, and a type list into an anyOf', () => {
    expect(run({ type: 'integer', minimum: 0 }).out).toEqual({ type: 'integer', minimum: 0 });
    expect(run({ type: ['string', 'null', 'string'], maxLength: 3 })).toMatchObject({
      out: { anyOf: [{ type: 'string', maxLength: 3 }, { type: 'null' }] },
      rules: ['type-list'],
    });
  });
  it('infers a missing type from the keywords (object, array, string, number, in that order)', () => {
    expect(run({ properties: {}, items: {} }).out).toEqual({ type: 'object', properties: {} });
    expect(run({ minItems: 1 }).out).toMatchObject({ type: 'array', minItems: 1 });
    expect(run({ pattern: 'a', minimum: 1 }).out).toEqual({ type: 'string', pattern: 'a' });
    expect(run({ minimum: 1 })).toMatchObject({ out: { type: 'number', minimum: 1 }, rules: ['type-inferred'] });
    expect(run({ format: 'email' }).out).toBeUndefined();
  });
  it('hands enum and const to the enum rule, whatever the type', () => {
    expect(run({ type: 'integer', enum: ['a'] }).out).toEqual({ type: 'string', enum: ['a'] });
  });
  it('refuses a type that is not a JSON type name', () => {
    expect(run({ type: 'text' })).toMatchObject({ out: anyValue(), problems: ['schema-invalid'] });
    expect(run({ type: [] }).problems).toEqual(['schema-invalid']);
  });
  it('drops examples and keywords of other types or unknown to every provider', () => {
    expect(run({ type: 'integer', minLength: 1, examples: [1], 'x-vendor': true })).toEqual({
      out: { type: 'integer' },
      rules: ['keyword-dropped', 'keyword-dropped', 'keyword-dropped'],
      problems: [],
      paths: ['/b/examples', '/b/minLength', '/b/x-vendor'],
    });
  });
});
