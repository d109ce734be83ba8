// createModelProvider(): a provider from plain configuration (settings files, `provider: 'scripted'`).
import { MediaAgentError } from '../core/errors';
import { AnthropicProvider, type AnthropicProviderOptions } from './anthropic';
import { OpenAICompatibleProvider, type OpenAICompatibleProviderOptions } from './openai-compatible';
import { checkProviderConfig } from './provider-config';
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
 * Builds a provider from plain configuration (a settings file, environment variables), so a host need not
 * import each provider class. The provider makes no request until its first `stream()` call.
 * @param config - `{ provider: 'anthropic' | 'openai-compatible' | 'scripted', ...options }`; the options are
 *   those of the provider's class (API key, base URL, timeouts, retries)
 * @returns the provider
 * @throws `PROVIDER_UNKNOWN` ({@link MediaAgentError}) for any other `provider` value (the message lists the names);
 *   `OPTIONS_INVALID` when `config` is not an object (a bare name such as `'anthropic'` included) or one of its
 *   options is unknown, missing (`apiKey` of `anthropic`) or of the wrong type, naming it (`config.apiKey`)
 *
 * @example
 * ```ts
 * import { createAgentHost, createModelProvider } from '@media-agent/sdk';
 *
 * const provider = createModelProvider({
 *   provider: 'openai-compatible',
 *   baseUrl: process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
 *   apiKey: process.env.OPENAI_API_KEY!,
 * });
 * const host = createAgentHost({ model: { provider, model: 'gpt-4.1-mini' } });
 * ```
 * @public
 */
export function createModelProvider(config: ModelProviderConfig): ModelProvider {
  return modelProviderFrom(config, 'config');
}

/**
 * {@link createModelProvider} with the option path its messages name (`model.provider` for `createAgentHost`).
 * @internal
 */
export function modelProviderFrom(config: unknown, path: string): ModelProvider {
  const kind = checkProviderConfig(config, path);
  const options = config as ModelProviderConfig;
  switch (kind) {
    case 'anthropic':
      return new AnthropicProvider(options as AnthropicProviderOptions);
    case 'openai-compatible':
      return new OpenAICompatibleProvider(options as OpenAICompatibleProviderOptions);
    case 'scripted':
      return new ScriptedProvider(options as ScriptedProviderOptions);
  }
}
