// The most one model call can cost, reserved before it is sent (docs/budgets.md).
import type { BudgetAmounts } from '../../core/budget-records';
import { costOf, type ModelPrice } from '../../models/cost';

/**
 * Output tokens assumed for a call when the host set no `model.maxTokens`: the reservation's worst case. The
 * reservation settles to the real usage after the call.
 * @public
 */
export const DEFAULT_RESERVED_OUTPUT_TOKENS = 8_192;

/**
 * The worst case of one model call: 1 model call, the request's estimated input tokens plus its max output
 * tokens, priced with the model's price (0 USD when the price is unknown). A pure function.
 * @param inputTokens - the runtime's estimate of the request (system prompt, messages, tools)
 * @param maxOutputTokens - the request's max output tokens (`model.maxTokens`, else {@link DEFAULT_RESERVED_OUTPUT_TOKENS})
 * @param price - the model's price, when known
 * @public
 */
export function worstCaseOf(
  inputTokens: number,
  maxOutputTokens: number,
  price: ModelPrice | undefined,
): BudgetAmounts {
  const input = Math.max(0, Math.ceil(inputTokens));
  const output = Math.max(0, Math.ceil(maxOutputTokens));
  return {
    runs: 0,
    modelCalls: 1,
    tokens: input + output,
    costUsd: price
      ? costOf({ inputTokens: input, outputTokens: output, cacheReadTokens: 0, cacheWriteTokens: 0 }, price)
      : 0,
  };
}

/**
 * What a finished call cost: 1 model call, input plus output tokens as the provider reported them (the same sum
 * a run's `maxTokensPerRun` counts), the cost in USD.
 * @public
 */
export function spentOf(usage: { inputTokens: number; outputTokens: number; costUsd: number }): BudgetAmounts {
  return { runs: 0, modelCalls: 1, tokens: usage.inputTokens + usage.outputTokens, costUsd: usage.costUsd };
}
