import { describe, expect, it } from 'vitest';
import { rootObject } from '../../../src/models/provider-schema/root-object';
import { rewrite, rules } from './rewrite';

const run = (schema: Record<string, unknown>, original: Record<string, unknown> = schema) => {
  const ctx = rewrite();
  const out = rootObject(ctx, schema, original);
  return { out, rules: rules(ctx.rewrites), problems: ctx.problems.map((p) => `${p.rule} ${p.path}`) };
};

describe('rootObject', () => {
  it('keeps an object root as it is', () => {
    const s = { type: 'object', properties: {} };
    expect(run(s).out).toBe(s);
  });
  it('makes an untyped root an object', () => {
    expect(run({ description: 'd' }).out).toEqual({ description: 'd', type: 'object' });
  });
  it('keeps the object alternatives of a root union', () => {
    expect(
      run({ anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'string' }], title: 'T' }),
    ).toEqual({
      out: { type: 'object', properties: { a: { type: 'string' } }, title: 'T' },
      rules: ['root-non-object-branch'],
      problems: [],
    });
    const two = run({
      anyOf: [
        { type: 'object', properties: { a: {} } },
        { type: 'object', properties: { b: {} } },
      ],
    });
    expect(two.rules).toEqual(['root-union']);
    expect(Object.keys(two.out.properties as object)).toEqual(['a', 'b']);
  });
  it('refuses a root with no object alternative', () => {
    expect(run({ anyOf: [{ type: 'string' }, { type: 'null' }] }).problems).toEqual(['root-not-object ']);
    expect(run({ type: 'string' }).problems).toEqual(['root-not-object /type']);
    expect(run({ anyOf: [{ type: 'string' }], type: 'string' }, {}).problems).toEqual(['root-not-object ']);
  });
});
