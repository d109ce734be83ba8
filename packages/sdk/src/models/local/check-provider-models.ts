// The start-up model check: each provider entry's server answers its model list, as JSON, and lists the model.
// docs/providers.md#local-models
import { request } from 'undici';
import {
  ProviderAuthError,
  ProviderConnectionError,
  ProviderHttpError,
  ProviderProtocolError,
  ProviderTimeoutError,
} from '../errors';
import type { ModelProviderConfig } from '../factory';
import type { ModelProvider } from '../types';
import { resolveCheckArguments } from './check-options';
import { checkTargetOf, type ModelCheckTarget } from './check-target';
import { modelIdsOf, modelListed, shownList } from './model-list';
import { ModelNotFoundError } from './model-not-found-error';

/**
 * How long the start-up check waits for one entry's server (connect, answer and body, both list URLs of
 * Ollama together), in milliseconds: a local server answers its list in a few milliseconds, so a server
 * that takes longer is taken as not answering.
 * @public
 */
export const DEFAULT_MODEL_CHECK_TIMEOUT_MS = 5000;

/** How many characters of a body that is not JSON an error shows. */
const SHOWN_BYTES = 80;

/**
 * One entry the start-up check looks at: the primary model, or one entry of a fallback chain.
 * @public
 */
export interface ModelCheckEntry {
  /** The option path, for messages and `details.entry`: `model`, `model.fallbacks[0]`, … */
  path: string;
  /** The entry's provider: an instance or a configuration (`createModelProvider`'s argument). */
  provider: ModelProvider | ModelProviderConfig | undefined;
  /** The model id the entry sends. */
  model: string;
}

/**
 * Options of {@link checkProviderModels}.
 * @public
 */
export interface ModelCheckOptions {
  /**
   * Which entries are checked: `local` (the default) checks providers of a local dialect (Ollama, llama.cpp,
   * vLLM, LM Studio) only, so a cloud provider gets no request at start; `all` checks every provider that
   * has a model list (OpenAI-compatible and Anthropic; `model.checkOnStart: true`); `none` checks nothing.
   * @defaultValue `'local'`
   */
  which?: 'local' | 'all' | 'none';
  /**
   * Limit per entry, in milliseconds (connect, answer and body).
   * @defaultValue {@link DEFAULT_MODEL_CHECK_TIMEOUT_MS} (5000)
   */
  timeoutMs?: number;
}

/**
 * What the check found for one entry it looked at.
 * @public
 */
export interface ModelCheckResult {
  /** The entry's option path. */
  path: string;
  /** Provider id (`openai-compatible:ollama`, `anthropic`). */
  provider: string;
  /** The base URL asked. */
  baseUrl: string;
  /** The list URL that answered. */
  url: string;
  /** The model id, found on the list. */
  model: string;
  /** Every model id the server listed. */
  available: string[];
}

/**
 * A failed request's system error code (`ECONNREFUSED`, `ENOTFOUND`, `ETIMEDOUT`, …): on the error, its cause,
 * or the first of an `AggregateError` (Node tries each address of a name in turn).
 */
function causeCode(error: unknown, depth = 0): string | undefined {
  if (typeof error !== 'object' || error === null || depth > 3) return undefined;
  const e = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && !/^UND_ERR_/.test(e.code)) return e.code;
  if (Array.isArray(e.errors))
    for (const inner of e.errors) if (causeCode(inner, depth + 1)) return causeCode(inner, depth + 1);
  return causeCode(e.cause, depth + 1) ?? (typeof e.code === 'string' ? e.code : undefined);
}

/** A response header's value (the first of a repeated one), or `''`. */
function headerOf(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** The first bytes of a body, for messages (control characters shown as spaces). */
function firstBytes(text: string): string {
  let head = '';
  for (const ch of text.slice(0, SHOWN_BYTES)) head += ch < ' ' ? ' ' : ch;
  return text.length > SHOWN_BYTES ? `${head}…` : head;
}

/** One list URL's answer: the ids, or a 404 (the next URL is asked). */
async function askList(
  entry: ModelCheckEntry,
  target: ModelCheckTarget,
  url: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<string[] | 404> {
  const details = { entry: entry.path, provider: target.provider, baseUrl: target.baseUrl, url, model: entry.model };
  let status: number;
  let contentType: string;
  let location: string | undefined;
  let text: string;
  try {
    // undici, as the providers send: no fetch "bad port" list, and the system error code of a failed connection.
    const response = await request(url, {
      method: 'GET',
      headers: { ...target.headers, accept: 'application/json' },
      signal,
    });
    status = response.statusCode;
    contentType = headerOf(response.headers['content-type']);
    location = response.headers.location === undefined ? undefined : headerOf(response.headers.location);
    text = await response.body.text();
  } catch (error) {
    if (signal.aborted)
      throw new ProviderTimeoutError(
        `${entry.path}: the model server at ${target.baseUrl} did not answer ${url} within ${timeoutMs} ms (start-up check of ${target.provider})`,
        { ...details, phase: 'start_check', timeoutMs },
      );
    const code = causeCode(error);
    throw new ProviderConnectionError(
      `${entry.path}: the model server at ${target.baseUrl} does not answer (${code ?? (error as Error).message}): is it running? (start-up check of ${target.provider}, GET ${url})`,
      { ...details, cause: code ?? 'unknown' },
      { cause: error },
    );
  }
  if (status >= 300 && status < 400)
    throw new ProviderProtocolError(
      `${entry.path}: ${url} answered HTTP ${status} redirecting to ${location ?? 'nowhere'} instead of a model list: a login page or a proxy is in front of the model server, or baseUrl is wrong`,
      { ...details, status, contentType, location },
    );
  if (status === 404) return 404;
  if (status === 401 || status === 403)
    throw new ProviderAuthError(
      `${entry.path}: ${url} refused the credentials (HTTP ${status}): the server wants an API key (apiKey) or another one`,
      { ...details, status },
    );
  if (status >= 400)
    throw new ProviderHttpError(
      `${entry.path}: ${url} answered HTTP ${status} (${contentType || 'no content type'}): "${firstBytes(text)}"`,
      { ...details, status, contentType, received: firstBytes(text) },
    );
  const isJson = /\bjson\b/i.test(contentType);
  let body: unknown;
  try {
    body = isJson || contentType === '' ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const ids = modelIdsOf(body);
  if (ids === undefined)
    throw new ProviderProtocolError(
      `${entry.path}: ${url} answered ${contentType || 'no content type'} that is not a model list (a router page, a proxy or another server at ${target.baseUrl}?): received "${firstBytes(text)}"`,
      { ...details, status, contentType, received: firstBytes(text) },
    );
  return ids;
}

/** Checks one entry against its server; throws the entry's typed error. */
async function checkOne(
  entry: ModelCheckEntry,
  target: ModelCheckTarget,
  timeoutMs: number,
): Promise<ModelCheckResult> {
  const signal = AbortSignal.timeout(timeoutMs);
  for (const url of target.listUrls) {
    const ids = await askList(entry, target, url, signal, timeoutMs);
    if (ids === 404) continue;
    if (!modelListed(target.dialect, entry.model, ids))
      throw new ModelNotFoundError(
        `${entry.path}: the model server at ${target.baseUrl} (${target.provider}) has no model "${entry.model}"; it lists: ${shownList(ids)}${target.dialect === 'ollama' ? ` — run \`ollama pull ${entry.model}\`` : ''}`,
        {
          entry: entry.path,
          provider: target.provider,
          baseUrl: target.baseUrl,
          url,
          model: entry.model,
          available: ids,
        },
      );
    return {
      path: entry.path,
      provider: target.provider,
      baseUrl: target.baseUrl,
      url,
      model: entry.model,
      available: ids,
    };
  }
  throw new ProviderHttpError(
    `${entry.path}: the server at ${target.baseUrl} answered 404 to ${target.listUrls.join(' and ')}: it is not a model server of ${target.provider}, or baseUrl is wrong`,
    { entry: entry.path, provider: target.provider, baseUrl: target.baseUrl, url: target.listUrls.at(-1), status: 404 },
  );
}

/**
 * Checks, before the host takes work, that each entry's model server answers its model list and lists the
 * entry's model. By default only providers of a local dialect are asked (Ollama, llama.cpp, vLLM, LM Studio);
 * a cloud provider gets no request unless `which: 'all'`. One `GET {baseUrl}/models` per entry (Ollama: then
 * `GET /api/tags` when that answers 404), with the provider's own headers (no `Authorization` without a key),
 * redirects not followed, within `timeoutMs`. Entries are asked at once; the first failing entry, in entry
 * order, is thrown.
 *
 * `host.start()` runs it for `model` (`model.checkOnStart`); a fallback chain passes one entry per fallback
 * (`path: 'model.fallbacks[0]'`, …).
 * @param entries - the entries, in order
 * @param options - which entries to check, the limit per entry
 * @returns what was found for each entry that was checked (entries skipped are absent)
 * @throws {@link ModelNotFoundError} `MODEL_NOT_FOUND` naming the entry, the model and the list (first 20);
 *   `PROVIDER_UNREACHABLE` naming the entry, `details.baseUrl` and `details.cause` (the system error code:
 *   `ECONNREFUSED` nothing listens, `ENOTFOUND` DNS; `unknown` when there is none);
 *   `PROVIDER_TIMEOUT` (`details.phase: 'start_check'`); `PROVIDER_PROTOCOL` when the answer is not a JSON
 *   model list (an HTML login page, a proxy, a redirect), with `details.contentType` and `details.received`
 *   (the first 80 characters); `PROVIDER_AUTH` (401/403); `PROVIDER_HTTP` (another status ≥ 400, whatever its
 *   body, with `details.status`, `details.contentType`, `details.received`; or 404 on every list URL);
 *   `OPTIONS_INVALID` naming the argument (`details.option`: `entries`, `entries[0].model`, `options.which`,
 *   `options.timeoutMs`) for entries that are not an array of `{ path, provider, model }`, a `which` other than
 *   `'local'`, `'all'`, `'none'`, or a `timeoutMs` that is not a positive finite number
 * @public
 */
export async function checkProviderModels(
  entries: readonly ModelCheckEntry[],
  options?: ModelCheckOptions,
): Promise<ModelCheckResult[]> {
  const { which, timeoutMs } = resolveCheckArguments(entries, options, DEFAULT_MODEL_CHECK_TIMEOUT_MS);
  if (which === 'none') return [];
  const checks = entries.flatMap((entry) => {
    const target = checkTargetOf(entry.provider);
    return target && (target.local || which === 'all') ? [checkOne(entry, target, timeoutMs)] : [];
  });
  const settled = await Promise.allSettled(checks);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<ModelCheckResult>).value);
}
