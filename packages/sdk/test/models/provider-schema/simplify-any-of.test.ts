import { describe, expect, it } from 'vitest';
import { simplifyAnyOf } from '../../../src/models/provider-schema/simplify-any-of';
import { rewrite, rules } from './rewrite';

const run = (branches: Record<string, unknown>[]) => {
  const ctx = rewrite();
  return { out: simplifyAnyOf(ctx, branches, '/u'), rules: rules(ctx.rewrites) };
};

describe('simplifyAnyOf', () => {
  it('unwraps a single branch', () => {
    expect(run([{ type: 'string' }])).toEqual({ out: { type: 'string' }, rules: [] });
  });
  it('flattens nested anyOf and removes duplicates', () => {
    expect(run([{ anyOf: [{ type: 'null' }, { type: 'string' }], title: 'x' }, { type: 'null' }]).out).toEqual({
      anyOf: [{ type: 'null' }, { type: 'string' }],
    });
    expect(run([{ anyOf: [{ type: 'null' }], default: 1 }, { type: 'string' }]).out).toEqual({
      anyOf: [{ anyOf: [{ type: 'null' }], default: 1 }, { type: 'string' }],
    });
  });
  it('merges string enums into one at the place of the first', () => {
    expect(
      run([
        { type: 'null' },
        { type: 'string', enum: ['a'] },
        { type: 'integer' },
        { type: 'string', enum: ['b', 'a'] },
      ]),
    ).toEqual({
      out: { anyOf: [{ type: 'null' }, { type: 'string', enum: ['a', 'b'] }, { type: 'integer' }] },
      rules: ['enum-merged'],
    });
    expect(
      run([
        { type: 'string', enum: ['a'] },
        { type: 'string', enum: ['b'] },
      ]).out,
    ).toEqual({ type: 'string', enum: ['a', 'b'] });
  });
  it('does not merge enums that carry other constraints', () => {
    expect(
      run([
        { type: 'string', enum: ['a'], pattern: 'a' },
        { type: 'string', enum: ['b'] },
      ]).rules,
    ).toEqual([]);
  });
});
