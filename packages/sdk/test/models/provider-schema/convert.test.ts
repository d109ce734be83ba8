import { describe, expect, it } from 'vitest';
import { anyValue } from '../../../src/models/provider-schema/any-value';
import { convert } from '../../../src/models/provider-schema/convert';
import { MAX_NODES } from '../../../src/models/provider-schema/rewrite-context';
import { rewrite, rules } from './rewrite';

const run = (input: unknown, root: Record<string, unknown> = {}) => {
  const ctx = rewrite(root);
  const out = convert(ctx, input, '', []);
  return { out, rules: rules(ctx.rewrites), problems: rules(ctx.problems), ctx };
};

describe('convert', () => {
  it('writes true and untyped schemas as any value, refuses false and non-schemas', () => {
    expect(run(true)).toMatchObject({ out: anyValue(), rules: ['any-value'] });
    expect(run({ description: 'x' }).out).toEqual({ ...anyValue(), description: 'x' });
    expect(run(false)).toMatchObject({ out: anyValue(), problems: ['schema-invalid'] });
    expect(run(3).problems).toEqual(['schema-invalid']);
  });
  it('inlines $refs with their siblings, and refuses recursive or unresolved ones', () => {
    const root = { $defs: { S: { type: 'string', minLength: 1 } } };
    expect(run({ $ref: '#/$defs/S', description: 'd', $comment: 'c' }, root)).toMatchObject({
      out: { type: 'string', minLength: 1, description: 'd' },
      rules: ['ref-inlined'],
    });
    const cyclic = { type: 'object', properties: { next: { $ref: '#' } } };
    const r = run(cyclic, cyclic);
    expect(r.problems).toEqual(['ref-recursive']);
    expect(r.ctx.problems[0]?.path).toBe('/properties/next/$ref');
    expect(run({ $ref: '#/nope' }, root).problems).toEqual(['ref-unresolved']);
    expect(run({ $dynamicRef: '#m' }).problems).toEqual(['ref-recursive']);
  });
  it('drops meta keywords', () => {
    expect(run({ type: 'null', $id: 'x', $schema: 's', $defs: {} })).toMatchObject({
      out: { type: 'null' },
      rules: ['meta-dropped', 'meta-dropped', 'meta-dropped'],
    });
  });
  it('merges allOf, writes oneOf as anyOf and applies sibling constraints to each branch', () => {
    expect(run({ allOf: [{ type: 'integer', minimum: 0 }, { maximum: 9 }] }).out).toEqual({
      type: 'integer',
      minimum: 0,
      maximum: 9,
    });
    const r = run({ type: 'string', maxLength: 5, oneOf: [{ minLength: 1 }, { enum: ['x'] }] });
    expect(r.rules).toContain('one-of');
    expect(r.out).toEqual({
      anyOf: [
        { type: 'string', minLength: 1, maxLength: 5 },
        { type: 'string', enum: ['x'], maxLength: 5 },
      ],
    });
    expect(run({ anyOf: {} }).problems).toEqual(['schema-invalid']);
  });
  it('writes nullable: true as a union with null, once', () => {
    expect(run({ type: 'string', nullable: true, title: 'T' })).toMatchObject({
      out: { anyOf: [{ type: 'string' }, { type: 'null' }], title: 'T' },
      rules: ['nullable'],
    });
    expect(run({ type: 'null', nullable: true }).out).toEqual({ type: 'null' });
    expect(run({ type: 'string', nullable: false })).toMatchObject({ out: { type: 'string' }, rules: ['nullable'] });
  });
  it('refuses, once, a schema that expands to more than MAX_NODES nodes', () => {
    const ctx = rewrite();
    ctx.nodes = MAX_NODES - 1;
    const out = convert(ctx, { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } }, '', []);
    expect(rules(ctx.problems)).toEqual(['schema-too-large']);
    expect(out.properties).toEqual({ a: anyValue(), b: anyValue() });
  });
});
