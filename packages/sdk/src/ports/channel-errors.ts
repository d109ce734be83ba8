// The typed errors a channel port throws.
import type { ErrorCode } from '../core/error-codes';
import { MediaAgentError } from '../core/errors';

/**
 * The stable codes a {@link ChannelError} carries.
 * @public
 */
export type ChannelErrorCode = Extract<ErrorCode, `CHANNEL_${string}`>;

/**
 * A channel refused or failed a send, an edit or a tap answer. Switch on {@link MediaAgentError.code}:
 *
 * - `CHANNEL_RATE_LIMITED` — the channel asked us to slow down; `details.retryAfterMs` (milliseconds,
 *   a non-negative integer) says how long. The outbox pauses only that chat.
 * - `CHANNEL_UNAVAILABLE` — network error or a 5xx; retried with backoff (capped at 5 minutes), forever.
 * - `CHANNEL_REJECTED` — a permanent refusal (4xx other than 429: chat not found, bot blocked …); the
 *   outbox row fails for good and is audited.
 * - `CHANNEL_MESSAGE_TOO_LONG` — the text is over the channel's limit; permanent for that text.
 *
 * @example
 * ```ts
 * if (response.status === 429) {
 *   throw new ChannelError('CHANNEL_RATE_LIMITED', 'Too Many Requests', { retryAfterMs: retryAfter * 1000 });
 * }
 * ```
 * @public
 */
export class ChannelError extends MediaAgentError<ChannelErrorCode> {
  /**
   * @param code - one of the `CHANNEL_*` codes
   * @param message - what the channel said, without secrets (never the bot token)
   * @param details - structured facts (`retryAfterMs` for `CHANNEL_RATE_LIMITED`; never secrets)
   * @param options - standard `ErrorOptions`, e.g. `{ cause }`
   */
  constructor(code: ChannelErrorCode, message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(code, message, details, options);
  }

  /** For `CHANNEL_RATE_LIMITED`: `details.retryAfterMs` when it is a finite non-negative number, else undefined. */
  get retryAfterMs(): number | undefined {
    const value = this.details.retryAfterMs;
    return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
  }
}

/**
 * True when `error` is a {@link ChannelError}, optionally with the given code.
 * @param error - any caught value
 * @param code - when given, the code the error must carry
 * @public
 */
export function isChannelError(error: unknown, code?: ChannelErrorCode): error is ChannelError {
  return error instanceof ChannelError && (code === undefined || error.code === code);
}
