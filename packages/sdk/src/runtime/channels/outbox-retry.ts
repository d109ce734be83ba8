/**
 * What the outbox dispatcher does with a row whose delivery threw: the retry rules, pure.
 * @packageDocumentation
 */
import { isMediaAgentError } from '../../core/errors';

/** First backoff of an unavailable channel: 1 s. @public */
export const OUTBOX_BACKOFF_BASE_MS = 1000;
/** Longest backoff of an unavailable channel: 5 minutes. @public */
export const OUTBOX_BACKOFF_MAX_MS = 300_000;
/** The wait after a rate limit that named no `retryAfterMs`: 1 s. @public */
export const OUTBOX_DEFAULT_RETRY_AFTER_MS = 1000;

/**
 * The dispatcher's decision for a row whose send or edit threw:
 * - `retry` — keep it queued, not before `notBefore` (ms); the chat waits (its later rows keep their order);
 * - `fail` — mark it `failed` for good (audited `channel.delivery_failed`); the chat's next row goes on.
 * `error` is the row's `lastError` text, `<code>: <message>`.
 * @public
 */
export type OutboxRetryDecision =
  | { action: 'retry'; notBefore: number; error: string }
  | { action: 'fail'; error: string };

/**
 * The backoff after the `attempts`-th failed attempt of an unavailable channel: `baseMs · 2^(attempts − 1)`, at
 * most `maxMs` (1 s, 2 s, 4 s … 5 min, then 5 min forever).
 * @param attempts - failed attempts so far, counting this one (≥ 1)
 * @public
 */
export function outboxBackoffMs(
  attempts: number,
  baseMs = OUTBOX_BACKOFF_BASE_MS,
  maxMs = OUTBOX_BACKOFF_MAX_MS,
): number {
  const n = Math.max(1, Math.floor(attempts));
  // 2^30 s is past any cap; stop doubling before the number overflows.
  return Math.min(maxMs, baseMs * 2 ** Math.min(n - 1, 30));
}

/**
 * The decision for a delivery that threw `error` at `now`, the row having failed `attempts` times counting this
 * one: `CHANNEL_RATE_LIMITED` → retry after `details.retryAfterMs` (default 1 s); `CHANNEL_REJECTED` and
 * `CHANNEL_MESSAGE_TOO_LONG` → fail; `CHANNEL_UNAVAILABLE` and anything else (a network error a port did not
 * type) → retry after {@link outboxBackoffMs}, forever.
 * @public
 */
export function outboxRetryDecision(
  error: unknown,
  attempts: number,
  now: number,
  backoff: { baseMs?: number; maxMs?: number } = {},
): OutboxRetryDecision {
  const text = errorText(error);
  if (isMediaAgentError(error, 'CHANNEL_RATE_LIMITED')) {
    const after = error.details.retryAfterMs;
    const wait =
      typeof after === 'number' && Number.isFinite(after) && after >= 0 ? after : OUTBOX_DEFAULT_RETRY_AFTER_MS;
    return { action: 'retry', notBefore: now + Math.ceil(wait), error: text };
  }
  if (isMediaAgentError(error, 'CHANNEL_REJECTED') || isMediaAgentError(error, 'CHANNEL_MESSAGE_TOO_LONG'))
    return { action: 'fail', error: text };
  return { action: 'retry', notBefore: now + outboxBackoffMs(attempts, backoff.baseMs, backoff.maxMs), error: text };
}

/** `<code>: <message>` of a thrown value, at most 500 characters. */
function errorText(error: unknown): string {
  const code = isMediaAgentError(error) ? error.code : 'CHANNEL_UNAVAILABLE';
  const message = error instanceof Error ? error.message : String(error);
  const text = `${code}: ${message}`;
  return text.length > 500 ? `${text.slice(0, 499)}…` : text;
}
