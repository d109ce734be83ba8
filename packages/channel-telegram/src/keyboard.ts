import { type ChannelButton, ChannelError } from '@media-agent/sdk';
import type { InlineKeyboardMarkup } from 'grammy/types';

/** Telegram's limit of one button's `callback_data`: 64 bytes of UTF-8. @public */
export const TELEGRAM_CALLBACK_DATA_MAX_BYTES = 64;

/**
 * The inline keyboard of rows of {@link ChannelButton}s: each button a `{ text, callback_data }`. A pure rule.
 *
 * @param buttons - rows of buttons; empty rows are dropped
 * @returns the markup, or undefined when there is no button
 * @throws ChannelError `CHANNEL_REJECTED` when a label is empty or a button's data is empty or over
 *   {@link TELEGRAM_CALLBACK_DATA_MAX_BYTES} bytes (the Bot API would answer "BUTTON_DATA_INVALID"); nothing is sent
 * @public
 */
export function toInlineKeyboard(buttons: readonly (readonly ChannelButton[])[]): InlineKeyboardMarkup | undefined {
  const rows = buttons.filter((row) => row.length > 0);
  if (rows.length === 0) return undefined;
  for (const row of rows)
    for (const button of row) {
      const bytes = Buffer.byteLength(button.data, 'utf8');
      if (button.label.trim() === '' || bytes === 0 || bytes > TELEGRAM_CALLBACK_DATA_MAX_BYTES)
        throw new ChannelError(
          'CHANNEL_REJECTED',
          `Telegram: a button needs a label and 1–${TELEGRAM_CALLBACK_DATA_MAX_BYTES} bytes of data (got ${bytes} bytes); nothing was sent`,
          { dataBytes: bytes },
        );
    }
  return { inline_keyboard: rows.map((row) => row.map((b) => ({ text: b.label, callback_data: b.data }))) };
}
