// The middleware's shortcut before each model call: compactionTotals gives the assessment's own total and
// threshold, so "at most the threshold" is exactly assessCompaction's `below_threshold`.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { TiktokenCounter } from '../../src/models/token-counter';
import type { ModelMessage } from '../../src/models/types';
import { UPDATE_PLAN_MODEL_TOOL } from '../../src/runtime/checklist';
import { assessCompaction, compactionTotals, type CompactionOptions } from '../../src/runtime/context/compaction';
import { longConversation } from './context-fixtures';

const counter = new TiktokenCounter();
afterAll(() => counter.dispose());

describe('compactionTotals', () => {
  it('agrees with assessCompaction on the total, the threshold and whether it is below it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 20, max: 600 }),
        fc.integer({ min: 1_000, max: 40_000 }),
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        fc.boolean(),
        fc.constantFrom('gpt-4o', 'claude-sonnet-4-5', undefined),
        (turns, resultChars, contextWindowTokens, thresholdShare, withFixed, model) => {
          const messages: ModelMessage[] = longConversation(turns, resultChars);
          const options: CompactionOptions = {
            counter,
            model,
            contextWindowTokens,
            thresholdShare,
            ...(withFixed
              ? { system: [{ role: 'system', content: 'You are the media agent.' }], tools: [UPDATE_PLAN_MODEL_TOOL] }
              : {}),
          };
          const totals = compactionTotals(messages, options);
          let assessment: ReturnType<typeof assessCompaction> | undefined;
          try {
            assessment = assessCompaction(messages, options);
          } catch {
            // A turn too large for the window: only ever over the threshold.
            expect(totals.totalTokens).toBeGreaterThan(totals.thresholdTokens);
            return;
          }
          expect(totals).toEqual({ totalTokens: assessment.totalTokens, thresholdTokens: assessment.thresholdTokens });
          expect(totals.totalTokens <= totals.thresholdTokens).toBe(assessment.reason === 'below_threshold');
        },
      ),
      { numRuns: 150 },
    );
  });
});
