// The checks of `model.fallbacks` and `model.fallbackCooldownMs` at createAgentHost: shapes, provider names,
// and no entry that repeats the endpoint of the primary or of an earlier entry.
import { MediaAgentError } from '../../core/errors';
import { checkProviderConfig } from '../provider-config';
import { apiRootOf } from './endpoint-url';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInstance = (v: unknown): v is { id?: unknown; baseUrl?: unknown; stream: unknown } =>
  typeof v === 'object' && v !== null && typeof (v as { stream?: unknown }).stream === 'function';
const ENTRY_KEYS = ['provider', 'model', 'maxTokens', 'thinking'];
const LEVELS = ['off', 'low', 'medium', 'high'];

function invalid(option: string, message: string): MediaAgentError {
  return new MediaAgentError('OPTIONS_INVALID', `option ${option} ${message}`, { option });
}

/**
 * The endpoint a provider and model call: provider kind (an instance's `id`; a configuration's provider with the
 * dialect of an OpenAI-compatible one, `openai` when omitted), its normalized API root (`apiRootOf`: the default
 * base URL when none is given, trailing slash and optional `/v1` suffix, host case and default port) and model
 * id. Two entries with the same endpoint send the same request to the same server.
 * @param provider - an instance or a checked configuration
 * @param model - the model id
 * @internal
 */
export function endpointOf(provider: unknown, model: string): string {
  if (isInstance(provider)) {
    const kind = String(provider.id);
    return `${kind}@${apiRootOf(kind, typeof provider.baseUrl === 'string' ? provider.baseUrl : undefined)}#${model}`;
  }
  const config = provider as Record<string, unknown>;
  const name = config.provider === 'fake' ? 'scripted' : String(config.provider);
  const dialect = typeof config.dialect === 'string' ? config.dialect : 'openai';
  const kind = name === 'openai-compatible' ? `${name}:${dialect}` : name;
  return `${kind}@${apiRootOf(kind, typeof config.baseUrl === 'string' ? config.baseUrl : undefined)}#${model}`;
}

/**
 * Checks `model.fallbacks` and `model.fallbackCooldownMs`.
 * @param model - `options.model` as given
 * @throws {@link MediaAgentError} `OPTIONS_INVALID` naming the path (`model.fallbacks`, `model.fallbacks[1].model`,
 *   `model.fallbacks[0]` for a duplicate endpoint, `model.fallbackCooldownMs`); `PROVIDER_UNKNOWN` for an entry
 *   naming no provider of the SDK, with `details.option` `model.fallbacks[i].provider` (as for `model.provider`)
 * @internal
 */
export function checkFallbacks(model: Record<string, unknown> | undefined): void {
  const cooldown = model?.fallbackCooldownMs;
  if (cooldown !== undefined && !(typeof cooldown === 'number' && Number.isFinite(cooldown) && cooldown >= 0))
    throw invalid(
      'model.fallbackCooldownMs',
      `must be a non-negative number of milliseconds (default 60000); got ${typeof cooldown === 'number' ? String(cooldown) : (JSON.stringify(cooldown) ?? String(cooldown))}`,
    );
  const fallbacks = model?.fallbacks;
  if (fallbacks === undefined) return;
  if (!Array.isArray(fallbacks))
    throw invalid(
      'model.fallbacks',
      `must be an array of { provider, model, maxTokens?, thinking? }; got ${fallbacks === null ? 'null' : typeof fallbacks}`,
    );
  if (model?.provider === undefined)
    throw invalid('model.fallbacks', 'needs model.provider: a chain falls back from a primary provider');
  const primaryModel = typeof model.model === 'string' ? model.model : 'scripted';
  const seen = new Map<string, string>([[endpointOf(model.provider, primaryModel), 'the primary (model.provider)']]);
  fallbacks.forEach((entry: unknown, i) => {
    const path = `model.fallbacks[${i}]`;
    if (!isObject(entry))
      throw invalid(
        path,
        `must be an object { provider, model, maxTokens?, thinking? }; got ${Array.isArray(entry) ? 'an array' : String(entry)}`,
      );
    for (const key of Object.keys(entry))
      if (!ENTRY_KEYS.includes(key))
        throw invalid(`${path}.${key}`, `is not an option of a fallback entry; known: ${ENTRY_KEYS.join(', ')}`);
    if (entry.provider === undefined)
      throw invalid(
        `${path}.provider`,
        "is missing: a provider instance or a configuration such as { provider: 'openai-compatible', baseUrl, apiKey }",
      );
    if (!isInstance(entry.provider)) checkProviderConfig(entry.provider, `${path}.provider`);
    if (typeof entry.model !== 'string' || entry.model.trim() === '')
      throw invalid(
        `${path}.model`,
        `must be a non-empty model id such as 'gpt-4.1-mini'; got ${JSON.stringify(entry.model) ?? 'undefined'}`,
      );
    const max = entry.maxTokens;
    if (max !== undefined && !(typeof max === 'number' && Number.isInteger(max) && max > 0))
      throw invalid(`${path}.maxTokens`, `must be a positive integer; got ${String(max)}`);
    if (entry.thinking !== undefined && !LEVELS.includes(entry.thinking as string))
      throw invalid(`${path}.thinking`, `must be off, low, medium or high; got ${String(entry.thinking)}`);
    const endpoint = endpointOf(entry.provider, entry.model);
    const earlier = seen.get(endpoint);
    if (earlier)
      throw invalid(
        path,
        `calls the same endpoint and model as ${earlier} (${endpoint.replace('#', ', model ')}): a fallback to the same failing endpoint never helps; name another provider, base URL or model`,
      );
    seen.set(endpoint, path);
  });
}
