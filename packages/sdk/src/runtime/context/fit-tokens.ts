// Fitting a text into a token budget.
import type { TokenCounter } from '../../models/token-counter';
import { truncateText } from './message-text';

/**
 * Cuts a text to at most `max` tokens: by characters in proportion, re-counted, at most 8 times, then to nothing.
 * @param counter - the counter
 * @param model - model id (selects the encoding)
 * @param text - the text
 * @param max - most tokens
 * @internal
 */
export function fitTokens(counter: TokenCounter, model: string | undefined, text: string, max: number): string {
  let out = text;
  for (let i = 0; i < 8; i++) {
    const n = counter.count(out, model);
    if (n <= max) return out;
    const chars = Math.max(0, Math.floor((out.length * max) / n) - 64);
    out = truncateText(text, chars);
  }
  return truncateText(text, 0);
}
