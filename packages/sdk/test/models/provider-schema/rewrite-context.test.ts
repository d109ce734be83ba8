import { describe, expect, it } from 'vitest';
import { note, refuse } from '../../../src/models/provider-schema/rewrite-context';
import { rewrite } from './rewrite';

describe('note and refuse', () => {
  it('record rewrites and refusals separately, in order', () => {
    const ctx = rewrite();
    note(ctx, 'const', '/a', 'm1');
    refuse(ctx, 'ref-recursive', '/b', 'm2');
    note(ctx, 'one-of', '', 'm3');
    expect(ctx.rewrites).toEqual([
      { rule: 'const', path: '/a', message: 'm1' },
      { rule: 'one-of', path: '', message: 'm3' },
    ]);
    expect(ctx.problems).toEqual([{ rule: 'ref-recursive', path: '/b', message: 'm2' }]);
  });
});
