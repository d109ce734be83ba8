// Cost of model calls from a configurable price table, accumulated per run.
import type { ModelUsage } from './types';

/**
 * Prices of one model in USD per million tokens.
 *
 * @public
 */
export interface ModelPrice {
  /** Uncached input, USD per 1M tokens. */
  input: number;
  /** Output (including reasoning), USD per 1M tokens. */
  output: number;
  /** Prompt-cache reads, USD per 1M tokens (default: `input`). */
  cacheRead?: number;
  /** Prompt-cache writes, USD per 1M tokens (default: `input`). */
  cacheWrite?: number;
}

/**
 * A price table: model id or model-id prefix → price. The longest matching prefix wins, so
 * `claude-sonnet-4-5` prices `claude-sonnet-4-5-20250929`.
 *
 * @public
 */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * Default prices, USD per million tokens, as published on the providers' pricing pages
 * (Anthropic "Pricing" — cache write is the 5-minute rate; OpenAI "API pricing" — standard tier;
 * DeepSeek "Models & Pricing" — V3.2, cache hit / miss) in November 2025. Prices change: hosts
 * should pass their own table to {@link CostMeter}.
 *
 * @public
 */
export const DEFAULT_PRICES: PriceTable = Object.freeze({
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-3-7-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075 },
  o3: { input: 2, output: 8, cacheRead: 0.5 },
  'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275 },
  'deepseek-chat': { input: 0.28, output: 0.42, cacheRead: 0.028 },
  'deepseek-reasoner': { input: 0.28, output: 0.42, cacheRead: 0.028 },
});

/**
 * Finds the price of a model: exact id, else the longest table key that prefixes the id.
 * @param model - model id as sent to the provider
 * @param table - price table (default {@link DEFAULT_PRICES})
 * @returns the price, or `undefined` when the model is not in the table
 * @public
 */
export function priceFor(model: string, table: PriceTable = DEFAULT_PRICES): ModelPrice | undefined {
  const exact = table[model];
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(table)) if (model.startsWith(key) && (!best || key.length > best.length)) best = key;
  return best === undefined ? undefined : table[best];
}

/**
 * Cost of one call.
 * @param usage - token counts
 * @param price - USD per million tokens
 * @returns USD
 * @public
 */
export function costOf(usage: ModelUsage, price: ModelPrice): number {
  return (
    (usage.inputTokens * price.input +
      usage.outputTokens * price.output +
      usage.cacheReadTokens * (price.cacheRead ?? price.input) +
      usage.cacheWriteTokens * (price.cacheWrite ?? price.input)) /
    1_000_000
  );
}

/**
 * Accumulates tokens and cost over one run (or any scope the caller chooses).
 *
 * @public
 */
export class CostMeter {
  /** Total cost so far in USD (calls to unpriced models add 0). */
  totalUsd = 0;
  /** Summed token counts. */
  readonly tokens: ModelUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  /** Number of calls recorded. */
  calls = 0;
  /** Models seen that the price table does not cover (their cost is unknown, counted as 0). */
  readonly unpricedModels = new Set<string>();

  /** @param table - price table (default {@link DEFAULT_PRICES}); pass your own to override */
  constructor(private readonly table: PriceTable = DEFAULT_PRICES) {}

  /**
   * Records one call's final usage.
   * @param model - model id
   * @param usage - the call's usage (the last `usage` event)
   * @returns the call's cost in USD (0 when unpriced)
   */
  add(model: string, usage: ModelUsage): number {
    this.calls++;
    this.tokens.inputTokens += usage.inputTokens;
    this.tokens.outputTokens += usage.outputTokens;
    this.tokens.cacheReadTokens += usage.cacheReadTokens;
    this.tokens.cacheWriteTokens += usage.cacheWriteTokens;
    const price = priceFor(model, this.table);
    if (!price) {
      this.unpricedModels.add(model);
      return 0;
    }
    const usd = costOf(usage, price);
    this.totalUsd += usd;
    return usd;
  }
}
