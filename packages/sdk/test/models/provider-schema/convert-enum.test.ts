import { describe, expect, it } from 'vitest';
import { anyValue } from '../../../src/models/provider-schema/any-value';
import { convertEnum } from '../../../src/models/provider-schema/convert-enum';
import { rewrite, rules } from './rewrite';

const run = (node: Record<string, unknown>) => {
  const ctx = rewrite();
  const notes: string[] = [];
  const out = convertEnum(ctx, node, '/e', notes);
  return { out, notes, rules: rules(ctx.rewrites), problems: rules(ctx.problems) };
};

describe('convertEnum', () => {
  it('keeps a string enum with type string as it is', () => {
    expect(run({ type: 'string', enum: ['a', 'b'] })).toEqual({
      out: { type: 'string', enum: ['a', 'b'] },
      notes: [],
      rules: [],
      problems: [],
    });
  });
  it('adds type string to an untyped or repeated string enum', () => {
    expect(run({ enum: ['a', 'a'] })).toMatchObject({ out: { type: 'string', enum: ['a'] }, rules: ['enum-type'] });
  });
  it('writes a const as a one-value enum, dropping an enum next to it', () => {
    expect(run({ const: 'x', enum: ['y'] })).toMatchObject({
      out: { type: 'string', enum: ['x'] },
      rules: ['keyword-dropped', 'const'],
    });
  });
  it('writes non-string values as their types with the values described', () => {
    const r = run({ enum: ['a', 2, 7, true, null, [1], { k: 1 }] });
    expect(r.out).toEqual({
      anyOf: [
        { type: 'string', enum: ['a'] },
        { type: 'integer', minimum: 2, maximum: 7 },
        { type: 'boolean' },
        { type: 'null' },
        { type: 'array', items: anyValue() },
        { type: 'object' },
      ],
    });
    expect(r.notes).toEqual(['one of "a", 2, 7, true, null, [1], {"k":1}']);
    expect(r.rules).toEqual(['enum-non-string']);
    expect(run({ const: 1.5 })).toMatchObject({
      out: { type: 'number', minimum: 1.5, maximum: 1.5 },
      notes: ['must be 1.5'],
    });
  });
  it('refuses an empty or non-list enum', () => {
    expect(run({ enum: [] })).toMatchObject({ out: anyValue(), problems: ['schema-invalid'] });
    expect(run({ enum: 'a' }).problems).toEqual(['schema-invalid']);
  });
});
