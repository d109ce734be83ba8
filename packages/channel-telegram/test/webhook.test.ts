import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TelegramChannel } from '@media-agent/channel-telegram';
import type { ChannelInput } from '@media-agent/sdk';
import { FakeBotApi } from '@media-agent/channel-telegram/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ann, annChat, family, bob } from './helpers';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A fake Bot API, a webhook channel and a node:http server mounting its handler at /telegram. */
async function webhookSetup(secretToken = 'hook_secret-1') {
  const fake = new FakeBotApi({ webhookRetryMs: 20 });
  const apiRoot = await fake.start();
  closers.push(() => fake.close());
  let channel: TelegramChannel | undefined;
  const server: Server = createServer((req, res) => {
    if (req.url === '/telegram' && channel) void channel.webhookHandler()(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/telegram`;
  channel = new TelegramChannel({ token: fake.token, apiRoot, webhook: { secretToken, url } });
  const inputs: ChannelInput[] = [];
  closers.push(() => channel!.stop());
  return { fake, channel, url, inputs };
}

describe('TelegramChannel by webhook, against the fake Bot API over HTTP', () => {
  it('registers the webhook with its secret; updates arrive in order and are confirmed', async () => {
    const { fake, channel, url, inputs } = await webhookSetup();
    await channel.start(async (input) => {
      inputs.push(input);
    });
    expect(fake.webhook).toEqual({ url, secret: 'hook_secret-1' });
    expect(fake.callsOf('setWebhook')[0]!.params).toMatchObject({ allowed_updates: ['message', 'callback_query'] });
    fake.userSays(annChat, ann, 'one');
    fake.userSays(family, bob, 'two');
    const tapId = fake.userTaps(annChat, ann, 1, 'choice:1');
    await fake.until(() => inputs.length === 3);
    expect(inputs.map((i) => (i.kind === 'text' ? i.text : i.tapId))).toEqual(['one', 'two', tapId]);
    await fake.until(() => fake.pendingUpdates.length === 0);
    expect(fake.webhookDeliveries.map((d) => d.status)).toEqual([200, 200, 200]);
    // Long polling is refused while a webhook is set, as on Telegram.
    const poll = await fetch(`${fake.apiRoot}/bot${fake.token}/getUpdates`);
    expect(poll.status).toBe(409);
  });

  it('answers 401 to a wrong or missing secret and handles nothing', async () => {
    const { fake, channel, url, inputs } = await webhookSetup();
    await channel.start(async (input) => {
      inputs.push(input);
    });
    const update = {
      update_id: 1,
      message: {
        message_id: 1,
        date: 1,
        chat: { id: 5, type: 'private', first_name: 'X' },
        from: { id: 5, is_bot: false, first_name: 'X' },
        text: 'forged',
      },
    };
    for (const headers of [{ 'x-telegram-bot-api-secret-token': 'wrong' }, {}] as Array<Record<string, string>>) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(update),
      });
      expect(res.status).toBe(401);
    }
    // Telegram with another secret: each delivery refused, retried, never handled.
    await fake.close();
    const other = new FakeBotApi({ token: fake.token, webhookRetryMs: 20 });
    await other.start();
    closers.push(() => other.close());
    await fetch(`${other.apiRoot}/bot${other.token}/setWebhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url, secret_token: 'not_the_secret' }),
    });
    other.userSays(annChat, ann, 'hello');
    await other.until(() => other.webhookDeliveries.length >= 2);
    expect(new Set(other.webhookDeliveries.map((d) => d.status))).toEqual(new Set([401]));
    expect(other.pendingUpdates).toHaveLength(1);
    expect(inputs).toEqual([]);
  });

  it('answers 500 when handling fails, so Telegram delivers the update again; 503 once stopped', async () => {
    const { fake, channel, url, inputs } = await webhookSetup();
    let failures = 1;
    await channel.start(async (input) => {
      if (failures-- > 0) throw new Error('inbox full');
      inputs.push(input);
    });
    fake.userSays(annChat, ann, 'retry me');
    // The handler has the input before the fake has the 200 of its delivery: wait for both.
    await fake.until(() => inputs.length === 1 && fake.webhookDeliveries.length >= 2);
    expect(fake.webhookDeliveries.map((d) => d.status)).toEqual([500, 200]);
    await channel.stop();
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'x-telegram-bot-api-secret-token': 'hook_secret-1', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(503);
  });

  it('has a web-standard handler answering the same; a polling channel has no webhook handler', async () => {
    const { fake, channel, inputs } = await webhookSetup();
    await channel.start(async (input) => {
      inputs.push(input);
    });
    const handle = channel.webhookFetchHandler();
    const update = {
      update_id: 9,
      message: {
        message_id: 3,
        date: 1,
        chat: { id: 5, type: 'private', first_name: 'X' },
        from: { id: 5, is_bot: false, first_name: 'X' },
        text: 'direct',
      },
    };
    const bad = await handle(
      new Request('http://h/t', {
        method: 'POST',
        headers: { 'x-telegram-bot-api-secret-token': 'nope' },
        body: JSON.stringify(update),
      }),
    );
    expect(bad.status).toBe(401);
    expect(inputs).toEqual([]);
    const good = await handle(
      new Request('http://h/t', {
        method: 'POST',
        headers: { 'x-telegram-bot-api-secret-token': 'hook_secret-1' },
        body: JSON.stringify(update),
      }),
    );
    expect(good.status).toBe(200);
    expect(inputs).toMatchObject([{ kind: 'text', chatId: '5', text: 'direct' }]);
    const polling = new TelegramChannel({ token: fake.token, apiRoot: fake.apiRoot });
    expect(() => polling.webhookHandler()).toThrow(expect.objectContaining({ code: 'TELEGRAM_OPTIONS_INVALID' }));
  });
});
