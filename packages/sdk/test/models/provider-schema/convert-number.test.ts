import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertNumber } from '../../../src/models/provider-schema/convert-number';
import { rewrite, rules } from './rewrite';

const run = (node: Record<string, unknown>, type: 'number' | 'integer' = 'number') => {
  const ctx = rewrite();
  const notes: string[] = [];
  const out = convertNumber(ctx, node, type, '/n', notes);
  return { out, notes, rules: rules(ctx.rewrites) };
};

describe('convertNumber', () => {
  it('keeps minimum and maximum', () => {
    expect(run({ minimum: 1, maximum: 5 }, 'integer')).toEqual({
      out: { type: 'integer', minimum: 1, maximum: 5 },
      notes: [],
      rules: [],
    });
  });
  it('writes exclusive bounds as inclusive ones with the exclusive bound described', () => {
    expect(run({ exclusiveMinimum: 0, exclusiveMaximum: 10 })).toEqual({
      out: { type: 'number', minimum: 0, maximum: 10 },
      notes: ['greater than 0', 'less than 10'],
      rules: ['exclusive-bound', 'exclusive-bound'],
    });
  });
  it('keeps the tighter of an inclusive and an exclusive bound', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer(), (min, xmin) => {
        expect(run({ minimum: min, exclusiveMinimum: xmin }).out.minimum).toBe(Math.max(min, xmin));
        expect(run({ maximum: min, exclusiveMaximum: xmin }).out.maximum).toBe(Math.min(min, xmin));
      }),
    );
  });
  it('describes draft-4 boolean exclusive bounds only next to their bound', () => {
    expect(run({ minimum: 2, exclusiveMinimum: true }).notes).toEqual(['greater than 2']);
    expect(run({ exclusiveMaximum: true }).rules).toEqual(['keyword-dropped']);
    expect(run({ exclusiveMinimum: 'x' }).rules).toEqual(['keyword-dropped']);
  });
  it('moves multipleOf and format into the description, drops invalid values', () => {
    expect(run({ multipleOf: 5, format: 'int32' }, 'integer')).toEqual({
      out: { type: 'integer' },
      notes: ['a multiple of 5', 'format: int32'],
      rules: ['keyword-dropped', 'format'],
    });
    expect(run({ minimum: '1', multipleOf: 'x' })).toEqual({
      out: { type: 'number' },
      notes: [],
      rules: ['keyword-dropped', 'keyword-dropped'],
    });
  });
});
