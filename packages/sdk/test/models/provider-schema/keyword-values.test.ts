import { describe, expect, it } from 'vitest';
import { countAt, dropKeyword, numberAt } from '../../../src/models/provider-schema/keyword-values';
import { rewrite } from './rewrite';

describe('numberAt', () => {
  it('reads numbers only', () => {
    expect(numberAt({ minimum: -1.5 }, 'minimum')).toBe(-1.5);
    expect(numberAt({ minimum: '1' }, 'minimum')).toBeUndefined();
    expect(numberAt({}, 'minimum')).toBeUndefined();
  });
});

describe('countAt', () => {
  it('reads non-negative integers only', () => {
    expect(countAt({ maxItems: 0 }, 'maxItems')).toBe(0);
    expect(countAt({ maxItems: 3 }, 'maxItems')).toBe(3);
    for (const v of [-1, 1.5, '2', null]) expect(countAt({ maxItems: v }, 'maxItems')).toBeUndefined();
  });
});

describe('dropKeyword', () => {
  it('records a keyword-dropped rewrite at the keyword', () => {
    const ctx = rewrite();
    dropKeyword(ctx, '/properties/a', 'multipleOf', 'not a number');
    expect(ctx.rewrites).toEqual([
      {
        rule: 'keyword-dropped',
        path: '/properties/a/multipleOf',
        message: 'multipleOf removed (not a number; the original schema still applies it)',
      },
    ]);
  });
});
