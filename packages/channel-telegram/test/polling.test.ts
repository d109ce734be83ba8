import { afterEach, describe, expect, it } from 'vitest';
import { ann, annChat, bob, family, setup } from './helpers';

let env: Awaited<ReturnType<typeof setup>> | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('TelegramChannel by long polling, against the fake Bot API over HTTP', () => {
  it('receives text, attachments and taps of private and group chats, in order', async () => {
    env = await setup();
    const { fake, inputs } = env;
    await env.start();
    // start() deleted any webhook and runs getUpdates.
    expect(fake.callsOf('deleteWebhook')).toHaveLength(1);
    await fake.until(() => fake.callsOf('getUpdates').length > 0);

    fake.userSays(annChat, ann, 'find Dune');
    fake.userSays(family, bob, 'and Arrival', {
      document: { fileName: 'list.txt', mimeType: 'text/plain', size: 120 },
    });
    const photo = fake.userSays(annChat, ann, '', { photo: { width: 1280, height: 720, size: 90_000 } });
    const tapId = fake.userTaps(annChat, ann, 1, 'approve:abc');
    await fake.until(() => inputs.length === 4);

    expect(inputs[0]).toEqual({
      kind: 'text',
      channelId: 'telegram:test',
      chatId: '1001',
      chatType: 'private',
      userId: '1001',
      messageId: '1',
      text: 'find Dune',
      attachments: [],
    });
    expect(inputs[1]).toMatchObject({
      kind: 'text',
      chatId: '-5001',
      chatType: 'group',
      userId: '1002',
      text: 'and Arrival',
    });
    expect(inputs[1]).toHaveProperty('attachments', [
      { name: 'list.txt', mimeType: 'text/plain', size: 120, ref: expect.stringMatching(/^telegram-file:file-/) },
    ]);
    const largest = photo.photo!.at(-1)!;
    expect(inputs[2]).toMatchObject({
      kind: 'text',
      text: '',
      attachments: [{ mimeType: 'image/jpeg', size: 90_000, ref: `telegram-file:${largest.file_id}` }],
    });
    expect(inputs[3]).toEqual({
      kind: 'tap',
      channelId: 'telegram:test',
      chatId: '1001',
      chatType: 'private',
      userId: '1001',
      messageId: '1',
      tapId,
      data: 'approve:abc',
    });
    // Every update was confirmed by a later offset.
    await fake.until(() => fake.pendingUpdates.length === 0);
  });

  it('hands a chat its inputs one at a time, in order; stop() waits for the one in flight', async () => {
    env = await setup();
    const { fake, inputs, channel } = env;
    let running = 0;
    let most = 0;
    let stopped = false;
    let stoppedBeforeFirstEnded: boolean | undefined;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    await env.start(async (input) => {
      running += 1;
      most = Math.max(most, running);
      if (input.kind === 'text' && input.text === 'third') {
        await gate;
        stoppedBeforeFirstEnded = stopped;
      }
      running -= 1;
    });
    fake.userSays(annChat, ann, 'first');
    fake.userSays(annChat, ann, 'second');
    fake.userSays(annChat, ann, 'third');
    await fake.until(() => inputs.length === 3);
    expect(inputs.map((i) => (i.kind === 'text' ? i.text : i.data))).toEqual(['first', 'second', 'third']);
    // 'third' is in flight: stop() resolves only after it ends.
    const stopping = channel.stop().then(() => {
      stopped = true;
    });
    release();
    await stopping;
    expect(stoppedBeforeFirstEnded).toBe(false);
    expect(most).toBe(1);
  });

  it('skips a message with neither text nor an attachment, and confirms it', async () => {
    env = await setup();
    const { fake, inputs } = env;
    await env.start();
    fake.userSays(annChat, bob, 'x');
    fake.userSays(annChat, ann, '');
    fake.userSays(annChat, ann, 'last');
    await fake.until(() => inputs.length === 2);
    await fake.until(() => fake.pendingUpdates.length === 0);
    expect(inputs.map((i) => (i.kind === 'text' ? i.text : ''))).toEqual(['x', 'last']);
  });

  it('refuses a token the Bot API does not know: CHANNEL_REJECTED, without the token in the error', async () => {
    env = await setup();
    const { fake } = env;
    const { TelegramChannel } = await import('@media-agent/channel-telegram');
    const wrong = `${fake.token.split(':')[0]}:wrongwrongwrongwrong`;
    const other = new TelegramChannel({ token: wrong, apiRoot: fake.apiRoot });
    const error = await other
      .start(async () => {})
      .then(
        () => undefined,
        (e: unknown) => e as Error & { code: string },
      );
    expect(error?.code).toBe('CHANNEL_REJECTED');
    expect(error?.message).toContain('Unauthorized');
    expect(JSON.stringify({ m: error?.message, s: error?.stack })).not.toContain(wrong);
  });

  it('keeps trying while the Bot API is down at start, then polls', async () => {
    env = await setup();
    const { fake, inputs } = env;
    fake.down = true;
    await env.start(); // resolves: polling starts when the Bot API can be reached
    fake.userSays(annChat, ann, 'while down');
    await fake.until(() => fake.calls.some((c) => c.fault === 'down'));
    fake.down = false;
    await fake.until(() => inputs.length === 1, 20_000);
    expect(inputs[0]).toMatchObject({ kind: 'text', text: 'while down' });
  });
});
