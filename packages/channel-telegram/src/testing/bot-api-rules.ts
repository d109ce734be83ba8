import type { ApiError, InlineKeyboardButton, InlineKeyboardMarkup } from 'grammy/types';

/**
 * The Bot API's limits the fake server enforces, as documented at https://core.telegram.org/bots/api.
 *
 * - `messageText`: characters of one message's text (sendMessage, editMessageText), 4096.
 * - `callbackData`: bytes (UTF-8) of one inline button's `callback_data`, 1–64.
 * - `callbackAnswerText`: characters of answerCallbackQuery's `text`, 200.
 * - `updatesPerCall`: getUpdates' largest `limit`, 100.
 *
 * @public
 */
export const BOT_API_LIMITS = {
  messageText: 4096,
  callbackData: 64,
  callbackAnswerText: 200,
  updatesPerCall: 100,
} as const;

/**
 * The Bot API's error descriptions the fake server answers with (the texts the real server sends).
 *
 * @public
 */
export const BOT_API_ERRORS = {
  unauthorized: 'Unauthorized',
  notFound: 'Not Found',
  chatNotFound: 'Bad Request: chat not found',
  textEmpty: 'Bad Request: message text is empty',
  messageTooLong: 'Bad Request: message is too long',
  editTooLong: 'Bad Request: MESSAGE_TOO_LONG',
  buttonDataInvalid: 'Bad Request: BUTTON_DATA_INVALID',
  replyNotFound: 'Bad Request: message to be replied not found',
  editNotFound: 'Bad Request: message to edit not found',
  cantEdit: "Bad Request: message can't be edited",
  notModified:
    'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
  queryInvalid: 'Bad Request: query is too old and response timeout expired or query ID is invalid',
  blocked: 'Forbidden: bot was blocked by the user',
  webhookActive:
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
  tooManyRequests: (retryAfter: number) => `Too Many Requests: retry after ${retryAfter}`,
} as const;

/**
 * An unsuccessful Bot API answer: `{ ok: false, error_code, description, parameters? }` (the HTTP status is `error_code`).
 *
 * @param status - the error code, also the HTTP status (400, 401, 403, 404, 409, 429, 5xx)
 * @param description - the human-readable reason, e.g. {@link BOT_API_ERRORS}
 * @param retryAfter - seconds to wait, for a 429 (`parameters.retry_after`)
 * @public
 */
export function apiError(status: number, description: string, retryAfter?: number): ApiError {
  return retryAfter === undefined
    ? { ok: false, error_code: status, description }
    : { ok: false, error_code: status, description, parameters: { retry_after: retryAfter } };
}

/**
 * Why a message's text is refused, or null when it is accepted: empty, or longer than
 * {@link BOT_API_LIMITS}.messageText characters (UTF-16 code units, as JavaScript counts them).
 *
 * @param text - the `text` parameter
 * @param method - `sendMessage` answers "message is too long", `editMessageText` "MESSAGE_TOO_LONG"
 * @public
 */
export function textProblem(text: unknown, method: 'sendMessage' | 'editMessageText'): string | null {
  if (typeof text !== 'string' || text.trim().length === 0) return BOT_API_ERRORS.textEmpty;
  if (text.length > BOT_API_LIMITS.messageText)
    return method === 'sendMessage' ? BOT_API_ERRORS.messageTooLong : BOT_API_ERRORS.editTooLong;
  return null;
}

/**
 * Reads a `reply_markup` parameter as an inline keyboard: `{ markup }` when absent (null) or valid, `{ problem }`
 * otherwise. Each button needs a `text` and a `callback_data` of 1–64 bytes (or a `url`); a malformed keyboard is
 * "BUTTON_DATA_INVALID" as the real server says for bad callback data.
 *
 * @param value - the parameter as sent (an object, or a JSON string from a form-encoded request)
 * @public
 */
export function readInlineKeyboard(
  value: unknown,
): { markup: InlineKeyboardMarkup | null; problem?: undefined } | { problem: string } {
  if (value === undefined || value === null) return { markup: null };
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return { problem: "Bad Request: can't parse reply keyboard markup JSON object" };
    }
  }
  const rows = (parsed as { inline_keyboard?: unknown }).inline_keyboard;
  if (!Array.isArray(rows) || rows.some((row) => !Array.isArray(row)))
    return { problem: 'Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup should be an Array of Arrays' };
  const out: InlineKeyboardButton[][] = [];
  for (const row of rows as unknown[][]) {
    const buttons: InlineKeyboardButton[] = [];
    for (const button of row) {
      const b = button as { text?: unknown; callback_data?: unknown; url?: unknown };
      if (typeof b.text !== 'string' || b.text.length === 0)
        return { problem: 'Bad Request: text buttons are unallowed in the inline keyboard' };
      if (typeof b.url === 'string') buttons.push({ text: b.text, url: b.url });
      else if (typeof b.callback_data === 'string' && callbackDataFits(b.callback_data))
        buttons.push({ text: b.text, callback_data: b.callback_data });
      else return { problem: BOT_API_ERRORS.buttonDataInvalid };
    }
    out.push(buttons);
  }
  return { markup: { inline_keyboard: out } };
}

/**
 * True when `data` is a valid `callback_data`: 1 to {@link BOT_API_LIMITS}.callbackData bytes in UTF-8.
 *
 * @param data - the button's data
 * @public
 */
export function callbackDataFits(data: string): boolean {
  const bytes = Buffer.byteLength(data, 'utf8');
  return bytes >= 1 && bytes <= BOT_API_LIMITS.callbackData;
}
