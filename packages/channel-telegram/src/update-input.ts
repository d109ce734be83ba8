import type { ChannelInput } from '@media-agent/sdk';
import type { Chat, Message, Update } from 'grammy/types';

/** The prefix of an attachment's `ref`: `telegram-file:<file_id>` (fetch it with the Bot API's `getFile`). @public */
export const TELEGRAM_FILE_REF_PREFIX = 'telegram-file:';

/**
 * The channel input of a Bot API update, or null when it is none. A pure rule:
 *
 * - a `message` in a private chat, a group or a supergroup, from a user who is not a bot, with text or a caption or
 *   an attachment → `text` (the caption is the text; a document or the largest photo size is the attachment, its
 *   `ref` `telegram-file:<file_id>`);
 * - a `callback_query` with `data` on a message in such a chat → `tap` (its `tapId` is the callback query's id,
 *   `messageId` the message holding the button);
 * - anything else (channel posts, edited messages, service messages, stickers, inline queries) → null.
 *
 * Ids are the Bot API's numbers as decimal strings; a supergroup's `chatType` is `group`.
 *
 * @param update - one update as the Bot API sends it
 * @param channelId - the channel configuration id to stamp on the input
 * @public
 */
export function toChannelInput(update: Update, channelId: string): ChannelInput | null {
  const query = update.callback_query;
  if (query) {
    const message = query.message;
    const chatType = message ? chatTypeOf(message.chat) : null;
    if (!message || !chatType || query.data === undefined || query.from.is_bot) return null;
    return {
      kind: 'tap',
      channelId,
      chatId: String(message.chat.id),
      chatType,
      userId: String(query.from.id),
      messageId: String(message.message_id),
      tapId: query.id,
      data: query.data,
    };
  }
  const message = update.message;
  if (!message) return null;
  const chatType = chatTypeOf(message.chat);
  if (!chatType || !message.from || message.from.is_bot) return null;
  const attachments = attachmentsOf(message);
  const text = message.text ?? message.caption ?? '';
  if (text === '' && attachments.length === 0) return null;
  return {
    kind: 'text',
    channelId,
    chatId: String(message.chat.id),
    chatType,
    userId: String(message.from.id),
    messageId: String(message.message_id),
    text,
    attachments,
  };
}

function chatTypeOf(chat: Chat): 'private' | 'group' | null {
  if (chat.type === 'private') return 'private';
  if (chat.type === 'group' || chat.type === 'supergroup') return 'group';
  return null;
}

function attachmentsOf(message: Message): Array<{ name: string; mimeType: string; size: number; ref: string }> {
  if (message.document) {
    const d = message.document;
    return [
      {
        name: d.file_name ?? `document-${d.file_unique_id}`,
        mimeType: d.mime_type ?? 'application/octet-stream',
        size: d.file_size ?? 0,
        ref: `${TELEGRAM_FILE_REF_PREFIX}${d.file_id}`,
      },
    ];
  }
  const largest = message.photo?.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
  if (largest) {
    return [
      {
        name: `photo-${largest.file_unique_id}.jpg`,
        mimeType: 'image/jpeg',
        size: largest.file_size ?? 0,
        ref: `${TELEGRAM_FILE_REF_PREFIX}${largest.file_id}`,
      },
    ];
  }
  return [];
}
