import { toChannelInput, toInlineKeyboard, TelegramChannel } from '@media-agent/channel-telegram';
import type { Update } from 'grammy/types';
import { describe, expect, it } from 'vitest';
import { ChatQueue } from '../src/chat-queue';
import { classifyBotApiFailure, isNotModified } from '../src/error-mapping';
import { resolveTelegramOptions } from '../src/options';

const token = '123456:ABCdef_ghi-JKL';

describe('classifyBotApiFailure', () => {
  it.each([
    [
      { errorCode: 429, description: 'Too Many Requests: retry after 5', retryAfterSeconds: 5 },
      'CHANNEL_RATE_LIMITED',
      5000,
    ],
    [{ errorCode: 429, description: 'Too Many Requests' }, 'CHANNEL_RATE_LIMITED', 3000],
    [{ errorCode: 429, description: 'x', retryAfterSeconds: -1 }, 'CHANNEL_RATE_LIMITED', 3000],
    [{ errorCode: 500, description: 'Internal Server Error' }, 'CHANNEL_UNAVAILABLE', undefined],
    [{ errorCode: 502, description: 'Bad Gateway' }, 'CHANNEL_UNAVAILABLE', undefined],
    [{ errorCode: 400, description: 'Bad Request: message is too long' }, 'CHANNEL_MESSAGE_TOO_LONG', undefined],
    [{ errorCode: 400, description: 'Bad Request: MESSAGE_TOO_LONG' }, 'CHANNEL_MESSAGE_TOO_LONG', undefined],
    [{ errorCode: 400, description: 'Bad Request: chat not found' }, 'CHANNEL_REJECTED', undefined],
    [{ errorCode: 403, description: 'Forbidden: bot was blocked by the user' }, 'CHANNEL_REJECTED', undefined],
    [{ errorCode: 401, description: 'Unauthorized' }, 'CHANNEL_REJECTED', undefined],
  ])('%o → %s', (failure, code, retryAfterMs) => {
    expect(classifyBotApiFailure(failure)).toEqual({ code, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
  });

  it('recognises "message is not modified" only as a 400', () => {
    const d =
      'Bad Request: message is not modified: specified new message content and reply markup are exactly the same';
    expect(isNotModified({ errorCode: 400, description: d })).toBe(true);
    expect(isNotModified({ errorCode: 400, description: 'Bad Request: message to edit not found' })).toBe(false);
    expect(isNotModified({ errorCode: 500, description: d })).toBe(false);
  });
});

describe('toChannelInput', () => {
  const chat = { id: -100123, type: 'supergroup' as const, title: 'Home' };
  const from = { id: 7, is_bot: false, first_name: 'Ann' };
  it('maps a supergroup message to a group text input and a caption to its text', () => {
    const update = {
      update_id: 1,
      message: { message_id: 9, date: 1, chat, from, caption: 'see', document: { file_id: 'F', file_unique_id: 'U' } },
    } as Update;
    expect(toChannelInput(update, 'tg')).toEqual({
      kind: 'text',
      channelId: 'tg',
      chatId: '-100123',
      chatType: 'group',
      userId: '7',
      messageId: '9',
      text: 'see',
      attachments: [{ name: 'document-U', mimeType: 'application/octet-stream', size: 0, ref: 'telegram-file:F' }],
    });
  });
  it('ignores channel posts, edited messages, bots, taps without data or message, and empty messages', () => {
    const msg = { message_id: 1, date: 1, chat, from, text: 'x' };
    const none: Update[] = [
      {
        update_id: 1,
        channel_post: { message_id: 1, date: 1, chat: { id: -1, type: 'channel', title: 'c' }, text: 'x' },
      },
      { update_id: 2, edited_message: { ...msg, edit_date: 2 } },
      { update_id: 3, message: { ...msg, from: { ...from, is_bot: true } } },
      { update_id: 4, callback_query: { id: 'q', from, chat_instance: 'c', data: 'd' } },
      { update_id: 5, callback_query: { id: 'q', from, chat_instance: 'c', message: msg } },
      { update_id: 6, message: { message_id: 1, date: 1, chat, from } },
    ] as Update[];
    for (const update of none) expect(toChannelInput(update, 'tg'), JSON.stringify(update)).toBeNull();
  });
});

describe('toInlineKeyboard', () => {
  it('makes callback buttons row by row and drops empty rows', () => {
    expect(toInlineKeyboard([[{ label: 'Yes', data: 'y' }], [], [{ label: 'No', data: 'n' }]])).toEqual({
      inline_keyboard: [[{ text: 'Yes', callback_data: 'y' }], [{ text: 'No', callback_data: 'n' }]],
    });
    expect(toInlineKeyboard([[]])).toBeUndefined();
  });
  it('refuses empty data, an empty label and data over 64 bytes', () => {
    for (const b of [
      { label: 'a', data: '' },
      { label: ' ', data: 'x' },
      { label: 'a', data: 'x'.repeat(65) },
    ])
      expect(() => toInlineKeyboard([[b]])).toThrow(expect.objectContaining({ code: 'CHANNEL_REJECTED' }));
  });
});

describe('resolveTelegramOptions', () => {
  it('fills in the defaults and drops a trailing slash of apiRoot', () => {
    expect(resolveTelegramOptions({ token, apiRoot: 'http://127.0.0.1:8081/' })).toEqual({
      token,
      apiRoot: 'http://127.0.0.1:8081',
      id: 'telegram',
      pollingTimeoutSeconds: 30,
      requestTimeoutSeconds: 30,
    });
  });
  it.each([
    [{ token: '' }, 'token'],
    [{ token: 'not a token' }, 'token'],
    [{ token, apiRoot: 'ftp://x' }, 'apiRoot'],
    [{ token, apiRoot: `https://x/bot${token}` }, 'apiRoot'],
    [{ token, id: ' ' }, 'id'],
    [{ token, webhook: { secretToken: 'has space' } }, 'webhook.secretToken'],
    [{ token, webhook: { secretToken: 'a'.repeat(257) } }, 'webhook.secretToken'],
    [{ token, pollingTimeoutSeconds: 0 }, 'pollingTimeoutSeconds'],
  ])('refuses %o (%s) with TELEGRAM_OPTIONS_INVALID, never quoting the token', (options, option) => {
    let error: (Error & { code?: string; details?: Record<string, unknown> }) | undefined;
    try {
      new TelegramChannel(options);
    } catch (e) {
      error = e as typeof error;
    }
    expect(error?.code).toBe('TELEGRAM_OPTIONS_INVALID');
    expect(error?.details).toEqual({ option });
    expect(error?.message).not.toContain('ABCdef');
  });
});

describe('ChatQueue', () => {
  it('runs one task at a time per key, keys concurrently, and goes on after a failure', async () => {
    const queue = new ChatQueue();
    const log: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const a1 = queue.run('a', async () => {
      await gate;
      log.push('a1');
      throw new Error('boom');
    });
    const a2 = queue.run('a', async () => {
      log.push('a2');
    });
    await queue.run('b', async () => {
      log.push('b1');
    });
    expect(log).toEqual(['b1']);
    expect(queue.size).toBe(2);
    release();
    await expect(a1).rejects.toThrow('boom');
    await a2;
    await queue.idle();
    expect(log).toEqual(['b1', 'a1', 'a2']);
    expect(queue.size).toBe(0);
  });
});
