import { ChannelError } from '@media-agent/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { ann, annChat, bob, family, rejection, setup } from './helpers';

let env: Awaited<ReturnType<typeof setup>> | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const chatId = String(annChat.id);

describe('TelegramChannel sends, edits and answers taps, against the fake Bot API over HTTP', () => {
  it('sends with buttons as a reply, edits (keeping, replacing and removing buttons) and answers a tap', async () => {
    env = await setup();
    const { fake, channel } = env;
    const question = fake.userSays(annChat, ann, 'download Dune?');
    const { messageId } = await channel.send({
      chatId,
      text: 'Download Dune (2021), 2160p, 18 GB?',
      replyToMessageId: String(question.message_id),
      buttons: [
        [
          { label: 'Yes', data: 'approve:1:h' },
          { label: 'No', data: 'deny:1:h' },
        ],
      ],
      idempotencyKey: 'k1',
    });
    expect(fake.sent(annChat.id)).toEqual([
      {
        messageId: Number(messageId),
        text: 'Download Dune (2021), 2160p, 18 GB?',
        buttons: [
          [
            { text: 'Yes', data: 'approve:1:h' },
            { text: 'No', data: 'deny:1:h' },
          ],
        ],
        replyTo: question.message_id,
        edits: 0,
      },
    ]);
    // The wire: reply_parameters and an inline keyboard, no parse_mode (plain text).
    const params = fake.callsOf('sendMessage')[0]!.params;
    expect(params).toMatchObject({ reply_parameters: { message_id: question.message_id } });
    expect(params).not.toHaveProperty('parse_mode');

    // An edit without `buttons` keeps them; the same edit again is success ("message is not modified").
    await channel.edit({ chatId, messageId, text: 'Download Dune (2021)? (waiting)' });
    await channel.edit({ chatId, messageId, text: 'Download Dune (2021)? (waiting)' });
    expect(fake.callsOf('editMessageText').map((c) => c.status)).toEqual([200, 400]);
    expect(fake.sent(annChat.id)[0]).toMatchObject({ text: 'Download Dune (2021)? (waiting)', edits: 1 });
    expect(fake.sent(annChat.id)[0]!.buttons).toHaveLength(1);
    await channel.edit({ chatId, messageId, text: 'Pick one', buttons: [[{ label: 'A', data: 'a' }]] });
    expect(fake.sent(annChat.id)[0]!.buttons).toEqual([[{ text: 'A', data: 'a' }]]);
    await channel.edit({ chatId, messageId, text: 'Approved by Ann', buttons: null });
    expect(fake.sent(annChat.id)[0]).toMatchObject({ text: 'Approved by Ann', buttons: [], edits: 3 });

    const tapId = fake.userTaps(annChat, ann, Number(messageId), 'approve:1:h');
    await channel.answerTap(tapId, 'Approved', false);
    expect(fake.tapAnswers).toEqual([{ callbackQueryId: tapId, text: 'Approved', showAlert: false }]);
    // A second answer to the same tap is refused by the Bot API: CHANNEL_REJECTED.
    expect((await rejection(channel.answerTap(tapId, 'again', true))).code).toBe('CHANNEL_REJECTED');
  });

  it('maps 429 to CHANNEL_RATE_LIMITED with retryAfterMs from parameters.retry_after, and sends nothing', async () => {
    env = await setup();
    const { fake, channel } = env;
    fake.addChat(annChat);
    fake.failNext('sendMessage', { kind: 'rate_limit', retryAfter: 7 });
    const error = await rejection(channel.send({ chatId, text: 'hi', idempotencyKey: 'k' }));
    expect(error).toBeInstanceOf(ChannelError);
    expect(error.code).toBe('CHANNEL_RATE_LIMITED');
    expect((error as ChannelError).retryAfterMs).toBe(7000);
    expect(error.message).toContain('Too Many Requests: retry after 7');
    expect(fake.sent(annChat.id)).toEqual([]);
    // grammY did not retry on its own: one call, the outbox owns retries.
    expect(fake.callsOf('sendMessage')).toHaveLength(1);
    await channel.send({ chatId, text: 'hi', idempotencyKey: 'k' });
    expect(fake.sent(annChat.id).map((m) => m.text)).toEqual(['hi']);
  });

  it.each([
    ['a 500 with a Bot API error', { kind: 'server_error', status: 500 } as const],
    ['a 502 HTML page of a proxy', { kind: 'server_error', status: 502 } as const],
    ['a connection reset', { kind: 'reset' } as const],
  ])('maps %s to CHANNEL_UNAVAILABLE', async (_name, fault) => {
    env = await setup();
    const { fake, channel } = env;
    fake.addChat(annChat);
    fake.failNext('sendMessage', fault);
    const error = await rejection(channel.send({ chatId, text: 'hi', idempotencyKey: 'k' }));
    expect(error.code).toBe('CHANNEL_UNAVAILABLE');
    expect(error.message).not.toContain(fake.token);
    expect(fake.callsOf('sendMessage')).toHaveLength(1);
    expect(fake.sent(annChat.id)).toEqual([]);
  });

  it('maps the Bot API being down, and an edit failing with 5xx, to CHANNEL_UNAVAILABLE', async () => {
    env = await setup();
    const { fake, channel } = env;
    fake.addChat(annChat);
    const { messageId } = await channel.send({ chatId, text: 'one', idempotencyKey: 'k' });
    fake.down = true;
    expect((await rejection(channel.send({ chatId, text: 'two', idempotencyKey: 'k2' }))).code).toBe(
      'CHANNEL_UNAVAILABLE',
    );
    fake.down = false;
    fake.failNext('editMessageText', { kind: 'server_error', status: 503 });
    expect((await rejection(channel.edit({ chatId, messageId, text: 'uno' }))).code).toBe('CHANNEL_UNAVAILABLE');
    expect(fake.sent(annChat.id).map((m) => m.text)).toEqual(['one']);
  });

  it('maps "message is too long" (send and edit) to CHANNEL_MESSAGE_TOO_LONG; 4096 characters pass', async () => {
    env = await setup();
    const { fake, channel } = env;
    fake.addChat(annChat);
    const { messageId } = await channel.send({ chatId, text: 'é'.repeat(4096), idempotencyKey: 'k' });
    const tooLong = await rejection(channel.send({ chatId, text: 'x'.repeat(4097), idempotencyKey: 'k2' }));
    expect(tooLong.code).toBe('CHANNEL_MESSAGE_TOO_LONG');
    expect(tooLong.message).toContain('message is too long');
    expect((await rejection(channel.edit({ chatId, messageId, text: 'y'.repeat(5000) }))).code).toBe(
      'CHANNEL_MESSAGE_TOO_LONG',
    );
    expect(fake.sent(annChat.id)).toHaveLength(1);
    expect(fake.sent(annChat.id)[0]!.text).toHaveLength(4096);
  });

  it('maps 403 (bot blocked), 400 chat not found and a vanished message to CHANNEL_REJECTED', async () => {
    env = await setup();
    const { fake, channel } = env;
    fake.userSays(family, bob, 'hi');
    fake.blockBot(family.id);
    const blocked = await rejection(channel.send({ chatId: String(family.id), text: 'hello', idempotencyKey: 'k' }));
    expect(blocked.code).toBe('CHANNEL_REJECTED');
    expect(blocked.details).toMatchObject({ method: 'sendMessage', errorCode: 403 });
    expect(blocked.message).toContain('bot was blocked by the user');
    const unknown = await rejection(channel.send({ chatId: '424242', text: 'hello', idempotencyKey: 'k' }));
    expect(unknown.code).toBe('CHANNEL_REJECTED');
    expect(unknown.message).toContain('chat not found');
    fake.addChat(annChat);
    expect((await rejection(channel.edit({ chatId, messageId: '99', text: 'x' }))).code).toBe('CHANNEL_REJECTED');
  });

  it('refuses a button whose data is over 64 bytes, or a chat id that is no Telegram id, before sending', async () => {
    env = await setup();
    const { fake, channel } = env;
    fake.addChat(annChat);
    const data = 'ü'.repeat(33); // 66 bytes in UTF-8, 33 characters
    const big = await rejection(
      channel.send({ chatId, text: 'x', buttons: [[{ label: 'Go', data }]], idempotencyKey: 'k' }),
    );
    expect(big.code).toBe('CHANNEL_REJECTED');
    expect((await rejection(channel.send({ chatId: 'ann', text: 'x', idempotencyKey: 'k' }))).code).toBe(
      'CHANNEL_REJECTED',
    );
    expect(fake.callsOf('sendMessage')).toEqual([]);
    // 64 bytes exactly pass.
    await channel.send({ chatId, text: 'x', buttons: [[{ label: 'Go', data: 'ü'.repeat(32) }]], idempotencyKey: 'k' });
    expect(fake.sent(annChat.id)[0]!.buttons[0]![0]!.data).toBe('ü'.repeat(32));
  });

  it('never puts the token in an error: message, details, stack, JSON or cause', async () => {
    env = await setup();
    const { fake, channel } = env;
    fake.addChat(annChat);
    const errors: Array<Awaited<ReturnType<typeof rejection>>> = [];
    for (const fault of [
      { kind: 'reset' },
      { kind: 'server_error', status: 502 },
      { kind: 'rate_limit', retryAfter: 1 },
      { kind: 'error', status: 400, description: `Bad Request: echo bot${fake.token}/sendMessage` },
    ] as const) {
      fake.failNext('sendMessage', fault);
      errors.push(await rejection(channel.send({ chatId, text: 'x', idempotencyKey: 'k' })));
    }
    fake.down = true;
    errors.push(await rejection(channel.answerTap('1', 'x', false)));
    expect(errors.map((e) => e.code)).toEqual([
      'CHANNEL_UNAVAILABLE',
      'CHANNEL_UNAVAILABLE',
      'CHANNEL_RATE_LIMITED',
      'CHANNEL_REJECTED',
      'CHANNEL_UNAVAILABLE',
    ]);
    const secret = fake.token.split(':')[1]!;
    for (const e of errors) {
      const text = [e.message, e.stack, JSON.stringify(e), JSON.stringify(e.details), String(e.cause)].join('\n');
      expect(text).not.toContain(secret);
    }
    expect(errors[3]!.message).toContain('[REDACTED]');
    expect(channel.secretValues()).toEqual([fake.token]);
  });
});
