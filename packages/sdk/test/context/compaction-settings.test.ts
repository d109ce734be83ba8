import { describe, expect, it } from 'vitest';
import { COMPACTION_DEFAULTS, compactionBudget } from '../../src/runtime/context/compaction-settings';
import { DEFAULT_CONTEXT_WINDOW_TOKENS } from '../../src/runtime/context/tool-discovery';

describe('compaction budget', () => {
  it('threshold at 80% and target at 50% of the window by default, rounded down', () => {
    expect(compactionBudget({ contextWindowTokens: 1001 })).toEqual({
      windowTokens: 1001,
      thresholdTokens: 800,
      targetTokens: 500,
      summaryMaxTokens: 100,
    });
    expect(compactionBudget({}).windowTokens).toBe(DEFAULT_CONTEXT_WINDOW_TOKENS);
  });

  it('the summary ceiling is min(4096, 10% of the window) unless given', () => {
    expect(compactionBudget({ contextWindowTokens: 200_000 }).summaryMaxTokens).toBe(
      COMPACTION_DEFAULTS.summaryMaxTokens,
    );
    expect(compactionBudget({ contextWindowTokens: 8000 }).summaryMaxTokens).toBe(800);
    expect(compactionBudget({ contextWindowTokens: 8000, summaryMaxTokens: 50 }).summaryMaxTokens).toBe(50);
  });

  it('takes the shares given', () => {
    expect(compactionBudget({ contextWindowTokens: 1000, thresholdShare: 0.9, targetShare: 0.3 })).toMatchObject({
      thresholdTokens: 900,
      targetTokens: 300,
    });
  });
});
