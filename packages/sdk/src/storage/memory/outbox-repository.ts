// The channel outbox in the memory store (the rules of ports/outbox-repository.ts).
import type { OutboxChat, OutboxRecord } from '../../ports/outbox-records';
import type { StorageSession } from '../../ports/storage-adapter';
import { assertOutboxInput } from '../outbox-input';
import { byCodePoint, type MemoryTables, type SyncRepository } from './memory-tables';

/** Per chat: the last seq handed out and the dispatcher's claim (the SQL stores' `channel_outbox_chats`). */
interface ChatRow {
  lastSeq: number;
  claimOwner: string | null;
  claimUntil: number | null;
}

/** The key of a chat in the `outboxChats` table. */
const chatKey = (channelId: string, chatId: string): string => `${channelId}\u0000${chatId}`;

/** The outbox repository. Synchronous; writes register their undo on `t`. @internal */
export function memoryOutboxRepository(t: MemoryTables): SyncRepository<StorageSession['outbox']> {
  const rowsOf = (channelId: string, chatId: string): OutboxRecord[] =>
    [...t.table<OutboxRecord>('outbox').values()]
      .filter((r) => r.channelId === channelId && r.chatId === chatId)
      .sort((a, b) => a.seq - b.seq);
  const byKey = (key: string): OutboxRecord | undefined =>
    [...t.table<OutboxRecord>('outbox').values()].find((r) => r.idempotencyKey === key);
  const update = (id: string, patch: (r: OutboxRecord) => OutboxRecord): boolean => {
    const stored = t.table<OutboxRecord>('outbox').get(id);
    if (!stored || stored.status !== 'queued') return false;
    t.write('outbox', id, patch(stored));
    return true;
  };
  return {
    insert: (input) => {
      assertOutboxInput(input);
      const stored = byKey(input.idempotencyKey);
      if (stored) return { record: t.read<OutboxRecord>('outbox', stored.id)!, inserted: false };
      const key = chatKey(input.channelId, input.chatId);
      const chat = t.table<ChatRow>('outboxChats').get(key);
      const seq = (chat?.lastSeq ?? 0) + 1;
      t.write(
        'outboxChats',
        key,
        chat ? { ...chat, lastSeq: seq } : { lastSeq: seq, claimOwner: null, claimUntil: null },
      );
      const record: OutboxRecord = {
        id: input.id,
        channelId: input.channelId,
        chatId: input.chatId,
        seq,
        runId: input.runId,
        kind: input.kind,
        payload: input.payload,
        idempotencyKey: input.idempotencyKey,
        status: 'queued',
        attempts: 0,
        notBefore: input.notBefore ?? input.createdAt,
        sentMessageId: null,
        lastError: null,
        createdAt: input.createdAt,
        sentAt: null,
      };
      t.insertNew('outbox', record.id, record);
      return { record: t.read<OutboxRecord>('outbox', record.id)!, inserted: true };
    },
    get: (id) => t.read<OutboxRecord>('outbox', id),
    getByKey: (key) => {
      const stored = byKey(key);
      return stored ? t.read<OutboxRecord>('outbox', stored.id) : undefined;
    },
    listByRun: (runId, options = {}) =>
      t
        .all<OutboxRecord>('outbox')
        .filter((r) => r.runId === runId)
        .sort(
          (a, b) =>
            a.createdAt - b.createdAt ||
            byCodePoint(a.channelId, b.channelId) ||
            byCodePoint(a.chatId, b.chatId) ||
            a.seq - b.seq,
        )
        .slice(0, options.limit ?? 100),
    listByChat: (channelId, chatId, options = {}) =>
      rowsOf(channelId, chatId)
        .filter((r) => options.status === undefined || r.status === options.status)
        .slice(0, options.limit ?? 100)
        .map((r) => t.read<OutboxRecord>('outbox', r.id)!),
    dueChats: (now, options) => {
      const heads = new Map<string, OutboxRecord>();
      for (const r of t.table<OutboxRecord>('outbox').values()) {
        if (r.status !== 'queued' || !options.channelIds.includes(r.channelId)) continue;
        const key = chatKey(r.channelId, r.chatId);
        const head = heads.get(key);
        if (!head || r.seq < head.seq) heads.set(key, r);
      }
      const due: OutboxRecord[] = [];
      for (const [key, head] of heads) {
        if (head.notBefore > now) continue;
        const chat = t.table<ChatRow>('outboxChats').get(key);
        if (chat && chat.claimUntil !== null && chat.claimUntil > now && chat.claimOwner !== options.owner) continue;
        due.push(head);
      }
      return due
        .sort(
          (a, b) =>
            a.notBefore - b.notBefore ||
            a.createdAt - b.createdAt ||
            byCodePoint(a.channelId, b.channelId) ||
            byCodePoint(a.chatId, b.chatId),
        )
        .slice(0, options.limit ?? 50)
        .map((r): OutboxChat => ({ channelId: r.channelId, chatId: r.chatId }));
    },
    claimChat: (channelId, chatId, owner, now, leaseMs) => {
      const key = chatKey(channelId, chatId);
      const chat = t.table<ChatRow>('outboxChats').get(key);
      if (!chat) return false;
      if (chat.claimUntil !== null && chat.claimUntil > now && chat.claimOwner !== owner) return false;
      t.write('outboxChats', key, { ...chat, claimOwner: owner, claimUntil: now + leaseMs });
      return true;
    },
    releaseChat: (channelId, chatId, owner) => {
      const key = chatKey(channelId, chatId);
      const chat = t.table<ChatRow>('outboxChats').get(key);
      if (!chat || chat.claimOwner !== owner) return false;
      t.write('outboxChats', key, { ...chat, claimOwner: null, claimUntil: null });
      return true;
    },
    markSent: (id, sentMessageId, at) =>
      update(id, (r) => ({ ...r, status: 'sent', sentMessageId, sentAt: at, attempts: r.attempts + 1 })),
    markFailed: (id, error) =>
      update(id, (r) => ({ ...r, status: 'failed', lastError: error, attempts: r.attempts + 1 })),
    retryLater: (id, notBefore, error) =>
      update(id, (r) => ({ ...r, notBefore, lastError: error, attempts: r.attempts + 1 })),
  };
}
