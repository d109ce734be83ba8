import { ChannelError, type ChannelErrorCode } from '@media-agent/sdk';
import { GrammyError, HttpError } from 'grammy';

/** An unsuccessful Bot API answer, as `{ ok: false, error_code, description, parameters }` carries it. @internal */
export interface BotApiFailure {
  /** `error_code` (the HTTP status). */
  errorCode: number;
  /** `description`, e.g. "Bad Request: chat not found". */
  description: string;
  /** `parameters.retry_after`, seconds. */
  retryAfterSeconds?: number;
}

/** Seconds to wait after a 429 that names no `retry_after` (grammY's polling loop waits as long). @internal */
export const DEFAULT_RETRY_AFTER_SECONDS = 3;

/**
 * The channel error code of an unsuccessful Bot API answer: 429 → `CHANNEL_RATE_LIMITED` (with `retryAfterMs`
 * from `parameters.retry_after`), 5xx → `CHANNEL_UNAVAILABLE`, "message is too long" / `MESSAGE_TOO_LONG` →
 * `CHANNEL_MESSAGE_TOO_LONG`, any other 4xx (400 chat not found, 401 token refused, 403 bot blocked, …) →
 * `CHANNEL_REJECTED`. A pure rule.
 *
 * @internal
 */
export function classifyBotApiFailure(failure: BotApiFailure): { code: ChannelErrorCode; retryAfterMs?: number } {
  const { errorCode, description } = failure;
  if (errorCode === 429) {
    const seconds = failure.retryAfterSeconds;
    const valid = typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0;
    return {
      code: 'CHANNEL_RATE_LIMITED',
      retryAfterMs: Math.round((valid ? seconds : DEFAULT_RETRY_AFTER_SECONDS) * 1000),
    };
  }
  if (errorCode >= 500 || errorCode < 400) return { code: 'CHANNEL_UNAVAILABLE' };
  if (/message is too long|MESSAGE_TOO_LONG|text is too long/i.test(description))
    return { code: 'CHANNEL_MESSAGE_TOO_LONG' };
  return { code: 'CHANNEL_REJECTED' };
}

/**
 * True when the Bot API refused an edit because nothing would change ("message is not modified"): for an edit,
 * success. A pure rule.
 *
 * @internal
 */
export function isNotModified(failure: BotApiFailure): boolean {
  return failure.errorCode === 400 && /message is not modified/i.test(failure.description);
}

/** The Bot API failure a grammY error carries, if it is one. @internal */
export function botApiFailureOf(error: unknown): BotApiFailure | undefined {
  if (!(error instanceof GrammyError)) return undefined;
  const retryAfter = error.parameters.retry_after;
  return {
    errorCode: error.error_code,
    description: error.description,
    ...(typeof retryAfter === 'number' ? { retryAfterSeconds: retryAfter } : {}),
  };
}

/**
 * A `ChannelError` for anything a Bot API call threw. Its message names the method and the Bot API's description
 * (or the network failure's kind) and passes through `redact`; the original error is not attached, because the
 * network errors of the HTTP client quote the request URL, which holds the bot token.
 *
 * @param error - what the grammY call threw
 * @param method - the Bot API method, e.g. `sendMessage`
 * @param redact - removes the token from text
 * @internal
 */
export function toChannelError(error: unknown, method: string, redact: (text: string) => string): ChannelError {
  if (error instanceof ChannelError) return error;
  const failure = botApiFailureOf(error);
  if (failure) {
    const { code, retryAfterMs } = classifyBotApiFailure(failure);
    return new ChannelError(code, redact(`Telegram ${method}: ${failure.description} (${failure.errorCode})`), {
      method,
      errorCode: failure.errorCode,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  return new ChannelError('CHANNEL_UNAVAILABLE', redact(`Telegram ${method}: ${networkReason(error)}`), { method });
}

/** A short, token-free reason of a network failure: the socket error code, "no JSON answer", "timed out" or "aborted". */
function networkReason(error: unknown): string {
  const inner = error instanceof HttpError ? error.error : error;
  const named = inner as { name?: unknown; type?: unknown; code?: unknown; message?: unknown } | null;
  if (named && typeof named === 'object') {
    if (named.name === 'AbortError' || named.type === 'aborted') return 'the request was aborted';
    if (named.type === 'invalid-json')
      return 'the Bot API answered something that is not JSON (a proxy or server error)';
    if (typeof named.code === 'string' && /^[A-Z_]+$/.test(named.code))
      return `the Bot API could not be reached (${named.code})`;
    if (typeof named.message === 'string' && /timed out/.test(named.message)) return 'the request timed out';
  }
  return 'the Bot API could not be reached';
}
