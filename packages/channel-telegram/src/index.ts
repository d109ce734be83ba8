/**
 * `@media-agent/channel-telegram`: the reference message channel — a Telegram bot through grammY, by long polling
 * or webhook, as a `ChannelPort` of `@media-agent/sdk`. A fake Bot API server for tests is in `/testing`.
 *
 * @packageDocumentation
 */

export {
  TELEGRAM_ALLOWED_UPDATES,
  TELEGRAM_CAPABILITIES,
  TelegramChannel,
} from './telegram-channel';
export { TELEGRAM_API_ROOT, type TelegramChannelOptions } from './options';
export { TELEGRAM_CALLBACK_DATA_MAX_BYTES, toInlineKeyboard } from './keyboard';
export { TELEGRAM_FILE_REF_PREFIX, toChannelInput } from './update-input';
export { TelegramOptionsError } from './errors';
export { TELEGRAM_ERROR_CODES, type TelegramErrorCode } from './error-codes';
