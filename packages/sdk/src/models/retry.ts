// Retry policy for model calls: which failures are retried and how long to wait.

/**
 * Retry settings for one provider.
 *
 * @public
 */
export interface RetryOptions {
  /**
   * Total attempts including the first (default 4; 1 disables retries), shared by HTTP failures
   * (408/409/429/529/5xx, connection failures) and transient errors reported inside a 200 stream
   * before any output (overloaded, server and rate-limit errors).
   */
  maxAttempts?: number;
  /**
   * Base of the exponential backoff in ms: attempt n waits about `base * 2^(n-1)`.
   * @defaultValue 500
   */
  baseDelayMs?: number;
  /**
   * Upper bound of one computed backoff in ms.
   * @defaultValue 30 000
   */
  maxDelayMs?: number;
  /**
   * Cap on a server-requested wait (`retry-after-ms` / `retry-after`), in ms (default 60 000).
   * A longer request is waited only this long before the next attempt (still within
   * {@link RetryOptions.maxAttempts}); the stream then carries a `warning` with code
   * `PROVIDER_RETRY_AFTER_CAPPED` and `onRetry` gets `retryAfterMs` (the server's value) and
   * `retryAfterCapped: true`. When no attempt is left, the error's `details` hold `retryAfterMs`
   * and `retryAfterCapped`.
   */
  maxRetryAfterMs?: number;
  /**
   * Random source in [0, 1) for jitter.
   * @defaultValue `Math.random`
   */
  random?: () => number;
  /**
   * Waits `ms` milliseconds or until `signal` aborts (default: a real timer). Tests may pass a
   * recording sleep.
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Called before each wait with the failed attempt number (1-based), the HTTP status (200 for an
   * error reported inside a stream, `undefined` for a connection failure), the wait in ms and the
   * failure's error code.
   */
  onRetry?: (info: {
    attempt: number;
    status: number | undefined;
    delayMs: number;
    code: string;
    /** The wait the server asked for (`retry-after-ms` / `retry-after`), in ms, when it sent one that could be read. */
    retryAfterMs?: number;
    /** True when `retryAfterMs` exceeded `maxRetryAfterMs` and the wait was capped to it. */
    retryAfterCapped?: boolean;
    /** True when the failure was an error event inside a 200 stream, before any output. */
    inStream?: boolean;
  }) => void;
}

/** Retry settings with defaults applied. @public */
export type ResolvedRetry = Required<Omit<RetryOptions, 'onRetry'>> & Pick<RetryOptions, 'onRetry'>;

/**
 * Fills in retry defaults.
 * @param options - partial settings
 * @returns settings with every field set
 * @internal
 */
export function resolveRetry(options: RetryOptions = {}): ResolvedRetry {
  return {
    maxAttempts: Math.max(1, Math.floor(options.maxAttempts ?? 4)),
    baseDelayMs: options.baseDelayMs ?? 500,
    maxDelayMs: options.maxDelayMs ?? 30_000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? abortableSleep,
    onRetry: options.onRetry,
  };
}

/**
 * HTTP statuses retried: 408 (request timeout), 409 (OpenAI lock conflict), 429 (rate limited),
 * 529 (Anthropic overloaded) and every 5xx. 401/403 are never retried. Sources: Anthropic "Errors"
 * page (429 rate_limit_error, 500 api_error, 529 overloaded_error) and OpenAI "Error codes" page
 * (429, 500, 503).
 *
 * @param status - HTTP status of a failed response
 * @returns whether the same request should be sent again
 * @public
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status === 529 || (status >= 500 && status <= 599);
}

/**
 * Exponential backoff with "equal jitter": half of `min(maxDelay, base * 2^(attempt-1))` fixed,
 * half random, so waits grow but never synchronize across clients.
 *
 * @param attempt - the attempt that just failed, 1-based
 * @param retry - resolved settings (base, max, random)
 * @returns the wait in ms
 * @public
 */
export function backoffDelay(
  attempt: number,
  retry: Pick<ResolvedRetry, 'baseDelayMs' | 'maxDelayMs' | 'random'>,
): number {
  const exp = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp / 2 + retry.random() * (exp / 2));
}

/** An HTTP-date (RFC 9110 §5.6.7: IMF-fixdate, obsolete RFC 850 or asctime form): a month name and a hh:mm:ss time. */
const httpDateShape = /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b.*\b\d{1,2}:\d{2}:\d{2}\b/i;

/**
 * Reads the server's requested wait from response headers: `retry-after-ms` (milliseconds, sent
 * by OpenAI and Anthropic), else `retry-after` as delay-seconds or an HTTP-date (RFC 9110
 * §10.2.3, https://www.rfc-editor.org/rfc/rfc9110#field.retry-after).
 *
 * @remarks
 * A value that is neither gives `undefined`, so the caller falls back to its computed backoff:
 * negative numbers (`-1`, which `Date.parse` would read as a date in 2001), garbage, a date that
 * is already past (or now), and a `retry-after-ms` that is not a non-negative number (then
 * `retry-after` is read instead). Very large values are returned as they are (at most
 * `Number.MAX_SAFE_INTEGER`); capping them is the caller's job (see
 * {@link RetryOptions.maxRetryAfterMs}).
 *
 * @param headers - response headers (lower-case names)
 * @param now - current time in ms since the epoch, for HTTP dates
 * @returns the wait in ms (a positive whole number, or 0 for `retry-after: 0`), or `undefined`
 * @public
 */
export function parseRetryAfter(
  headers: Record<string, string | string[] | undefined>,
  now: number = Date.now(),
): number | undefined {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.trim();
  const toMs = (n: number) => Math.min(Number.MAX_SAFE_INTEGER, Math.round(n));
  const ms = one(headers['retry-after-ms']);
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return toMs(Number(ms));
  const ra = one(headers['retry-after']);
  if (ra === undefined || ra === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(ra)) return toMs(Number(ra) * 1000);
  if (!httpDateShape.test(ra)) return undefined;
  const date = Date.parse(ra);
  if (Number.isNaN(date) || date <= now) return undefined;
  return toMs(date - now);
}

/**
 * Waits `ms` or until `signal` aborts, whichever comes first (never rejects).
 * @param ms - wait in ms
 * @param signal - optional abort signal
 * @internal
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
