import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dedupeProblems } from '../../../src/models/provider-schema/dedupe-problems';

describe('dedupeProblems', () => {
  it('keeps the first problem of each rule and path, in order', () => {
    const problems = [
      { rule: 'a', path: '/x', message: '1' },
      { rule: 'a', path: '/y', message: '2' },
      { rule: 'a', path: '/x', message: '3' },
      { rule: 'b', path: '/x', message: '4' },
    ];
    expect(dedupeProblems(problems).map((p) => p.message)).toEqual(['1', '2', '4']);
    expect(problems).toHaveLength(4);
  });
  it('does not confuse rule and path boundaries', () => {
    const problems = [
      { rule: 'a', path: 'b/c', message: '1' },
      { rule: 'ab', path: '/c', message: '2' },
    ];
    expect(dedupeProblems(problems)).toHaveLength(2);
  });
  it('is idempotent and leaves no two problems with the same rule and path', () => {
    const problem = fc.record({
      rule: fc.constantFrom('a', 'b'),
      path: fc.constantFrom('', '/x'),
      message: fc.string(),
    });
    fc.assert(
      fc.property(fc.array(problem), (list) => {
        const once = dedupeProblems(list);
        expect(dedupeProblems(once)).toEqual(once);
        expect(new Set(once.map((p) => `${p.rule} ${p.path}`)).size).toBe(once.length);
        expect(new Set(list.map((p) => `${p.rule} ${p.path}`)).size).toBe(once.length);
      }),
    );
  });
});
