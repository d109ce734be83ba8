import { describe, expect, it } from 'vitest';
import { anyValue } from '../../../src/models/provider-schema/any-value';
import { convertArray } from '../../../src/models/provider-schema/convert-array';
import { rewrite, rules } from './rewrite';

const run = (node: Record<string, unknown>) => {
  const ctx = rewrite();
  const notes: string[] = [];
  const out = convertArray(ctx, node, '/a', [], notes);
  return { out, notes, rules: rules(ctx.rewrites), paths: ctx.rewrites.map((r) => r.path) };
};

describe('convertArray', () => {
  it('rewrites one items schema and keeps the counts', () => {
    expect(run({ items: { type: 'string', const: 'x' }, minItems: 1, maxItems: 3 })).toEqual({
      out: { type: 'array', items: { type: 'string', enum: ['x'] }, minItems: 1, maxItems: 3 },
      notes: [],
      rules: ['const'],
      paths: ['/a/items/const'],
    });
  });
  it('adds items that accept any value when there are none', () => {
    expect(run({})).toMatchObject({ out: { type: 'array', items: anyValue() }, rules: ['array-items'] });
  });
  it('writes a tuple as the union of its positions, described; a closed tuple gets maxItems', () => {
    const r = run({ prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false });
    expect(r.out).toEqual({
      type: 'array',
      items: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      maxItems: 2,
    });
    expect(r.notes).toEqual(['positions: 1) string, 2) integer']);
    expect(r.rules).toEqual(['tuple']);
    expect(r.paths).toEqual(['/a/prefixItems']);
  });
  it('reads a draft-4 items list as a tuple; maxItems is the smaller of the two', () => {
    const r = run({
      items: [{ type: 'string' }, { type: 'string' }, { type: 'null' }],
      additionalItems: false,
      maxItems: 5,
    });
    expect(r.out.maxItems).toBe(3);
    expect(r.paths).toEqual(['/a/items']);
    expect(run({ items: [] }).out.items).toEqual(anyValue());
  });
  it('moves uniqueItems into the description and drops what no provider takes', () => {
    const r = run({ items: { type: 'string' }, uniqueItems: true, contains: {}, minContains: 1, additionalItems: {} });
    expect(r.notes).toEqual(['items are unique']);
    expect(r.paths).toEqual(['/a/uniqueItems', '/a/contains', '/a/minContains', '/a/additionalItems']);
    expect(run({ items: { type: 'string' }, uniqueItems: false, minItems: -1 }).paths).toEqual([
      '/a/minItems',
      '/a/uniqueItems',
    ]);
  });
});
