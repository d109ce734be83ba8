// Live and paired runs: a real model, N repetitions per scenario, the same seeds for both sides of a comparison.
import { createModelProvider, type ModelProviderConfig } from '../../models/factory';
import type { ModelProvider } from '../../models/types';
import { runScenario, type EvalRunResult } from './run-scenario';
import type { AnyEvalScenario } from './scenario';
import { EvalInputError } from './trajectory';

/** The model side of a live run: a provider, the model id, an optional system prompt, and a label. @public */
export interface EvalAgent {
  /** Label in reports (model id or prompt name). */
  label: string;
  /** The provider. */
  provider: ModelProvider;
  /** Model id. */
  model?: string;
  /** System prompt replacing the runtime's. */
  systemPrompt?: string;
}

/**
 * Provider configuration from environment variables, the names the examples use: `EVAL_PROVIDER`
 * (`anthropic` or `openai-compatible`; default: whichever key is set, Anthropic first),
 * `ANTHROPIC_API_KEY` / `ANTHROPIC_BASE_URL`, `OPENAI_API_KEY` / `OPENAI_BASE_URL` (default
 * `https://api.openai.com/v1`), and the model `EVAL_MODEL` (else `ANTHROPIC_MODEL` / `OPENAI_MODEL`,
 * else `claude-sonnet-4-5` / `gpt-4.1-mini`). Pure.
 * @param env - the environment (`process.env`)
 * @returns the provider configuration and the model id
 * @throws {@link EvalInputError} `EVAL_PROVIDER_NOT_CONFIGURED` when no key is set (one line saying which to set)
 * @public
 */
export function providerConfigFromEnv(env: Readonly<Record<string, string | undefined>>): {
  config: ModelProviderConfig;
  model: string;
} {
  const wanted = env.EVAL_PROVIDER;
  const anthropic = env.ANTHROPIC_API_KEY && (!wanted || wanted === 'anthropic');
  const openai = env.OPENAI_API_KEY && (!wanted || wanted === 'openai-compatible');
  if (anthropic)
    return {
      config: {
        provider: 'anthropic',
        apiKey: env.ANTHROPIC_API_KEY!,
        ...(env.ANTHROPIC_BASE_URL ? { baseUrl: env.ANTHROPIC_BASE_URL } : {}),
      },
      model: env.EVAL_MODEL ?? env.ANTHROPIC_MODEL ?? 'claude-sonnet-4-5',
    };
  if (openai)
    return {
      config: {
        provider: 'openai-compatible',
        apiKey: env.OPENAI_API_KEY!,
        baseUrl: env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
      },
      model: env.EVAL_MODEL ?? env.OPENAI_MODEL ?? 'gpt-4.1-mini',
    };
  throw new EvalInputError(
    'EVAL_PROVIDER_NOT_CONFIGURED',
    `live evaluation needs a model: set ANTHROPIC_API_KEY or OPENAI_API_KEY (and EVAL_MODEL)${wanted ? ` for EVAL_PROVIDER=${wanted}` : ''}`,
    { provider: wanted ?? null },
  );
}

/** Builds an {@link EvalAgent} from the environment (see {@link providerConfigFromEnv}). @public */
export function agentFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  overrides: { model?: string; systemPrompt?: string; label?: string } = {},
): EvalAgent {
  const { config, model } = providerConfigFromEnv(env);
  const m = overrides.model ?? model;
  return {
    label: overrides.label ?? m,
    provider: createModelProvider(config),
    model: m,
    ...(overrides.systemPrompt ? { systemPrompt: overrides.systemPrompt } : {}),
  };
}

/**
 * Runs every scenario `repetitions` times with each agent, seeds 0 … repetitions-1, one run at a time;
 * with two agents each seed is run by both (a paired comparison).
 * @param scenarios - the scenarios
 * @param agents - one agent (live) or two (compare)
 * @param options - `repetitions` (default 3), `timeoutMs` per run (default 300 000), `onResult` after each run
 * @returns every result, in run order
 * @public
 */
export async function runLive(
  scenarios: ReadonlyArray<AnyEvalScenario>,
  agents: readonly EvalAgent[],
  options: { repetitions?: number; timeoutMs?: number; onResult?: (r: EvalRunResult) => void } = {},
): Promise<EvalRunResult[]> {
  const out: EvalRunResult[] = [];
  for (const scenario of scenarios)
    for (let seed = 0; seed < (options.repetitions ?? 3); seed++)
      for (const agent of agents) {
        const r = await runScenario(scenario, {
          provider: agent.provider,
          ...(agent.model ? { model: agent.model } : {}),
          ...(agent.systemPrompt ? { systemPrompt: agent.systemPrompt } : {}),
          seed,
          label: agent.label,
          timeoutMs: options.timeoutMs ?? 300_000,
        });
        out.push(r);
        options.onResult?.(r);
      }
  return out;
}
