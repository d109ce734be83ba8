import { MediaAgentError } from '@media-agent/sdk';
import type { TelegramErrorCode } from './error-codes';

/**
 * The Telegram channel's options are wrong (code `TELEGRAM_OPTIONS_INVALID`); thrown by the constructor and by
 * `webhookHandler()` on a polling channel. The message never holds the bot token.
 *
 * @public
 */
export class TelegramOptionsError extends MediaAgentError<TelegramErrorCode> {
  /**
   * @param message - what is wrong, without the token
   * @param details - the option's name (`{ option }`)
   */
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('TELEGRAM_OPTIONS_INVALID', message, details);
  }
}
