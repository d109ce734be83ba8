// Where the start-up model check asks a provider entry for its models, from a provider instance or configuration.
import { AnthropicProvider } from '../anthropic';
import type { ModelProviderConfig } from '../factory';
import { joinApiUrl } from '../http';
import { OPENAI_DIALECTS, type OpenAIDialect } from '../openai-dialects';
import { OpenAICompatibleProvider } from '../openai-compatible';
import type { ModelProvider } from '../types';
import { isLocalDialect } from './local-dialects';

/** What the start-up check asks, for one provider entry. @internal */
export interface ModelCheckTarget {
  /** Provider id, e.g. `openai-compatible:ollama`, `anthropic`. */
  provider: string;
  /** Dialect name of an OpenAI-compatible provider (`ollama`, …); `anthropic` for Anthropic. */
  dialect: string;
  /** Whether the dialect is a local server's ({@link isLocalDialect}). */
  local: boolean;
  /** The configured base URL (or the dialect's default). */
  baseUrl: string;
  /** The list URLs, asked in order while one answers 404 (Ollama: `/v1/models`, then `/api/tags`). */
  listUrls: string[];
  /** Headers of the provider's requests (its key only when one is given). */
  headers: Record<string, string>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function openAITarget(dialect: OpenAIDialect, baseUrl: string, headers: Record<string, string>): ModelCheckTarget {
  const listUrls = [joinApiUrl(baseUrl, 'models')];
  // Ollama's own list, for a server (or a proxy in front of it) without the OpenAI-compatible /v1/models.
  if (dialect.name === 'ollama') listUrls.push(`${baseUrl.trim().replace(/\/+$/, '').replace(/\/v1$/, '')}/api/tags`);
  return {
    provider: `openai-compatible:${dialect.name}`,
    dialect: dialect.name,
    local: isLocalDialect(dialect.name),
    baseUrl,
    listUrls,
    headers,
  };
}

/**
 * The check target of a provider instance or configuration, or `undefined` for a provider that has no
 * model list to ask (the scripted provider, a custom `ModelProvider`).
 * @param provider - `model.provider` (or a fallback entry's `provider`)
 * @internal
 */
export function checkTargetOf(provider: ModelProvider | ModelProviderConfig | undefined): ModelCheckTarget | undefined {
  if (provider instanceof OpenAICompatibleProvider)
    return openAITarget(provider.dialect, provider.baseUrl, provider.requestHeaders());
  if (provider instanceof AnthropicProvider) {
    return {
      provider: 'anthropic',
      dialect: 'anthropic',
      local: false,
      baseUrl: provider.baseUrl,
      listUrls: [`${joinApiUrl(provider.baseUrl, 'models')}?limit=1000`],
      headers: provider.requestHeaders(),
    };
  }
  if (!isObject(provider) || typeof provider.stream === 'function') return undefined;
  const config = provider as ModelProviderConfig;
  if (config.provider === 'openai-compatible') {
    const dialect = typeof config.dialect === 'object' ? config.dialect : OPENAI_DIALECTS[config.dialect ?? 'openai'];
    const headers: Record<string, string> = { ...config.headers };
    if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
    return openAITarget(dialect, config.baseUrl ?? dialect.defaultBaseUrl, headers);
  }
  if (config.provider === 'anthropic') {
    const baseUrl = config.baseUrl ?? 'https://api.anthropic.com';
    return {
      provider: 'anthropic',
      dialect: 'anthropic',
      local: false,
      baseUrl,
      listUrls: [`${joinApiUrl(baseUrl, 'models')}?limit=1000`],
      headers: {
        ...config.headers,
        'x-api-key': config.apiKey,
        'anthropic-version': config.apiVersion ?? '2023-06-01',
      },
    };
  }
  return undefined;
}
