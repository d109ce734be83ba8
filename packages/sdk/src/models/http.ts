// Opening a streaming HTTP request to a model API with undici: timeouts, retries, and the
// mapping of failed responses to typed errors. Shared by the Anthropic and OpenAI-compatible providers.
import { Agent, request, type Dispatcher } from 'undici';
import {
  ContextOverflowError,
  ProviderAuthError,
  ProviderConnectionError,
  ProviderError,
  ProviderHttpError,
  ProviderOutOfCreditError,
  ProviderRateLimitError,
  ProviderTimeoutError,
  ProviderUnavailableError,
  redactSecrets,
} from './errors';
import { MediaAgentError } from '../core/errors';
import { secretsOfHeaders, secretsOfUrl } from '../core/secret-redactor';
import type { ModelEvent, ModelWarning } from './types';
import { overflowTokenCounts } from './overflow-tokens';
import { DEFAULT_FIRST_CONTENT_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS } from './call-deadlines';
import { backoffDelay, isRetryableStatus, parseRetryAfter, resolveRetry, type RetryOptions } from './retry';

/**
 * Transport settings shared by the HTTP providers.
 *
 * @public
 */
export interface HttpProviderOptions {
  /** Time allowed to open the TCP/TLS connection, in ms (default 10 000). */
  connectTimeoutMs?: number;
  /**
   * Time allowed from sending the request to the response headers (first byte), in ms (default: the
   * `firstContentTimeoutMs`, so 300 000). A server such as Ollama sends its headers only with the first token,
   * so this deadline is never shorter than the first-content one unless it is set. Past it the call ends with
   * `PROVIDER_TIMEOUT` (`details.phase: 'first_byte'`), retried within {@link HttpProviderOptions.retry}. Runs
   * on the request's own timer, to the millisecond (a custom `dispatcher`'s own undici timers run as well).
   * 0, negative or not a finite number: `OPTIONS_INVALID`.
   */
  firstByteTimeoutMs?: number;
  /**
   * Longest silence allowed between the response headers and a body chunk, or two body chunks (SSE comments and
   * pings count), in ms (default 120 000). Past it `PROVIDER_TIMEOUT` (`details.phase: 'idle'`), retried while
   * no content of the turn was emitted. Runs on the request's own timer, to the millisecond. 0, negative or not
   * a finite number: `OPTIONS_INVALID`.
   */
  idleTimeoutMs?: number;
  /**
   * Time allowed from sending a request to its first content event (text, thinking or a tool call), in ms
   * (default 300 000, `DEFAULT_FIRST_CONTENT_TIMEOUT_MS`). SSE comments and pings, keep-alive chunks and
   * role-only deltas do not count: a server that answers with headers and pings but never content is cut here,
   * though its idle timeout never fires. The default leaves a slow local model time to load and read a long
   * prompt. Past it the call ends with `PROVIDER_TIMEOUT` (`details.phase: 'first_content'`,
   * `details.timeoutMs`), retried within {@link HttpProviderOptions.retry}. 0, negative or not a finite
   * number: `OPTIONS_INVALID`.
   */
  firstContentTimeoutMs?: number;
  /**
   * Time allowed for a whole request, from sending it to the end of its response, streaming included, in ms
   * (default 900 000, `DEFAULT_TOTAL_TIMEOUT_MS`): a stream that trickles forever ends here. Each attempt of
   * the retry budget has its own. Past it the call ends with `PROVIDER_TIMEOUT` (`details.phase: 'total'`,
   * `details.timeoutMs`); it is retried within {@link HttpProviderOptions.retry} while no content of the turn
   * was emitted (a retry after content would show it twice). The usage the server reported before the cut is
   * still emitted, so it is charged. A value smaller than `firstContentTimeoutMs` is accepted: the shorter one
   * wins (the request is cut at this one, phase `total`). 0, negative or not a finite number: `OPTIONS_INVALID`.
   */
  totalTimeoutMs?: number;
  /**
   * Retry settings (408, 409, 429, 529, 5xx, connection failures, and, before any output, transient
   * in-stream errors and a stream cut short).
   */
  retry?: RetryOptions;
  /**
   * An undici dispatcher to use instead of the provider's own `Agent` (e.g. a `ProxyAgent`, or a
   * `MockAgent` in tests). The type is undici's on purpose: the providers send with undici, so any
   * undici dispatcher plugs in as is, and a wrapper type would only hide its options.
   */
  dispatcher?: Dispatcher;
  /** Extra request headers (e.g. for a gateway). Never logged. */
  headers?: Record<string, string>;
}

/** What {@link openStream} needs. @internal */
export interface OpenStreamArgs {
  /** Provider id for error details. */
  provider: string;
  /** Full request URL. */
  url: string;
  /** Request headers (contain the key: never logged). */
  headers: Record<string, string>;
  /** JSON request body. */
  body: string;
  /** The caller's abort signal. */
  signal?: AbortSignal;
  /** The undici dispatcher. */
  dispatcher: Dispatcher;
  /** Transport and retry settings. */
  options: HttpProviderOptions;
  /** Keys to redact from error messages. */
  secrets: ReadonlyArray<string | undefined>;
  /** Receives warnings raised while opening (e.g. `PROVIDER_RETRY_AFTER_CAPPED`), for the stream. */
  warn?: (warning: ModelWarning) => void;
  /**
   * Offered a non-retryable `PROVIDER_HTTP` failure (status and response text); may return a new
   * body to send at once instead (e.g. without optional fields a strict server refused) and a
   * warning for the stream. Such resends do not count as attempts. When there were several, only
   * the last warning is passed to `warn` (it should describe them all), once, when the call opens
   * or fails.
   */
  reshape?: (status: number, responseText: string) => { body: string; warning?: ModelWarning } | undefined;
  /**
   * Told when a request is sent (with its attempt number), when its response headers arrive, and when the call
   * waits before the next attempt, so the caller's request deadlines run from each send and stop during backoff
   * (see sse-translator.ts).
   */
  deadline?: { sending(attempt: number): void; answered(): void; waiting(): void };
}

/** The response {@link openStream} opened, and the attempt that opened it. @internal */
export interface OpenedStream {
  /** The 2xx streaming response. */
  response: Dispatcher.ResponseData;
  /** The attempt (1-based, counted across the whole call) that got it. */
  attempt: number;
  /** The body that was sent (differs from the one given after a reshape). */
  body: string;
}

/**
 * Builds the undici `Agent` for a provider from its connect timeout. Its headers and body timers are off:
 * undici's are coarse (they fall up to a second late), so the first-byte and idle deadlines run on the
 * request's own timer with the first-content and total ones (sse-translator.ts, call-deadlines.ts).
 * @param options - transport settings
 * @returns a keep-alive agent with the configured connect timeout
 * @internal
 */
export function createDispatcher(options: HttpProviderOptions): Dispatcher {
  if (options.dispatcher) return options.dispatcher;
  return new Agent({
    connect: { timeout: options.connectTimeoutMs ?? 10_000 },
    headersTimeout: 0,
    bodyTimeout: 0,
  });
}

/**
 * Context-window overflow messages, by server. Sources: Anthropic "Errors" ("prompt is too long: N
 * tokens > M maximum", 413 `request_too_large`, "input length and `max_tokens` exceed context
 * limit"), OpenAI (`context_length_exceeded`, "maximum context length"), Azure OpenAI ("exceed the
 * configured limit of N tokens"), DeepSeek and vLLM ("maximum context length"), DashScope ("Range of
 * input length should be"), llama.cpp server (`exceed_context_size_error`, "exceeds the available
 * context size", "exceed context window"), Ollama ("input length exceeds maximum context length",
 * "the input length exceeds the context length"), Mistral ("too large for model"), Gemini ("The
 * input token count (N) exceeds the maximum number of tokens allowed"), LM Studio ("greater than the
 * context length (n_keep: N>= n_ctx: M)"), LiteLLM
 * (`ContextWindowExceededError`), Groq ("reduce the length of the messages").
 */
const overflowPatterns = [
  /prompt is too long/i,
  /context[_ ]length[_ ]exceeded/i,
  /maximum context length/i,
  /context window/i,
  /context_?window_?exceeded/i,
  /exceeds? the (available )?context size/i,
  /exceed_context_size/i,
  /exceeds? (the )?(maximum )?context length/i,
  /exceed context limit/i,
  /exceeds? the configured limit of \d+ tokens/i,
  /input token count.{0,40}exceeds the maximum number of tokens/i,
  /request_too_large/i,
  /range of input length should be/i,
  /input (is )?too long/i,
  /too large for model/i,
  /reduce the length of the messages/i,
  /longer than the model's context length/i,
  /greater than the context length/i,
];

/**
 * Whether an error message or code from a provider means the prompt exceeded the context window.
 * @param text - error message and code from the response body
 * @returns true for a context overflow
 * @public
 */
export function isContextOverflowMessage(text: string): boolean {
  return overflowPatterns.some((p) => p.test(text));
}

function describeBody(text: string): { message: string; type: string | undefined } {
  try {
    const json = JSON.parse(text) as {
      error?: { message?: unknown; type?: unknown; code?: unknown } | string;
      message?: unknown;
    };
    const err = json.error;
    if (typeof err === 'string') return { message: err, type: undefined };
    if (err && typeof err === 'object') {
      const type = typeof err.type === 'string' ? err.type : typeof err.code === 'string' ? err.code : undefined;
      return { message: String(err.message ?? type ?? 'error'), type };
    }
    if (typeof json.message === 'string') return { message: json.message, type: undefined };
  } catch {
    // not JSON
  }
  return { message: text.slice(0, 500) || 'no response body', type: undefined };
}

/**
 * Maps a failed HTTP response to a typed error.
 * @param provider - provider id for `details`
 * @param status - HTTP status
 * @param bodyText - response body (will be redacted)
 * @param secrets - keys to redact
 * @param extra - more details (attempts, retryAfterMs)
 * @returns the typed error
 * @internal
 */
export function errorForStatus(
  provider: string,
  status: number,
  bodyText: string,
  secrets: ReadonlyArray<string | undefined>,
  extra: Record<string, unknown> = {},
): ProviderError {
  const { message: raw, type } = describeBody(bodyText);
  const message = redactSecrets(raw, secrets);
  const details = { provider, status, ...(type ? { type } : {}), ...extra };
  if (status === 401 || status === 403)
    return new ProviderAuthError(`${provider}: authentication failed (${status}): ${message}`, details);
  if (
    status === 413 ||
    ((status === 400 || status === 422) && isContextOverflowMessage(`${raw} ${type ?? ''}`)) ||
    // llama.cpp server: its overflow type, sent by some versions with a 500 status; Ollama's native API answers
    // an overflow with 500 too (a 500 is an internal error, never a busy server: 503/529 stay transient)
    (status >= 500 && type === 'exceed_context_size_error') ||
    (status === 500 && isContextOverflowMessage(`${raw} ${type ?? ''}`))
  ) {
    // The server's own counts, when it gave them, correct the runtime's estimate (see overflow-tokens.ts).
    return new ContextOverflowError(`${provider}: the prompt exceeds the model's context window: ${message}`, {
      ...details,
      ...overflowTokenCounts(`${raw} ${bodyText.slice(0, 4096)}`),
    });
  }
  if (status === 402) return new ProviderOutOfCreditError(`${provider}: out of credit (402): ${message}`, details);
  if (status === 429) return new ProviderRateLimitError(`${provider}: rate limited (429): ${message}`, details);
  if (status === 529 || status >= 500)
    return new ProviderUnavailableError(`${provider}: unavailable (${status}): ${message}`, details);
  return new ProviderHttpError(`${provider}: request failed (${status}): ${message}`, details);
}

/**
 * Maps a thrown transport error (undici) to a typed error, or returns it unchanged if it is an abort.
 * @internal
 */
export function errorForTransport(provider: string, error: unknown, options: HttpProviderOptions): ProviderError {
  if (error instanceof ProviderError) return error;
  const code = (error as { code?: string } | undefined)?.code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new ProviderTimeoutError(`${provider}: connect timeout`, {
      provider,
      phase: 'connect',
      timeoutMs: options.connectTimeoutMs ?? 10_000,
    });
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT') {
    return new ProviderTimeoutError(`${provider}: no response within the first-byte timeout`, {
      provider,
      phase: 'first_byte',
      timeoutMs: options.firstByteTimeoutMs ?? options.firstContentTimeoutMs ?? DEFAULT_FIRST_CONTENT_TIMEOUT_MS,
    });
  }
  if (code === 'UND_ERR_BODY_TIMEOUT') {
    return new ProviderTimeoutError(`${provider}: the stream was idle longer than the idle timeout`, {
      provider,
      phase: 'idle',
      timeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderConnectionError(`${provider}: connection failed: ${message}`, {
    provider,
    cause: code ?? 'unknown',
  });
}

/** Errors raised before any request byte reached the server: safe to retry. */
function isConnectPhase(error: ProviderError): boolean {
  return (
    error.code === 'PROVIDER_UNREACHABLE' || (error.code === 'PROVIDER_TIMEOUT' && error.details.phase === 'connect')
  );
}

/** Most body reshapes one call may make (each removes at least one field, so a handful at most). */
const MAX_RESHAPES = 8;

/**
 * Sends a POST and returns the 2xx streaming response, retrying 408/409/429/529/5xx and
 * connection failures with backoff and `retry-after` (capped at `maxRetryAfterMs`, with a
 * `PROVIDER_RETRY_AFTER_CAPPED` warning through `args.warn`). Throws a typed
 * {@link ProviderError} (`details.attempts` counts attempts), or the abort reason when `signal`
 * aborts. A non-retryable `PROVIDER_HTTP` failure is offered to `args.reshape`, which may supply
 * a corrected body to resend at once.
 * @param args - the request
 * @param firstAttempt - number of this first attempt within the call's attempt budget (default 1;
 *   a retry after an in-stream error continues the count)
 * @returns the response and the attempt that opened it
 * @internal
 */
export async function openStream(args: OpenStreamArgs, firstAttempt = 1): Promise<OpenedStream> {
  let reshaped: ModelWarning | undefined;
  try {
    return await openWithRetries(args, firstAttempt, (w) => (reshaped = w));
  } finally {
    if (reshaped) args.warn?.(reshaped);
  }
}

async function openWithRetries(
  args: OpenStreamArgs,
  firstAttempt: number,
  onReshape: (warning: ModelWarning) => void,
): Promise<OpenedStream> {
  const retry = resolveRetry(args.options.retry);
  let body = args.body;
  let reshapes = 0;
  for (let attempt = firstAttempt; ; attempt++) {
    let failure: ProviderError;
    let status: number | undefined;
    let retryAfterMs: number | undefined;
    try {
      args.deadline?.sending(attempt);
      const res = await request(args.url, {
        method: 'POST',
        headers: args.headers,
        body,
        signal: args.signal,
        dispatcher: args.dispatcher,
      });
      args.deadline?.answered();
      if (res.statusCode >= 200 && res.statusCode < 300) return { response: res, attempt, body };
      status = res.statusCode;
      const text = await res.body.text().catch(() => '');
      retryAfterMs = parseRetryAfter(res.headers);
      const capped = retryAfterMs !== undefined && retryAfterMs > retry.maxRetryAfterMs;
      failure = errorForStatus(args.provider, status, text, args.secrets, {
        attempts: attempt,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        ...(capped ? { retryAfterCapped: true } : {}),
      });
      // An overflow is never transient, whatever the status (llama.cpp answers `exceed_context_size_error` with 500).
      if (failure.code === 'PROVIDER_CONTEXT_OVERFLOW') throw failure;
      if (!isRetryableStatus(status)) {
        const next =
          failure.code === 'PROVIDER_HTTP' && reshapes < MAX_RESHAPES ? args.reshape?.(status, text) : undefined;
        if (next === undefined) throw failure;
        reshapes++;
        body = next.body;
        if (next.warning) onReshape(next.warning);
        attempt--; // a resend with a corrected body is not a retry of a transient failure
        continue;
      }
    } catch (error) {
      if (args.signal?.aborted) throw error;
      if (error instanceof ProviderError && status !== undefined) throw error;
      failure = errorForTransport(args.provider, error, args.options);
      if (!isConnectPhase(failure)) throw failure;
    }
    if (attempt >= retry.maxAttempts) throw failure;
    const capped = retryAfterMs !== undefined && retryAfterMs > retry.maxRetryAfterMs;
    const delayMs =
      retryAfterMs !== undefined ? Math.min(retryAfterMs, retry.maxRetryAfterMs) : backoffDelay(attempt, retry);
    retry.onRetry?.({
      attempt,
      status,
      delayMs,
      code: failure.code,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...(capped ? { retryAfterCapped: true } : {}),
    });
    if (capped) {
      args.warn?.({
        code: 'PROVIDER_RETRY_AFTER_CAPPED',
        message: `${args.provider}: the server asked to wait ${retryAfterMs} ms before retrying; waiting the configured maximum of ${retry.maxRetryAfterMs} ms instead`,
        details: {
          provider: args.provider,
          status,
          attempt,
          retryAfterMs,
          delayMs,
          maxRetryAfterMs: retry.maxRetryAfterMs,
        },
      });
    }
    args.deadline?.waiting();
    await retry.sleep(delayMs, args.signal);
    if (args.signal?.aborted) throw args.signal.reason ?? new Error('aborted');
  }
}

/**
 * Runs a provider's event batches as a stream of single events that never throws: a failure
 * becomes `error` + `done` (`error`), an abort becomes `done` (`aborted`); the stream always ends
 * with exactly one `done`.
 *
 * @remarks
 * This is the one asynchronous step per event between the wire and the consumer: `body` yields
 * the events of each received chunk as one array (see `translateSse`).
 *
 * @param provider - provider id for error details
 * @param signal - the caller's abort signal
 * @param options - transport settings, for timeout details in errors
 * @param body - opens the request and yields its normalized events, one array per chunk
 * @internal
 */
export async function* guardStream(
  provider: string,
  signal: AbortSignal | undefined,
  options: HttpProviderOptions,
  body: () => AsyncIterable<ModelEvent[]>,
): AsyncGenerator<ModelEvent> {
  if (signal?.aborted) {
    yield { type: 'done', stopReason: 'aborted' };
    return;
  }
  try {
    for await (const batch of body()) for (let i = 0; i < batch.length; i++) yield batch[i]!;
  } catch (error) {
    if (signal?.aborted) {
      yield { type: 'done', stopReason: 'aborted' };
      return;
    }
    const err = error instanceof MediaAgentError ? error : errorForTransport(provider, error, options);
    yield { type: 'error', error: err };
    yield { type: 'done', stopReason: 'error' };
  }
}

/**
 * The credentials a provider's settings hold, for redaction: the API key, the values of secret-looking
 * headers (`Authorization`, `x-api-key`, `api-key`, `x-gateway-key` …, see `secretsOfHeaders`) and the
 * credentials inside the base URL (user-info password, `?api_key=` and the like).
 * @param options - the provider's `apiKey`, `headers` and `baseUrl`
 * @returns the values (possibly empty)
 * @internal
 */
export function providerSecrets(options: {
  apiKey?: string;
  headers?: Record<string, string>;
  baseUrl?: string;
}): string[] {
  return [
    ...(options.apiKey ? [options.apiKey] : []),
    ...secretsOfHeaders(options.headers),
    ...secretsOfUrl(options.baseUrl),
  ];
}

/**
 * Joins a base URL and a path, adding the API version segment when the base has none
 * (`https://host` and `https://host/v1` both give `https://host/v1/<path>`). A base whose version
 * segment is followed by `/openai` is complete as it is (Gemini's OpenAI-compatible endpoint,
 * `https://generativelanguage.googleapis.com/v1beta/openai/`).
 *
 * @param baseUrl - server root with or without a trailing `/v<N>` (or `/v<N>/openai`) segment
 * @param path - path after the version, e.g. `messages` or `chat/completions`
 * @param version - version segment to add when missing (default `v1`)
 * @returns the full URL
 * @public
 */
export function joinApiUrl(baseUrl: string, path: string, version = 'v1'): string {
  let base = baseUrl.trim().replace(/\/+$/, '');
  const suffix = `/${path}`;
  if (base.endsWith(suffix)) base = base.slice(0, -suffix.length);
  if (!/\/v\d+[a-z0-9]*(\/openai)?$/i.test(base)) base = `${base}/${version}`;
  return `${base}${suffix}`;
}

/** In-stream error types/codes meaning "overloaded or failed on the server side: try again", normalized (lower case, no separators). */
const unavailableKinds = new Set([
  'overloadederror', // Anthropic overloaded_error (HTTP 529 equivalent)
  'overloaded',
  'apierror', // Anthropic api_error (500)
  'servererror', // OpenAI server_error
  'internalservererror',
  'internalerror',
  'serviceunavailable',
  'serviceunavailableerror',
  'engineoverloaded',
]);

/** In-stream error types/codes meaning "rate limited", normalized. */
const rateLimitKinds = new Set([
  'ratelimiterror',
  'ratelimitexceeded',
  'ratelimit',
  'toomanyrequests',
  'toomanyrequestserror',
]);

/** In-stream error types/codes meaning "out of credit" (Anthropic `billing_error`, OpenAI `insufficient_quota`), normalized. */
const creditKinds = new Set(['billingerror', 'insufficientquota', 'insufficientcredits', 'paymentrequired']);

function normalizeKind(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return typeof v === 'string' && v !== '' ? v.toLowerCase().replace(/[^a-z0-9]/g, '') : undefined;
}

/**
 * Maps an error reported inside a 200 stream (Anthropic `event: error`, an OpenAI-compatible
 * chunk with an `error` object) to a typed error with `details.inStream: true`.
 *
 * @remarks
 * Both the error's `type` and its `code` are looked at (OpenAI puts `rate_limit_exceeded` in
 * `code` and `requests`/`tokens` in `type`; some servers send a numeric HTTP-like code):
 * overloaded / server / API errors (or code 5xx, 529) give {@link ProviderUnavailableError}, rate
 * limits (or 429) {@link ProviderRateLimitError} (both retryable: the stream helper retries them
 * when nothing was emitted yet), billing errors, `insufficient_quota` (or 402)
 * {@link ProviderOutOfCreditError} (not retried; a fallback chain moves on), authentication errors {@link ProviderAuthError}, context overflow
 * {@link ContextOverflowError}, anything else {@link ProviderHttpError}. Error types: Anthropic
 * "Errors" (https://docs.anthropic.com/en/api/errors), OpenAI "Error codes"
 * (https://platform.openai.com/docs/guides/error-codes).
 *
 * @param provider - provider id
 * @param type - the error type (`overloaded_error`, `server_error`, …), or the code when there is no type
 * @param message - the error message (redacted here)
 * @param secrets - keys to redact
 * @param code - the error's `code`, when the server sent one besides `type`
 * @internal
 */
export function streamError(
  provider: string,
  type: string,
  message: string,
  secrets: ReadonlyArray<string | undefined>,
  code?: unknown,
): ProviderError {
  const text = redactSecrets(message, secrets);
  const details = {
    provider,
    type,
    ...(code !== undefined && code !== null ? { errorCode: code } : {}),
    inStream: true,
  };
  const kinds = [normalizeKind(type), normalizeKind(code)].filter((k): k is string => k !== undefined);
  const status = kinds.map(Number).find((n) => Number.isInteger(n) && n >= 400 && n <= 599);
  if (kinds.some((k) => creditKinds.has(k)) || status === 402)
    return new ProviderOutOfCreditError(`${provider}: ${text}`, details);
  if (kinds.some((k) => rateLimitKinds.has(k)) || status === 429)
    return new ProviderRateLimitError(`${provider}: ${text}`, details);
  if (kinds.some((k) => unavailableKinds.has(k)) || (status !== undefined && status >= 500))
    return new ProviderUnavailableError(`${provider}: ${text}`, details);
  if (
    kinds.some((k) => k === 'authenticationerror' || k === 'permissionerror' || k === 'invalidapikey') ||
    status === 401 ||
    status === 403
  ) {
    return new ProviderAuthError(`${provider}: ${text}`, details);
  }
  if (isContextOverflowMessage(`${message} ${type} ${typeof code === 'string' ? code : ''}`))
    return new ContextOverflowError(`${provider}: ${text}`, { ...details, ...overflowTokenCounts(message) });
  return new ProviderHttpError(`${provider}: ${text}`, details);
}

/**
 * Whether an error thrown while translating a 200 stream is a transient in-stream failure that
 * the same request may get past: an overloaded / server / rate-limit error event (see
 * {@link streamError}) or DeepSeek's `finish_reason: insufficient_system_resource`.
 * @param error - what the translator threw
 * @internal
 */
export function isTransientStreamError(error: unknown): error is ProviderError {
  return error instanceof ProviderError && error.retryable && error.details.inStream === true;
}

/** undici and socket error codes of a connection that broke while a response body was being read. */
const cutCodes = new Set(['UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * The typed error of a 200 stream that was cut short, or `undefined` when `error` is not a cut.
 *
 * @remarks
 * A stream is cut when its body ended before the translator saw the end of the response (the
 * `PROVIDER_PROTOCOL` error a translator's `end` throws, marked `details.streamCut: true`, returned as
 * it is), or when the connection broke while the body was read (an undici socket error, a reset:
 * returned as a `PROVIDER_UNREACHABLE` error with `details.streamCut: true` and the socket error as
 * `cause`). Timeouts (`PROVIDER_TIMEOUT`), aborts and errors the server reported are not cuts. The
 * stream helper retries a cut like a transient in-stream error while nothing of the turn was emitted.
 *
 * @param provider - provider id for details
 * @param error - what reading or translating the body threw
 * @internal
 */
export function streamCut(provider: string, error: unknown): ProviderError | undefined {
  if (error instanceof ProviderError) return error.details.streamCut === true ? error : undefined;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string' || !cutCodes.has(code)) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderConnectionError(
    `${provider}: the connection closed before the response was complete (${message})`,
    { provider, cause: code, streamCut: true },
    { cause: error },
  );
}

/**
 * A copy of a provider error with more details (details are frozen), e.g. the attempt count.
 * @param error - the error
 * @param extra - details to add
 * @returns an error of the same class, code and message
 * @internal
 */
export function withDetails(error: ProviderError, extra: Record<string, unknown>): ProviderError {
  if (error.constructor === ProviderError)
    return new ProviderError(error.code, error.message, { ...error.details, ...extra }, error.retryable, {
      cause: error.cause,
    });
  const Ctor = error.constructor as new (message: string, details: Record<string, unknown>) => ProviderError;
  const copy = new Ctor(error.message, { ...error.details, ...extra });
  return copy.code === error.code ? copy : error;
}
