// The outbox dispatcher against an in-memory test channel, on the memory store and a real SQLite file: order per
// chat across retries, a 429 pausing one chat, an hour-long outage, a refused row, edits, stop, two dispatchers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock';
import type { ChannelSend } from '../../src/ports/channel';
import type { NewOutboxRecord } from '../../src/ports/outbox-records';
import type { StorageAdapter } from '../../src/ports/storage-adapter';
import { OutboxDispatcher } from '../../src/runtime/channels/outbox-dispatcher';
import { SqliteStorage } from '../../src/sqlite';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { rateLimited, rejected, TestChannel, unavailable } from './test-channel';

const CH = 'test:home';
const dirs: string[] = [];
const stores: StorageAdapter[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function sqliteFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-outbox-'));
  dirs.push(dir);
  return join(dir, 'agent.sqlite');
}

const STORES: Array<[string, () => Promise<StorageAdapter>]> = [
  ['memory', async () => new MemoryStorage()],
  ['sqlite file', async () => new SqliteStorage({ path: sqliteFile() })],
];

let n = 0;
function row(chatId: string, text: string, over: Partial<NewOutboxRecord> = {}): NewOutboxRecord {
  n++;
  return {
    id: `o-${n}`,
    channelId: CH,
    chatId,
    runId: 'run-1',
    kind: 'text',
    payload: { text },
    idempotencyKey: `run-1:${n}:0`,
    createdAt: Date.UTC(2026, 0, 1) - 1000 + n,
    ...over,
  };
}

describe.each(STORES)('outbox dispatcher (%s)', (_name, open) => {
  async function setup() {
    const storage = await open();
    stores.push(storage);
    await storage.migrate();
    const clock = new ManualClock();
    const channel = new TestChannel(CH);
    const dispatcher = new OutboxDispatcher({ storage, ports: [channel], clock, owner: 'p1' });
    return { storage, clock, channel, dispatcher };
  }

  it('delivers a chat in seq order with the idempotency key, and keeps the order across a retry', async () => {
    const { storage, clock, channel, dispatcher } = await setup();
    for (const t of ['one', 'two', 'three']) await storage.outbox.insert(row('chat-1', t));
    channel.failNext.push(unavailable());
    expect(await dispatcher.runOnce()).toEqual({ sent: 0, retried: 1, failed: 0 });
    expect(channel.texts()).toEqual([]);
    // Before the backoff (1 s) nothing moves; after it, everything in order.
    clock.advance(999);
    expect(await dispatcher.runOnce()).toEqual({ sent: 0, retried: 0, failed: 0 });
    clock.advance(1);
    expect(await dispatcher.runOnce()).toEqual({ sent: 3, retried: 0, failed: 0 });
    expect(channel.texts('chat-1')).toEqual(['one', 'two', 'three']);
    const stored = await storage.outbox.listByChat(CH, 'chat-1');
    expect(stored.map((r) => [r.status, r.attempts, r.sentMessageId])).toEqual([
      ['sent', 2, 'm1'],
      ['sent', 1, 'm2'],
      ['sent', 1, 'm3'],
    ]);
    expect(stored[0]!.lastError).toBe('CHANNEL_UNAVAILABLE: Bad Gateway');
    const sends = channel.delivered.map((d) => (d.kind === 'send' ? d.message.idempotencyKey : ''));
    expect(sends).toEqual(stored.map((r) => r.idempotencyKey));
  });

  it('a 429 with retry_after pauses only that chat, then it goes on in order', async () => {
    const { storage, clock, channel, dispatcher } = await setup();
    await storage.outbox.insert(row('chat-1', 'a1'));
    await storage.outbox.insert(row('chat-2', 'b1'));
    await storage.outbox.insert(row('chat-1', 'a2'));
    await storage.outbox.insert(row('chat-2', 'b2'));
    channel.failNext.push(rateLimited(30_000));
    expect(await dispatcher.runOnce()).toEqual({ sent: 2, retried: 1, failed: 0 });
    expect(channel.texts('chat-1')).toEqual([]);
    expect(channel.texts('chat-2')).toEqual(['b1', 'b2']);
    const head = (await storage.outbox.listByChat(CH, 'chat-1'))[0]!;
    expect(head.notBefore).toBe(clock.now() + 30_000);
    clock.advance(29_999);
    await dispatcher.runOnce();
    expect(channel.texts('chat-1')).toEqual([]);
    clock.advance(1);
    await dispatcher.runOnce();
    expect(channel.texts('chat-1')).toEqual(['a1', 'a2']);
  });

  it('an hour-long outage delivers everything afterwards, in order, with backoff capped at 5 minutes', async () => {
    const { storage, clock, channel, dispatcher } = await setup();
    const texts = Array.from({ length: 6 }, (_, i) => `message ${i}`);
    for (const t of texts) await storage.outbox.insert(row('chat-1', t));
    channel.down = unavailable();
    const start = clock.now();
    let maxWait = 0;
    while (clock.now() - start < 3_600_000) {
      await dispatcher.runOnce();
      const head = (await storage.outbox.listByChat(CH, 'chat-1', { status: 'queued', limit: 1 }))[0]!;
      maxWait = Math.max(maxWait, head.notBefore - clock.now());
      clock.advance(10_000);
    }
    expect(channel.texts()).toEqual([]);
    expect(maxWait).toBe(300_000);
    const queued = await storage.outbox.listByChat(CH, 'chat-1');
    expect(queued.every((r) => r.status === 'queued')).toBe(true);
    // Only the head was tried (head of line): attempts 1 s, 2 s … then every 5 minutes.
    expect(queued[0]!.attempts).toBeGreaterThan(10);
    expect(queued.slice(1).every((r) => r.attempts === 0)).toBe(true);
    channel.down = null;
    clock.advance(300_000);
    await dispatcher.runOnce();
    expect(channel.texts('chat-1')).toEqual(texts);
  });

  it('a rejected row fails for good, is audited channel.delivery_failed, and the next row goes on', async () => {
    const { storage, channel, dispatcher } = await setup();
    const bad = await storage.outbox.insert(row('chat-1', 'to a blocked bot'));
    await storage.outbox.insert(row('chat-1', 'next'));
    channel.failNext.push(rejected());
    expect(await dispatcher.runOnce()).toEqual({ sent: 1, retried: 0, failed: 1 });
    expect(channel.texts()).toEqual(['next']);
    const failed = await storage.outbox.get(bad.record.id);
    expect([failed?.status, failed?.lastError]).toEqual([
      'failed',
      'CHANNEL_REJECTED: Forbidden: bot was blocked by the user',
    ]);
    const audit = await storage.audit.list({ action: 'channel.delivery_failed' });
    expect(audit.map((a) => [a.invocationId, a.actor, a.capabilityId, a.outcome, a.idempotencyKey, a.runId])).toEqual([
      [bad.record.id, 'system:outbox', `channel.${CH}`, 'failed', bad.record.idempotencyKey, 'run-1'],
    ]);
    // Never retried.
    await dispatcher.runOnce();
    expect(channel.failures).toBe(1);
  });

  it('an edit edits the message its target sent; a target never sent (failed) makes it a new message', async () => {
    const { storage, channel, dispatcher } = await setup();
    const first = await storage.outbox.insert(row('chat-1', 'draft'));
    await storage.outbox.insert(
      row('chat-1', 'final', { kind: 'edit', payload: { text: 'final', editOf: first.record.id, buttons: null } }),
    );
    await dispatcher.runOnce();
    expect(channel.delivered).toEqual([
      { kind: 'send', messageId: 'm1', message: expect.objectContaining({ text: 'draft' }) },
      { kind: 'edit', message: { chatId: 'chat-1', messageId: 'm1', text: 'final', buttons: null } },
    ]);
    const edit = (await storage.outbox.listByChat(CH, 'chat-1'))[1]!;
    expect([edit.status, edit.sentMessageId]).toEqual(['sent', 'm1']);

    const lost = await storage.outbox.insert(row('chat-2', 'never delivered'));
    await storage.outbox.insert(
      row('chat-2', 'the edit', { kind: 'edit', payload: { text: 'the edit', editOf: lost.record.id } }),
    );
    await storage.outbox.insert(
      row('chat-2', 'a reply', { payload: { text: 'a reply', replyToOutboxId: first.record.id } }),
    );
    channel.failNext.push(rejected());
    await dispatcher.runOnce();
    expect(channel.texts('chat-2')).toEqual(['the edit', 'a reply']);
    const reply = channel.delivered.at(-1)!;
    expect(reply.kind === 'send' && reply.message.replyToMessageId).toBe('m1');
  });

  it('rows of a channel this dispatcher has no port for stay queued; a claimed chat is left to its holder', async () => {
    const { storage, clock, channel, dispatcher } = await setup();
    await storage.outbox.insert(row('chat-1', 'elsewhere', { channelId: 'slack:work' }));
    await storage.outbox.insert(row('chat-2', 'held'));
    expect(await storage.outbox.claimChat(CH, 'chat-2', 'p2', clock.now(), 10_000)).toBe(true);
    await dispatcher.runOnce();
    expect(channel.delivered).toEqual([]);
    clock.advance(10_000);
    await dispatcher.runOnce();
    expect(channel.texts()).toEqual(['held']);
    expect((await storage.outbox.listByChat('slack:work', 'chat-1'))[0]!.status).toBe('queued');
  });

  it('stop() aborts a send in flight and leaves its row queued (no attempt counted)', async () => {
    const { storage, clock } = await setup();
    const slow = new TestChannel(CH);
    let entered!: () => void;
    const inSend = new Promise<void>((resolve) => (entered = resolve));
    slow.send = (_message: ChannelSend, signal?: AbortSignal) =>
      new Promise<{ messageId: string }>((_resolve, reject) => {
        entered();
        signal?.addEventListener('abort', () => reject(new Error('aborted')));
      });
    const dispatcher = new OutboxDispatcher({ storage, ports: [slow], clock, owner: 'p1' });
    const r = await storage.outbox.insert(row('chat-1', 'in flight'));
    const pass = dispatcher.runOnce();
    await inSend;
    await dispatcher.stop();
    await pass;
    const stored = await storage.outbox.get(r.record.id);
    expect([stored?.status, stored?.attempts, stored?.lastError]).toEqual(['queued', 0, null]);
    // The claim was released: another dispatcher may take the chat at once.
    expect(await storage.outbox.claimChat(CH, 'chat-1', 'p2', clock.now(), 1000)).toBe(true);
  });

  it('polls on its own and wake() delivers at once after start()', async () => {
    const storage = await open();
    stores.push(storage);
    await storage.migrate();
    const channel = new TestChannel(CH);
    const dispatcher = new OutboxDispatcher({ storage, ports: [channel], pollIntervalMs: 60_000 });
    dispatcher.start();
    try {
      await storage.outbox.insert(row('chat-1', 'woken', { createdAt: Date.now() }));
      dispatcher.wake();
      const deadline = Date.now() + 5000;
      while (channel.texts().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(channel.texts()).toEqual(['woken']);
    } finally {
      await dispatcher.stop();
    }
    const polling = new OutboxDispatcher({ storage, ports: [channel], pollIntervalMs: 20 });
    polling.start();
    try {
      await storage.outbox.insert(row('chat-1', 'polled', { createdAt: Date.now() }));
      const deadline = Date.now() + 5000;
      while (channel.texts().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(channel.texts()).toEqual(['woken', 'polled']);
    } finally {
      await polling.stop();
    }
  });

  it('refuses bad options with OPTIONS_INVALID', async () => {
    const storage = new MemoryStorage();
    const channel = new TestChannel(CH);
    for (const bad of [
      { pollIntervalMs: 0 },
      { leaseMs: -1 },
      { firstPollDelayMs: -1 },
      { chatsPerPass: Number.NaN },
      { startDelayMs: -1 },
      { startDelayMs: Number.POSITIVE_INFINITY },
    ])
      expect(() => new OutboxDispatcher({ storage, ports: [channel], ...bad })).toThrow(
        expect.objectContaining({ code: 'OPTIONS_INVALID' }) as unknown as Error,
      );
    expect(() => new OutboxDispatcher({ storage, ports: [channel, new TestChannel(CH)] })).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID' }) as unknown as Error,
    );
  });
});

describe('startDelayMs', () => {
  it('holds every pass, a wake included, until the delay after start; then delivers', async () => {
    const storage = new MemoryStorage();
    const channel = new TestChannel(CH);
    await storage.outbox.insert(row('c1', 'held'));
    const dispatcher = new OutboxDispatcher({ storage, ports: [channel], pollIntervalMs: 5, startDelayMs: 300 });
    const started = Date.now();
    dispatcher.start();
    dispatcher.wake();
    const deadline = started + 10_000;
    while (channel.texts().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const sentAfter = Date.now() - started;
    await dispatcher.stop();
    expect(channel.texts()).toEqual(['held']);
    // Neither the wake nor the 5 ms polls sent it before the hold ended.
    expect(sentAfter).toBeGreaterThanOrEqual(290);
  });
});

describe('two dispatchers on one SQLite file', () => {
  it('never send one chat concurrently and never double-send (count)', async () => {
    const path = sqliteFile();
    const a = new SqliteStorage({ path });
    const b = new SqliteStorage({ path });
    stores.push(a, b);
    await a.migrate();
    await b.migrate();
    const chats = ['c1', 'c2', 'c3'];
    for (let i = 0; i < 20; i++)
      for (const chat of chats) await a.outbox.insert(row(chat, `${chat}-${String(i).padStart(2, '0')}`));
    // One channel shared by both (it counts every send), slow enough for the passes to overlap.
    const channel = new TestChannel(CH);
    const inFlight = new Map<string, number>();
    let overlapped = 0;
    const send = channel.send.bind(channel);
    channel.send = async (message) => {
      const now = (inFlight.get(message.chatId) ?? 0) + 1;
      inFlight.set(message.chatId, now);
      if (now > 1) overlapped++;
      // Yield to the event loop a few turns, so the other dispatcher's pass runs meanwhile.
      for (let i = 1 + Math.floor(Math.random() * 3); i > 0; i--) await new Promise((r) => setImmediate(r));
      try {
        return await send(message);
      } finally {
        inFlight.set(message.chatId, (inFlight.get(message.chatId) ?? 1) - 1);
      }
    };
    const one = new OutboxDispatcher({ storage: a, ports: [channel], owner: 'proc-a', chatsPerPass: 1 });
    const two = new OutboxDispatcher({ storage: b, ports: [channel], owner: 'proc-b', chatsPerPass: 1 });
    const drain = async (d: OutboxDispatcher) => {
      let sent = 0;
      for (let i = 0; i < 400 && channel.delivered.length < 60; i++) sent += (await d.runOnce()).sent;
      return sent;
    };
    const [byOne, byTwo] = await Promise.all([drain(one), drain(two)]);
    // Both took part, and between them sent each row once.
    expect(byOne).toBeGreaterThan(0);
    expect(byTwo).toBeGreaterThan(0);
    expect(byOne + byTwo).toBe(60);
    const texts = channel.texts();
    expect(texts).toHaveLength(60);
    expect(new Set(texts).size).toBe(60);
    expect(overlapped).toBe(0);
    for (const chat of chats) expect(channel.texts(chat)).toEqual([...channel.texts(chat)].sort());
    const stored = await a.outbox.listByChat(CH, 'c1');
    expect(stored.every((r) => r.status === 'sent' && r.attempts === 1)).toBe(true);
  });
});
