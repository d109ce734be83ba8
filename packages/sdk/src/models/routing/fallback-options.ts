// The option shape of one fallback entry (`createAgentHost({ model: { fallbacks: [...] } })`).
import type { ModelProviderConfig } from '../factory';
import type { ModelProvider, ThinkingLevel } from '../types';

/**
 * One entry of `model.fallbacks`: the provider and model a turn is retried on after the entries before it failed
 * with a transient error (429, 529/5xx, 402, unreachable, timeout; never 400, 401/403 or context overflow).
 *
 * @remarks
 * `provider` is a full provider configuration (`{ provider: 'openai-compatible', baseUrl, apiKey }`) or an
 * instance, with its own keys. `maxTokens` and `thinking` apply to this entry's calls only and default to the
 * primary's (`model.maxTokens`, `model.thinking`). An entry with the same provider kind, base URL and model as the
 * primary or an earlier entry is refused (`OPTIONS_INVALID`): it would send the same request to the same failing
 * endpoint. See docs/providers.md#fallback-chains.
 * @public
 */
export interface FallbackModel {
  /** A provider instance or a configuration (`createModelProvider`'s argument). */
  provider: ModelProvider | ModelProviderConfig;
  /** Model id sent to this provider, e.g. `gpt-4.1-mini` or a local `qwen3:8b`. Required, non-empty. */
  model: string;
  /** Output limit per call of this entry, in tokens. @defaultValue `model.maxTokens` */
  maxTokens?: number;
  /** Reasoning effort of this entry's calls. @defaultValue `model.thinking` */
  thinking?: ThinkingLevel;
}
