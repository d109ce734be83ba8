import { FakeBotApi } from '@media-agent/channel-telegram/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ann, annChat } from './helpers';

let fake: FakeBotApi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function call(method: string, body?: unknown, token = fake!.token) {
  const res = await fetch(`${fake!.apiRoot}/bot${token}/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('FakeBotApi speaks the Bot API wire format', () => {
  it('answers a wrong token 401, an unknown method 404, getMe with the bot user', async () => {
    fake = new FakeBotApi({ token: '42:secretsecretsecret' });
    await fake.start();
    expect(await call('getMe', undefined, '42:other')).toEqual({
      status: 401,
      body: { ok: false, error_code: 401, description: 'Unauthorized' },
    });
    expect((await call('noSuchMethod')).status).toBe(404);
    const me = await call('getme'); // method names are case-insensitive
    expect(me.body).toMatchObject({ ok: true, result: { id: 42, is_bot: true, username: 'media_agent_bot' } });
  });

  it('long-polls getUpdates: waits up to timeout, wakes on an update, confirms by offset', async () => {
    fake = new FakeBotApi();
    await fake.start();
    const started = Date.now();
    expect((await call('getUpdates', { timeout: 1 })).body).toEqual({ ok: true, result: [] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const waiting = call('getUpdates', { timeout: 30 });
    await fake.until(() => fake!.calls.length === 1 && fake!.pendingUpdates.length === 0);
    fake.userSays(annChat, ann, 'hi');
    const got = (await waiting).body.result as Array<{
      update_id: number;
      message: { text: string; chat: { type: string } };
    }>;
    expect(got).toHaveLength(1);
    expect(got[0]!.message).toMatchObject({ text: 'hi', chat: { type: 'private', first_name: 'Ann' } });
    expect(((await call('getUpdates', {})).body.result as unknown[]).length).toBe(1); // not confirmed yet
    expect((await call('getUpdates', { offset: got[0]!.update_id + 1 })).body.result).toEqual([]);
  });

  it('validates sendMessage: chat, text length, callback data; form-encoded parameters work too', async () => {
    fake = new FakeBotApi();
    await fake.start();
    expect((await call('sendMessage', { chat_id: 1, text: 'x' })).body).toMatchObject({
      error_code: 400,
      description: 'Bad Request: chat not found',
    });
    fake.addChat(annChat);
    expect((await call('sendMessage', { chat_id: ann.id, text: 'x'.repeat(4097) })).body).toMatchObject({
      description: 'Bad Request: message is too long',
    });
    const keyboard = { inline_keyboard: [[{ text: 'Go', callback_data: 'x'.repeat(65) }]] };
    expect((await call('sendMessage', { chat_id: ann.id, text: 'x', reply_markup: keyboard })).body).toMatchObject({
      error_code: 400,
      description: 'Bad Request: BUTTON_DATA_INVALID',
    });
    const form = new URLSearchParams({
      chat_id: String(ann.id),
      text: 'form',
      reply_markup: JSON.stringify({ inline_keyboard: [[{ text: 'Go', callback_data: 'go' }]] }),
    });
    const res = await fetch(`${fake.apiRoot}/bot${fake.token}/sendMessage`, { method: 'POST', body: form });
    expect(res.status).toBe(200);
    expect(fake.sent(ann.id)).toEqual([
      { messageId: 1, text: 'form', buttons: [[{ text: 'Go', data: 'go' }]], edits: 0 },
    ]);
  });

  it('plays scripted faults in order, then answers normally', async () => {
    fake = new FakeBotApi();
    await fake.start();
    fake.failNext('getMe', { kind: 'rate_limit', retryAfter: 2 });
    fake.failNext('getMe', { kind: 'server_error', status: 502 });
    fake.failNext('getMe', { kind: 'reset' });
    const limited = await call('getMe');
    expect(limited).toEqual({
      status: 429,
      body: {
        ok: false,
        error_code: 429,
        description: 'Too Many Requests: retry after 2',
        parameters: { retry_after: 2 },
      },
    });
    const html = await fetch(`${fake.apiRoot}/bot${fake.token}/getMe`);
    expect(html.status).toBe(502);
    expect(html.headers.get('content-type')).toBe('text/html');
    await expect(fetch(`${fake.apiRoot}/bot${fake.token}/getMe`)).rejects.toThrow();
    expect((await call('getMe')).status).toBe(200);
    expect(fake.callsOf('getMe').map((c) => [c.status, c.fault])).toEqual([
      [429, 'rate_limit'],
      [502, 'server_error'],
      [0, 'reset'],
      [200, undefined],
    ]);
  });
});
