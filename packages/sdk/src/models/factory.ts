// createModelProvider(): a provider from plain configuration (settings files, `provider: 'scripted'`).
import { MediaAgentError } from '../core/errors';
import { AnthropicProvider, type AnthropicProviderOptions } from './anthropic';
import { OpenAICompatibleProvider, type OpenAICompatibleProviderOptions } from './openai-compatible';
import { ScriptedProvider, type ScriptedProviderOptions } from './scripted';
import type { ModelProvider } from './types';

/**
 * Plain configuration of a model provider, discriminated by `provider`. `fake` is accepted as an
 * alias of `scripted`.
 *
 * @public
 */
export type ModelProviderConfig =
  | ({ provider: 'anthropic' } & AnthropicProviderOptions)
  | ({ provider: 'openai-compatible' } & OpenAICompatibleProviderOptions)
  | ({ provider: 'scripted' | 'fake' } & ScriptedProviderOptions);

/**
 * Builds a provider from configuration.
 * @param config - `{ provider: 'anthropic' | 'openai-compatible' | 'scripted', ...options }`
 * @returns the provider
 * @throws MediaAgentError `PROVIDER_UNKNOWN` for any other `provider` value
 * @public
 */
export function createModelProvider(config: ModelProviderConfig): ModelProvider {
  switch (config.provider) {
    case 'anthropic':
      return new AnthropicProvider(config);
    case 'openai-compatible':
      return new OpenAICompatibleProvider(config);
    case 'scripted':
    case 'fake':
      return new ScriptedProvider(config);
    default:
      throw new MediaAgentError('PROVIDER_UNKNOWN', `unknown model provider "${String((config as { provider?: unknown }).provider)}"`, {
        provider: String((config as { provider?: unknown }).provider),
      });
  }
}
