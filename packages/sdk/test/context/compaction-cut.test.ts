import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactionCut, type CutFigures } from '../../src/runtime/context/compaction-cut';
import { ContextTurnTooLargeError } from '../../src/runtime/context/turn-too-large';

const figures = (patch: Partial<CutFigures> = {}): CutFigures => ({
  fixedTokens: 10,
  pinnedTokens: 5,
  windowTokens: 100,
  targetTokens: 50,
  summaryMaxTokens: 10,
  ...patch,
});

describe('compactionCut', () => {
  it('cuts at the earliest boundary after which the request fits the target', () => {
    // messages of 20 tokens; suffix from 3 is 40: 10 + 5 + 10 + 40 = 65 > 50; from 4: 20 → 45 ≤ 50
    expect(compactionCut([20, 20, 20, 20, 20], [1, 3, 4], figures())).toEqual({
      cut: 4,
      summaryBudgetTokens: 10,
      expectedTokens: 45,
    });
  });

  it('falls back to the latest boundary, and the summary gets what the window leaves', () => {
    // the latest turn alone (60) is over the target: keep it, 100 − (10 + 5 + 60) = 25 left, capped at 10
    expect(compactionCut([20, 20, 60], [1, 2], figures())).toEqual({
      cut: 2,
      summaryBudgetTokens: 10,
      expectedTokens: 85,
    });
    expect(compactionCut([20, 20, 80], [1, 2], figures())).toEqual({
      cut: 2,
      summaryBudgetTokens: 5,
      expectedTokens: 100,
    });
  });

  it('returns null for one turn that fits the window', () => {
    expect(compactionCut([30, 30], [], figures())).toBeNull();
  });

  it('refuses a latest turn that does not fit the window, with its figures', () => {
    let thrown: unknown;
    try {
      compactionCut([20, 90], [1], figures());
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ContextTurnTooLargeError);
    expect((thrown as ContextTurnTooLargeError).details).toEqual({
      turnTokens: 90,
      fixedTokens: 10,
      pinnedTokens: 5,
      windowTokens: 100,
      from: 1,
      to: 2,
    });
    // without a boundary nothing would be summarized: the pinned facts do not count
    expect(() => compactionCut([91], [], figures())).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ pinnedTokens: 0 }) }),
    );
    expect(compactionCut([90], [], figures())).toBeNull();
  });

  it('the cut is a given boundary, and what is kept plus the summary stays within the window', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 2, maxLength: 15 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 50, max: 400 }),
        (tokens, fixedTokens, pinnedTokens, windowTokens) => {
          const boundaries = tokens.map((_, i) => i).filter((i) => i > 0 && i % 2 === 1);
          const f = figures({ fixedTokens, pinnedTokens, windowTokens, targetTokens: Math.floor(windowTokens / 2) });
          let result: ReturnType<typeof compactionCut>;
          try {
            result = compactionCut(tokens, boundaries, f);
          } catch (error) {
            expect(error).toBeInstanceOf(ContextTurnTooLargeError);
            return;
          }
          if (result === null) {
            expect(boundaries).toEqual([]);
            return;
          }
          expect(boundaries).toContain(result.cut);
          expect(result.summaryBudgetTokens).toBeGreaterThanOrEqual(0);
          expect(result.summaryBudgetTokens).toBeLessThanOrEqual(f.summaryMaxTokens);
          expect(result.expectedTokens).toBeLessThanOrEqual(windowTokens);
          const kept = tokens.slice(result.cut).reduce((a, b) => a + b, 0);
          expect(result.expectedTokens).toBe(fixedTokens + pinnedTokens + result.summaryBudgetTokens + kept);
        },
      ),
    );
  });
});
