import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LOOP_GUARD_CODES } from '../../src/runtime/guardrails/codes';
import { resultRepeats, sameResultNotice, sameResultRefusal } from '../../src/runtime/guardrails/same-results';

describe('same results', () => {
  it('counts repeats of one fingerprint and starts again at a different one', () => {
    expect(resultRepeats(undefined, 'f')).toBe(1);
    expect(resultRepeats({ fingerprint: 'f', count: 3 }, 'f')).toBe(4);
    expect(resultRepeats({ fingerprint: 'f', count: 3 }, 'g')).toBe(1);
  });

  it('the count is the length of the trailing run of equal fingerprints', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('x', 'y'), { minLength: 1, maxLength: 30 }), (prints) => {
        let previous: { fingerprint: string; count: number } | undefined;
        for (const p of prints) previous = { fingerprint: p, count: resultRepeats(previous, p) };
        const last = prints[prints.length - 1];
        let trailing = 0;
        for (let i = prints.length - 1; i >= 0 && prints[i] === last; i--) trailing++;
        expect(previous?.count).toBe(trailing);
      }),
    );
  });

  it('warns from sameResultWarnAt and refuses from sameResultBlockAt', () => {
    const config = { sameResultWarnAt: 2, sameResultBlockAt: 5 };
    expect(sameResultNotice('t', 1, config)).toBeUndefined();
    expect(sameResultNotice('t', 2, config)).toMatchObject({
      level: 'warn',
      code: LOOP_GUARD_CODES.sameResult,
      count: 2,
    });
    expect(sameResultNotice('t', 2, config)?.message).toContain('after 5 repeats the call is refused');
    expect(sameResultRefusal('t', 4, 5)).toBeUndefined();
    expect(sameResultRefusal('t', 5, 5)).toMatchObject({ code: LOOP_GUARD_CODES.sameResult, count: 5 });
  });
});
