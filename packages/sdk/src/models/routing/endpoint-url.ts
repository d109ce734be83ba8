// The API root a provider calls, normalized, so that two spellings of the same server compare equal in the
// duplicate-entry check of `model.fallbacks` (check-fallbacks.ts). Pure: a function of the provider kind and
// the configured base URL.
import { joinApiUrl } from '../http';
import { OPENAI_DIALECTS } from '../openai-dialects';

/** The Messages API base URL `AnthropicProvider` uses when none is given (see `AnthropicProviderOptions.baseUrl`). */
const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** The path each known provider kind appends to its base URL for a model call. */
function callPathOf(kind: string): string | undefined {
  if (kind === 'anthropic') return 'messages';
  if (kind.startsWith('openai-compatible:')) return 'chat/completions';
  return undefined;
}

/** The base URL a known provider kind calls when none is given. */
function defaultBaseOf(kind: string): string | undefined {
  if (kind === 'anthropic') return ANTHROPIC_DEFAULT_BASE_URL;
  const dialect = kind.slice('openai-compatible:'.length);
  return (OPENAI_DIALECTS as Record<string, { defaultBaseUrl: string } | undefined>)[dialect]?.defaultBaseUrl;
}

/** Scheme and host in lower case, the scheme's default port dropped, no trailing slash (the path keeps its case). */
function canonicalUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${u.search}`;
  } catch {
    return url.replace(/\/+$/, '');
  }
}

/**
 * The API root a provider calls, normalized: the base URL, or the provider's default when none is given (the
 * dialect's `defaultBaseUrl`, `https://api.anthropic.com`), with the version segment the provider adds when it
 * is missing (`/v1`: `http://127.0.0.1:11434` and `http://127.0.0.1:11434/v1/` are one root), the call path a
 * base URL may already end with (`/chat/completions`, `/messages`) removed, scheme and host in lower case, the
 * default port dropped and no trailing slash.
 *
 * @param kind - `anthropic`, `openai-compatible:<dialect>` (the provider ids), or any other provider id (a
 *   custom instance: only its URL spelling is normalized)
 * @param baseUrl - the configured base URL; undefined for the provider's default
 * @returns the root, e.g. `http://127.0.0.1:11434/v1`, `https://api.anthropic.com/v1`; `default` for an
 *   unknown kind without a base URL
 * @internal
 */
export function apiRootOf(kind: string, baseUrl: string | undefined): string {
  const path = callPathOf(kind);
  const given = baseUrl?.trim() ? baseUrl.trim() : undefined;
  const base = given ?? (path ? defaultBaseOf(kind) : undefined);
  if (base === undefined) return 'default';
  if (!path) return canonicalUrl(base);
  const call = joinApiUrl(base, path);
  return canonicalUrl(call.slice(0, -(path.length + 1)));
}
