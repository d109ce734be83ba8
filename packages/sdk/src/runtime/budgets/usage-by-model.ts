// A run's model usage per provider and model (`RunUsage.byModel`): one attempt's figures, and their sum.
import type { ModelCallUsage, RunUsage } from '../../core/run-records';

/**
 * The usage delta of one model call charged to its provider and model: the run's totals and the `byModel` entry
 * under `key` (`<provider id>/<model>`) move by the same figures, so a call is never counted twice.
 * @param key - `<provider id>/<model>` of the provider that made the call
 * @param call - what the provider reported (0 tokens for a call that failed before any usage)
 * @internal
 */
export function modelCallUsage(
  key: string,
  call: { inputTokens: number; outputTokens: number; costUsd: number },
): Partial<RunUsage> {
  const figures: ModelCallUsage = {
    inputTokens: call.inputTokens,
    outputTokens: call.outputTokens,
    costUsd: call.costUsd,
    modelCalls: 1,
  };
  return {
    modelCalls: 1,
    inputTokens: call.inputTokens,
    outputTokens: call.outputTokens,
    costUsd: call.costUsd,
    byModel: { [key]: figures },
  };
}

/**
 * Adds two `byModel` maps entry by entry.
 * @returns the sum, or undefined when both are absent
 * @internal
 */
export function mergeByModel(
  a: Readonly<Record<string, ModelCallUsage>> | undefined,
  b: Readonly<Record<string, ModelCallUsage>> | undefined,
): Record<string, ModelCallUsage> | undefined {
  if (!b) return a ? { ...a } : undefined;
  const out: Record<string, ModelCallUsage> = { ...(a ?? {}) };
  for (const [key, d] of Object.entries(b)) {
    const u = out[key] ?? { inputTokens: 0, outputTokens: 0, costUsd: 0, modelCalls: 0 };
    out[key] = {
      inputTokens: u.inputTokens + d.inputTokens,
      outputTokens: u.outputTokens + d.outputTokens,
      costUsd: u.costUsd + d.costUsd,
      modelCalls: u.modelCalls + d.modelCalls,
    };
  }
  return out;
}
