/**
 * Every stable code the Telegram channel throws besides the SDK's `ERROR_CODES` (its sends, edits and tap answers
 * throw the SDK's `ChannelError` with the `CHANNEL_*` codes), each with one sentence saying what it means (listed in
 * `docs/errors.md`).
 *
 * @public
 */
export const TELEGRAM_ERROR_CODES = {
  TELEGRAM_OPTIONS_INVALID:
    'The Telegram channel was configured wrongly (an empty or malformed bot token, an `apiRoot` that is not an http(s) URL, a webhook secret token outside 1–256 characters of A–Z, a–z, 0–9, `_` and `-`, a webhook handler asked of a polling channel); nothing was sent.',
} as const satisfies Record<string, string>;

/** One code of {@link TELEGRAM_ERROR_CODES}. @public */
export type TelegramErrorCode = keyof typeof TELEGRAM_ERROR_CODES;
