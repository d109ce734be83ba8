import { describe, expect, it } from 'vitest';
import type { TokenCounter } from '../../src/models/token-counter';
import { TiktokenCounter } from '../../src/models/token-counter';
import { fitTokens } from '../../src/runtime/context/fit-tokens';

/** One token per character. */
const chars: TokenCounter = { count: (text) => text.length, countRequest: () => 0 };

describe('fitTokens', () => {
  it('keeps a text that fits', () => {
    expect(fitTokens(chars, undefined, 'short', 5)).toBe('short');
  });

  it('cuts a text over the budget until it fits, with the truncation marker', () => {
    const text = 'y'.repeat(1000);
    const out = fitTokens(chars, undefined, text, 200);
    expect(out.length).toBeLessThanOrEqual(200);
    expect(out.startsWith('y')).toBe(true);
    expect(out).toContain('more characters]');
  });

  it('with a real counter the result fits the budget', () => {
    const counter = new TiktokenCounter();
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(200);
    const out = fitTokens(counter, 'gpt-4o', text, 100);
    expect(counter.count(out, 'gpt-4o')).toBeLessThanOrEqual(100);
  });

  it('gives up after 8 tries: nothing but the marker is left', () => {
    // a counter that never reports a fit
    const stubborn: TokenCounter = { count: () => 1_000, countRequest: () => 0 };
    expect(fitTokens(stubborn, undefined, 'abc', 10)).toBe('… [truncated, 3 more characters]');
  });
});
