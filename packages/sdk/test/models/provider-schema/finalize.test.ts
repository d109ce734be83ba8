import { describe, expect, it } from 'vitest';
import { finalize } from '../../../src/models/provider-schema/finalize';
import { rewrite } from './rewrite';

describe('finalize', () => {
  it('removes required names without a declared property, at every level', () => {
    const ctx = rewrite();
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'object', properties: { x: { type: 'string' } }, required: ['x', 'y'] },
        l: { type: 'array', items: { type: 'object', required: ['z'] } },
        u: { anyOf: [{ type: 'object', properties: {}, required: ['q'] }, { type: 'null' }] },
      },
      required: ['a', 'gone'],
    };
    finalize(ctx, schema, '');
    expect(schema.required).toEqual(['a']);
    expect(schema.properties.a.required).toEqual(['x']);
    expect(schema.properties.l.items).toEqual({ type: 'object' });
    expect(schema.properties.u.anyOf[0]).toEqual({ type: 'object', properties: {} });
    expect(ctx.rewrites.map((r) => r.path)).toEqual([
      '/required',
      '/properties/a/required',
      '/properties/l/items/required',
      '/properties/u/anyOf/0/required',
    ]);
  });
  it('prunes keywords of other types and leaves a clean schema unchanged', () => {
    const ctx = rewrite();
    const mixed = { type: 'string', minimum: 1 };
    finalize(ctx, mixed, '');
    expect(mixed).toEqual({ type: 'string' });
    const clean = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    finalize(ctx, clean, '');
    expect(clean).toEqual({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
    expect(ctx.rewrites).toEqual([]);
  });
});
