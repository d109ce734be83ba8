/**
 * The channel outbox tables for both SQL stores (the {@link OutboxRepository}): `channel_outbox` (the rows) and
 * `channel_outbox_chats` (per chat: the last `seq` handed out and the dispatcher's claim). `insert` is a program of
 * up to four statements, the rest one statement each.
 * @packageDocumentation
 */
import type { OutboxChat, OutboxRecord } from '../../ports/outbox-records';
import type { OutboxRepository } from '../../ports/outbox-repository';
import { assertOutboxInput } from '../outbox-input';
import type { SqlDialect } from './dialect';
import { count, exactlyOne, limitParam, perDialect, type Program, type Programs, type Query, row, rows } from './query';
import { type ColumnSpec, type Row, TableMapping } from './table-mapping';

const OUTBOX_FIELDS: ColumnSpec<OutboxRecord> = {
  id: 'value',
  channelId: 'value',
  chatId: 'value',
  seq: 'value',
  runId: 'value',
  kind: 'value',
  payload: 'json',
  idempotencyKey: 'value',
  status: 'value',
  attempts: 'value',
  notBefore: 'value',
  sentMessageId: 'value',
  lastError: 'value',
  createdAt: 'value',
  sentAt: 'value',
};

/** A list's size when the caller gives none. */
const DEFAULT_LIST_LIMIT = 100;
/** `dueChats`' size when the caller gives none. */
const DEFAULT_DUE_LIMIT = 50;

/** A program of one statement: its result. */
function* one<T>(query: Query<T>): Program<T> {
  return (yield query) as T;
}

/**
 * The outbox repository's programs in dialect `d`.
 *
 * @remarks
 * `insert` reads the key first (a row stored before: nothing written); else it takes the chat's next `seq` with
 * `INSERT … ON CONFLICT (channel_id, chat_id) DO UPDATE SET last_seq = last_seq + 1 RETURNING last_seq` — on
 * PostgreSQL that locks the chat's counter row until the transaction ends, so a concurrent insert into the same
 * chat waits and takes the next number after this one committed (seq order is commit order); SQLite's writers take
 * turns — then inserts with `ON CONFLICT (idempotency_key) DO NOTHING`, reading the stored row when a concurrent
 * insert of the same key committed first. A claim is a conditional `UPDATE` of the counter row (PostgreSQL
 * re-checks the condition on the row another claimer just committed, so of two claimers one wins).
 * @internal
 */
export const outboxPrograms = perDialect((d: SqlDialect): Programs<OutboxRepository> => {
  const table = d.table('channel_outbox');
  const chats = d.table('channel_outbox_chats');
  const OUTBOX = new TableMapping<OutboxRecord>(table, OUTBOX_FIELDS);
  const byKeySql = `SELECT * FROM ${table} WHERE idempotency_key = @key`;
  const nextSeqSql = `INSERT INTO ${chats} (channel_id, chat_id, last_seq, claim_owner, claim_until)
  VALUES (@channelId, @chatId, 1, NULL, NULL)
  ON CONFLICT (channel_id, chat_id) DO UPDATE SET last_seq = ${chats}.last_seq + 1
  RETURNING last_seq`;
  const insertSql = `${OUTBOX.insertSql} ON CONFLICT (idempotency_key) DO NOTHING RETURNING *`;
  const byRunSql = `SELECT * FROM ${table} WHERE run_id = @runId
  ORDER BY created_at, ${d.byCodePoint('channel_id')}, ${d.byCodePoint('chat_id')}, seq LIMIT @limit`;
  const byChatSql = `SELECT * FROM ${table} WHERE channel_id = @channelId AND chat_id = @chatId ORDER BY seq LIMIT @limit`;
  const byChatStatusSql = `SELECT * FROM ${table} WHERE channel_id = @channelId AND chat_id = @chatId AND status = @status ORDER BY seq LIMIT @limit`;
  // A chat is due when its first queued row is; a later row never overtakes it (head of line).
  const dueSql = `SELECT o.channel_id, o.chat_id FROM ${table} o
  LEFT JOIN ${chats} c ON c.channel_id = o.channel_id AND c.chat_id = o.chat_id
  WHERE o.status = 'queued' AND ${d.inList('o.channel_id', 'channelIds')} AND o.not_before <= @now
    AND o.seq = (SELECT MIN(q.seq) FROM ${table} q WHERE q.channel_id = o.channel_id AND q.chat_id = o.chat_id AND q.status = 'queued')
    AND (c.claim_until IS NULL OR c.claim_until <= @now OR c.claim_owner = @owner)
  ORDER BY o.not_before, o.created_at, ${d.byCodePoint('o.channel_id')}, ${d.byCodePoint('o.chat_id')}
  LIMIT @limit`;
  const claimSql = `UPDATE ${chats} SET claim_owner = @owner, claim_until = @until
  WHERE channel_id = @channelId AND chat_id = @chatId
    AND (claim_until IS NULL OR claim_until <= @now OR claim_owner = @owner)`;
  const releaseSql = `UPDATE ${chats} SET claim_owner = NULL, claim_until = NULL
  WHERE channel_id = @channelId AND chat_id = @chatId AND claim_owner = @owner`;
  const sentSql = `UPDATE ${table} SET status = 'sent', sent_message_id = @sentMessageId, sent_at = @at, attempts = attempts + 1
  WHERE id = @id AND status = 'queued'`;
  const failedSql = `UPDATE ${table} SET status = 'failed', last_error = @error, attempts = attempts + 1
  WHERE id = @id AND status = 'queued'`;
  const laterSql = `UPDATE ${table} SET not_before = @notBefore, last_error = @error, attempts = attempts + 1
  WHERE id = @id AND status = 'queued'`;
  const decode = (r: Row | undefined) => (r ? OUTBOX.fromRow(r) : undefined);
  const decodeAll = (found: Row[]) => found.map((r) => OUTBOX.fromRow(r));
  const decodeChats = (found: Row[]): OutboxChat[] =>
    found.map((r) => ({ channelId: r.channel_id as string, chatId: r.chat_id as string }));
  return {
    insert: function* (input) {
      assertOutboxInput(input);
      const stored = (yield row(byKeySql, { key: input.idempotencyKey }, decode)) as OutboxRecord | undefined;
      if (stored) return { record: stored, inserted: false };
      const seq = (yield row(nextSeqSql, { channelId: input.channelId, chatId: input.chatId }, (r) =>
        Number(r!.last_seq),
      )) as number;
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
      const inserted = (yield row(insertSql, OUTBOX.toParams(record), decode)) as OutboxRecord | undefined;
      if (inserted) return { record: inserted, inserted: true };
      // A concurrent insert of the same key committed between the read and the insert.
      const winner = (yield row(byKeySql, { key: input.idempotencyKey }, decode)) as OutboxRecord | undefined;
      return { record: winner ?? record, inserted: false };
    },
    get: (id) => one(row(OUTBOX.selectBy('id'), { id }, decode)),
    getByKey: (key) => one(row(byKeySql, { key }, decode)),
    listByRun: (runId, options = {}) =>
      one(rows(byRunSql, { runId, limit: limitParam(options.limit ?? DEFAULT_LIST_LIMIT, d.noLimit) }, decodeAll)),
    listByChat: (channelId, chatId, options = {}) => {
      const limit = limitParam(options.limit ?? DEFAULT_LIST_LIMIT, d.noLimit);
      return options.status === undefined
        ? one(rows(byChatSql, { channelId, chatId, limit }, decodeAll))
        : one(rows(byChatStatusSql, { channelId, chatId, status: options.status, limit }, decodeAll));
    },
    dueChats: (now, options) =>
      one(
        rows(
          dueSql,
          {
            now,
            owner: options.owner,
            channelIds: d.list(options.channelIds),
            limit: limitParam(options.limit ?? DEFAULT_DUE_LIMIT, d.noLimit),
          },
          decodeChats,
        ),
      ),
    claimChat: (channelId, chatId, owner, now, leaseMs) =>
      one(count(claimSql, { channelId, chatId, owner, now, until: now + leaseMs }, exactlyOne)),
    releaseChat: (channelId, chatId, owner) => one(count(releaseSql, { channelId, chatId, owner }, exactlyOne)),
    markSent: (id, sentMessageId, at) => one(count(sentSql, { id, sentMessageId, at }, exactlyOne)),
    markFailed: (id, error) => one(count(failedSql, { id, error }, exactlyOne)),
    retryLater: (id, notBefore, error) => one(count(laterSql, { id, notBefore, error }, exactlyOne)),
  };
});
