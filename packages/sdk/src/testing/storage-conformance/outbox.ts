/** Conformance cases for the channel outbox (`storage.outbox`): idempotent insert, order per chat, claims, marks. */
import assert from 'node:assert/strict';
import type { NewOutboxRecord } from '../../ports/outbox-records';
import { UNICODE } from './fixtures';
import { type ConformanceCase, ids, rejectsWithCode, rolledBack } from './helpers';

const T0 = 1_700_000_000_000;
const CHANNEL = 'telegram:home';

/** A `text` row `id` for chat `chat-1` of run `run-1`, key `key-<id>`, written at T0; `overrides` win. */
function row(id: string, overrides: Partial<NewOutboxRecord> = {}): NewOutboxRecord {
  return {
    id,
    channelId: CHANNEL,
    chatId: 'chat-1',
    runId: 'run-1',
    kind: 'text',
    payload: { text: `text of ${id}` },
    idempotencyKey: `key-${id}`,
    createdAt: T0,
    ...overrides,
  };
}

/** Registers the outbox cases. */
export function outboxCases(test: ConformanceCase): void {
  test('outbox: insert stores a queued row with the chat’s next seq; the same idempotency key writes nothing', async (s) => {
    const payload = {
      text: UNICODE,
      buttons: [[{ label: UNICODE, data: 'approve:a1:h' }], [{ label: 'No', data: 'reject:a1' }]],
      replyTo: '42',
    };
    const first = await s.outbox.insert(row('o-1', { payload, chatId: UNICODE, kind: 'approval' }));
    assert.equal(first.inserted, true);
    assert.deepEqual(first.record, {
      id: 'o-1',
      channelId: CHANNEL,
      chatId: UNICODE,
      seq: 1,
      runId: 'run-1',
      kind: 'approval',
      payload,
      idempotencyKey: 'key-o-1',
      status: 'queued',
      attempts: 0,
      notBefore: T0,
      sentMessageId: null,
      lastError: null,
      createdAt: T0,
      sentAt: null,
    });
    assert.deepEqual(await s.outbox.get('o-1'), first.record);
    assert.deepEqual(await s.outbox.getByKey('key-o-1'), first.record);
    // The same key again (another id, another text): the stored row comes back, nothing is written.
    const again = await s.outbox.insert(row('o-1b', { idempotencyKey: 'key-o-1', payload: { text: 'other' } }));
    assert.deepEqual(again, { record: first.record, inserted: false });
    assert.equal(await s.outbox.get('o-1b'), undefined);
    // The next row of the chat gets seq 2; another chat starts at 1; notBefore is kept when given.
    assert.equal((await s.outbox.insert(row('o-2', { chatId: UNICODE }))).record.seq, 2);
    const other = await s.outbox.insert(row('o-3', { chatId: 'chat-2', notBefore: T0 + 5, runId: null }));
    assert.deepEqual([other.record.seq, other.record.notBefore, other.record.runId], [1, T0 + 5, null]);
    assert.equal(await s.outbox.get('missing'), undefined);
    assert.equal(await s.outbox.getByKey('missing'), undefined);
  });

  test('outbox: a malformed row is refused with OUTBOX_INPUT_INVALID and writes nothing', async (s) => {
    const bad: NewOutboxRecord[] = [
      row('b-1', { chatId: '' }),
      row('b-2', { idempotencyKey: '' }),
      row('b-3', { kind: 'shout' as never }),
      row('b-4', { kind: 'edit' }),
      row('b-5', { payload: { text: 3 as never } }),
      row('b-6', { payload: { text: 'x', buttons: [[{ label: 'a' } as never]] } }),
      row('b-7', { createdAt: -1 }),
    ];
    for (const r of bad) await rejectsWithCode(s.outbox.insert(r), 'OUTBOX_INPUT_INVALID');
    assert.deepEqual(await s.outbox.listByChat(CHANNEL, 'chat-1'), []);
    // The chat's counter was not advanced either: the first good row is seq 1.
    assert.equal((await s.outbox.insert(row('ok'))).record.seq, 1);
  });

  test('outbox: listByChat lists in seq order (by status when given); listByRun lists a run’s rows oldest first', async (s) => {
    await s.outbox.insert(row('a', { createdAt: T0 + 2 }));
    await s.outbox.insert(row('b', { createdAt: T0 + 1, runId: 'run-2' }));
    await s.outbox.insert(row('c', { createdAt: T0 }));
    await s.outbox.insert(row('d', { chatId: 'chat-0', createdAt: T0 + 1 }));
    assert.deepEqual(ids(await s.outbox.listByChat(CHANNEL, 'chat-1')), ['a', 'b', 'c']);
    assert.deepEqual(ids(await s.outbox.listByChat(CHANNEL, 'chat-1', { limit: 2 })), ['a', 'b']);
    assert.ok(await s.outbox.markSent('a', 'm-1', T0 + 10));
    assert.deepEqual(ids(await s.outbox.listByChat(CHANNEL, 'chat-1', { status: 'queued' })), ['b', 'c']);
    assert.deepEqual(ids(await s.outbox.listByChat(CHANNEL, 'chat-1', { status: 'sent' })), ['a']);
    assert.deepEqual(ids(await s.outbox.listByRun('run-1')), ['c', 'd', 'a']);
    assert.deepEqual(ids(await s.outbox.listByRun('run-1', { limit: 1 })), ['c']);
    assert.deepEqual(await s.outbox.listByRun('none'), []);
  });

  test('outbox: markSent, markFailed and retryLater change a queued row only', async (s) => {
    await s.outbox.insert(row('a'));
    await s.outbox.insert(row('b'));
    await s.outbox.insert(row('c'));
    assert.equal(await s.outbox.retryLater('a', T0 + 1000, 'CHANNEL_UNAVAILABLE: down'), true);
    let a = await s.outbox.get('a');
    assert.deepEqual(
      [a?.status, a?.attempts, a?.notBefore, a?.lastError],
      ['queued', 1, T0 + 1000, 'CHANNEL_UNAVAILABLE: down'],
    );
    assert.equal(await s.outbox.markSent('a', 'm-7', T0 + 1001), true);
    a = await s.outbox.get('a');
    assert.deepEqual(
      [a?.status, a?.attempts, a?.sentMessageId, a?.sentAt, a?.lastError],
      ['sent', 2, 'm-7', T0 + 1001, 'CHANNEL_UNAVAILABLE: down'],
    );
    // A sent row stays sent.
    assert.equal(await s.outbox.markSent('a', 'm-8', T0 + 2000), false);
    assert.equal(await s.outbox.markFailed('a', 'x'), false);
    assert.equal(await s.outbox.retryLater('a', T0, 'x'), false);
    assert.equal((await s.outbox.get('a'))?.sentMessageId, 'm-7');
    assert.equal(await s.outbox.markFailed('b', 'CHANNEL_REJECTED: chat not found'), true);
    const b = await s.outbox.get('b');
    assert.deepEqual(
      [b?.status, b?.attempts, b?.lastError, b?.sentAt],
      ['failed', 1, 'CHANNEL_REJECTED: chat not found', null],
    );
    assert.equal(await s.outbox.markSent('b', 'm', T0), false);
    assert.equal(await s.outbox.markSent('missing', 'm', T0), false);
    assert.equal((await s.outbox.get('c'))?.status, 'queued');
  });

  test('outbox: dueChats finds chats whose first queued row is due, of the given channels, not claimed by another owner', async (s) => {
    // chat-1: head due. chat-2: head paused until T0 + 100 (a later row that is due does not overtake it).
    // chat-3: everything sent. chat-4: another channel.
    await s.outbox.insert(row('1a', { createdAt: T0 - 5 }));
    await s.outbox.insert(row('2a', { chatId: 'chat-2', createdAt: T0 - 10 }));
    await s.outbox.insert(row('2b', { chatId: 'chat-2', createdAt: T0 - 9 }));
    await s.outbox.retryLater('2a', T0 + 100, 'CHANNEL_RATE_LIMITED: slow down');
    await s.outbox.insert(row('3a', { chatId: 'chat-3' }));
    await s.outbox.markSent('3a', 'm', T0);
    await s.outbox.insert(row('4a', { channelId: 'slack:work', chatId: 'chat-4', createdAt: T0 - 20 }));
    const due = (now: number, owner = 'me', channelIds = [CHANNEL]) => s.outbox.dueChats(now, { channelIds, owner });
    assert.deepEqual(await due(T0), [{ channelId: CHANNEL, chatId: 'chat-1' }]);
    assert.deepEqual(await due(T0 + 100), [
      { channelId: CHANNEL, chatId: 'chat-1' },
      { channelId: CHANNEL, chatId: 'chat-2' },
    ]);
    assert.deepEqual(await due(T0, 'me', [CHANNEL, 'slack:work']), [
      { channelId: 'slack:work', chatId: 'chat-4' },
      { channelId: CHANNEL, chatId: 'chat-1' },
    ]);
    assert.deepEqual(await due(T0, 'me', []), []);
    assert.deepEqual(await s.outbox.dueChats(T0 + 100, { channelIds: [CHANNEL], owner: 'me', limit: 1 }), [
      { channelId: CHANNEL, chatId: 'chat-1' },
    ]);
    // Claimed by another owner: not due for me until the claim expires; due for the holder.
    assert.equal(await s.outbox.claimChat(CHANNEL, 'chat-1', 'other', T0, 1000), true);
    assert.deepEqual(await due(T0), []);
    assert.deepEqual(await due(T0, 'other'), [{ channelId: CHANNEL, chatId: 'chat-1' }]);
    assert.deepEqual(await due(T0 + 1000), [
      { channelId: CHANNEL, chatId: 'chat-1' },
      { channelId: CHANNEL, chatId: 'chat-2' },
    ]);
    // A failed head lets the next row lead.
    await s.outbox.markFailed('2a', 'CHANNEL_REJECTED: blocked');
    assert.deepEqual(await due(T0 + 1000, 'other'), [
      { channelId: CHANNEL, chatId: 'chat-2' },
      { channelId: CHANNEL, chatId: 'chat-1' },
    ]);
  });

  test('outbox: a chat claim is held by one owner until it expires or is released; the holder renews it', async (s) => {
    assert.equal(await s.outbox.claimChat(CHANNEL, 'chat-1', 'p1', T0, 1000), false, 'a chat without rows');
    await s.outbox.insert(row('a'));
    assert.equal(await s.outbox.claimChat(CHANNEL, 'chat-1', 'p1', T0, 1000), true);
    assert.equal(await s.outbox.claimChat(CHANNEL, 'chat-1', 'p2', T0 + 999, 1000), false);
    assert.equal(await s.outbox.claimChat(CHANNEL, 'chat-1', 'p1', T0 + 500, 1000), true, 'renewed to T0 + 1500');
    assert.equal(await s.outbox.claimChat(CHANNEL, 'chat-1', 'p2', T0 + 1499, 1000), false);
    assert.equal(await s.outbox.claimChat(CHANNEL, 'chat-1', 'p2', T0 + 1500, 1000), true, 'expired: taken over');
    assert.equal(await s.outbox.releaseChat(CHANNEL, 'chat-1', 'p1'), false, 'p1 no longer holds it');
    assert.equal(await s.outbox.releaseChat(CHANNEL, 'chat-1', 'p2'), true);
    assert.equal(await s.outbox.claimChat(CHANNEL, 'chat-1', 'p1', T0 + 1501, 1000), true, 'released: free');
  });

  test('outbox: rows inserted in a rolled-back transaction are gone, and their seq is handed out again', async (s) => {
    await s.outbox.insert(row('a'));
    await rolledBack(s, async (tx) => {
      assert.equal((await tx.outbox.insert(row('b'))).record.seq, 2);
    });
    assert.equal(await s.outbox.get('b'), undefined);
    assert.equal(await s.outbox.getByKey('key-b'), undefined);
    assert.equal((await s.outbox.insert(row('c'))).record.seq, 2);
  });

  test('outbox: concurrent inserts into one chat get distinct seqs; concurrent inserts of one key store one row; concurrent claims give one holder', async (s) => {
    const inserted = await Promise.all(Array.from({ length: 8 }, (_, i) => s.outbox.insert(row(`r-${i}`))));
    assert.deepEqual(
      inserted.map((r) => r.record.seq).sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
    const same = await Promise.all(
      Array.from({ length: 6 }, (_, i) => s.outbox.insert(row(`k-${i}`, { idempotencyKey: 'one-key' }))),
    );
    assert.equal(same.filter((r) => r.inserted).length, 1);
    assert.equal(new Set(same.map((r) => r.record.id)).size, 1);
    const claims = await Promise.all(
      Array.from({ length: 6 }, (_, i) => s.outbox.claimChat(CHANNEL, 'chat-1', `p${i}`, T0, 60_000)),
    );
    assert.equal(claims.filter(Boolean).length, 1);
  });
}
