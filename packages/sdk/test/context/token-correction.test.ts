// The per-provider correction of the runtime's token estimate: rules and the per-instance store.
import { describe, expect, it } from 'vitest';
import {
  correctionAfterOverflow,
  correctionAfterUsage,
  correctionScale,
  observeOverflow,
  observeUsage,
  TOKEN_CORRECTION,
  tokenCorrectionOf,
} from '../../src/runtime/context/token-correction';

const none = TOKEN_CORRECTION.none;

describe('correction after a successful call', () => {
  it('moves toward reported ÷ estimated by the smoothing weight (a server counting 1.3× tiktoken)', () => {
    const once = correctionAfterUsage(none, 10_000, 13_000);
    expect(once.ratio).toBeCloseTo(1 + 0.3 * 0.3, 6);
    let c = none;
    for (let i = 0; i < 40; i++) c = correctionAfterUsage(c, 10_000, 13_000);
    expect(c.ratio).toBeCloseTo(1.3, 3);
    expect(c.windowScale).toBe(1);
  });

  it('never scales an estimate down, stays bounded, and ignores missing figures', () => {
    expect(correctionAfterUsage(none, 10_000, 5_000).ratio).toBe(1);
    let c = none;
    for (let i = 0; i < 100; i++) c = correctionAfterUsage(c, 100, 100_000);
    expect(c.ratio).toBe(TOKEN_CORRECTION.maxRatio);
    const some = { ratio: 1.2, windowScale: 2, refused: false };
    expect(correctionAfterUsage(some, 0, 500)).toBe(some);
    expect(correctionAfterUsage(some, 500, 0)).toBe(some);
    expect(correctionAfterUsage(some, 1000, 1200).windowScale).toBe(2);
  });
});

describe('correction after an overflow', () => {
  it('takes the stated prompt size over the estimate', () => {
    // Anthropic "prompt is too long: 210118 tokens > 200000 maximum" for a request estimated at 161 629.
    const c = correctionAfterOverflow(none, {
      estimatedTokens: 161_629,
      windowTokens: 200_000,
      promptTokens: 210_118,
      limitTokens: 200_000,
    });
    expect(c.ratio).toBeCloseTo(210_118 / 161_629, 6);
    expect(c.windowScale).toBe(1);
    expect(161_629 * correctionScale(c)).toBeGreaterThan(200_000);
  });

  it('learns a window smaller than configured from the stated limit', () => {
    // llama.cpp: n_prompt_tokens 9000, n_ctx 8192 with 32 768 configured.
    const c = correctionAfterOverflow(none, {
      estimatedTokens: 9_000,
      windowTokens: 32_768,
      promptTokens: 9_000,
      limitTokens: 8_192,
    });
    expect(c.windowScale).toBeCloseTo(4, 6);
    expect(c.ratio).toBe(TOKEN_CORRECTION.overflowGrowth); // the counts agree: only the growth floor applies
  });

  it('without counts, the prompt was over the window: a lower bound with a margin', () => {
    const c = correctionAfterOverflow(none, { estimatedTokens: 100_000, windowTokens: 128_000 });
    expect(c.ratio).toBeCloseTo(1.28 * TOKEN_CORRECTION.boundMargin, 6);
  });

  it('every overflow shrinks the budget by at least the growth factor', () => {
    const first = correctionAfterOverflow(none, {
      estimatedTokens: 50_000,
      windowTokens: 100_000,
      promptTokens: 65_000,
    });
    const second = correctionAfterOverflow(first, {
      estimatedTokens: 50_000,
      windowTokens: 100_000,
      promptTokens: 65_000,
    });
    expect(second.ratio).toBeCloseTo(first.ratio * TOKEN_CORRECTION.overflowGrowth, 6);
    expect(correctionScale(second)).toBeGreaterThan(correctionScale(first));
  });

  it('successful calls after an overflow pull the ratio back toward what the provider reports, keeping the learned window', () => {
    let c = correctionAfterOverflow(none, {
      estimatedTokens: 9_000,
      windowTokens: 32_768,
      promptTokens: 9_000,
      limitTokens: 8_192,
    });
    for (let i = 0; i < 40; i++) c = correctionAfterUsage(c, 5_000, 5_000);
    expect(c.ratio).toBeCloseTo(1, 3);
    expect(c.windowScale).toBeCloseTo(4, 6);
  });
});

describe('the per-provider store', () => {
  it('keeps one correction per provider instance', () => {
    const a = {};
    const b = {};
    expect(tokenCorrectionOf(a)).toEqual(none);
    observeUsage(a, 1000, 1300);
    observeOverflow(a, { estimatedTokens: 1000, windowTokens: 1000, promptTokens: 1500 });
    expect(tokenCorrectionOf(a).ratio).toBeCloseTo(1.5, 6);
    expect(tokenCorrectionOf(b)).toEqual(none);
  });

  it('a correction from reported usage alone is a guess until the provider refuses a request as too large', () => {
    const p = {};
    expect(observeUsage(p, 1000, 1300).refused).toBe(false);
    expect(observeOverflow(p, { estimatedTokens: 1000, windowTokens: 4000, promptTokens: 5200 }).refused).toBe(true);
    expect(observeUsage(p, 1000, 1300).refused).toBe(true);
  });
});
