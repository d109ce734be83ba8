/**
 * The channel outbox in storage: rows in order per chat, and the claims that keep one dispatcher per chat across
 * every process of a store (docs/channels.md).
 * @packageDocumentation
 */
import type { NewOutboxRecord, OutboxChat, OutboxRecord, OutboxStatus } from './outbox-records';

/** Options of {@link OutboxRepository.dueChats}. @public */
export interface OutboxDueOptions {
  /** Only chats of these channels (the ones this process can deliver to); an empty list finds nothing. */
  channelIds: readonly string[];
  /** The dispatcher asking: a chat it holds the claim of still counts as due. */
  owner: string;
  /** At most this many chats (default 50). */
  limit?: number;
}

/**
 * The outbox rows and their per-chat claims.
 *
 * @remarks
 * Order: `insert` assigns the chat's next `seq` from a per-chat counter row that the inserting transaction
 * updates (PostgreSQL locks it until commit, SQLite's writers take turns), so `seq` order is commit order within
 * a chat. Idempotency: `idempotencyKey` is unique in the store; a step committed twice writes its rows once.
 * Claims: a dispatcher sends a chat's rows only while it holds the chat's claim (`claimChat`), a lease that
 * expires at `now + leaseMs` unless renewed; of any number of processes claiming one chat at once, one gets it.
 * Every `mark…` changes a row only while it is `queued`.
 * @public
 */
export interface OutboxRepository {
  /**
   * Inserts a row unless one with its `idempotencyKey` exists.
   * @returns the stored row (the new one, with its `seq`; or the one stored before under the key) and whether
   *   this call inserted it
   * @throws `MediaAgentError` `OUTBOX_INPUT_INVALID` when the row is malformed (nothing is written)
   */
  insert(record: NewOutboxRecord): Promise<{ record: OutboxRecord; inserted: boolean }>;
  /** The row with this id, or undefined. */
  get(id: string): Promise<OutboxRecord | undefined>;
  /** The row with this idempotency key, or undefined. */
  getByKey(idempotencyKey: string): Promise<OutboxRecord | undefined>;
  /** The rows run `runId` wrote, oldest first (`createdAt`, then chat and `seq`), at most `limit` (default 100). */
  listByRun(runId: string, options?: { limit?: number }): Promise<OutboxRecord[]>;
  /** One chat's rows in `seq` order, only those in `status` when given, at most `limit` (default 100). */
  listByChat(
    channelId: string,
    chatId: string,
    options?: { status?: OutboxStatus; limit?: number },
  ): Promise<OutboxRecord[]>;
  /**
   * The chats with something to deliver now: their first `queued` row (lowest `seq`) has `notBefore <= now`, and
   * no other owner holds an unexpired claim. Earliest `notBefore` first.
   */
  dueChats(now: number, options: OutboxDueOptions): Promise<OutboxChat[]>;
  /**
   * Claims (or renews the claim of) a chat for `owner` until `now + leaseMs`: succeeds when the chat is unclaimed,
   * its claim expired (`until <= now`), or `owner` holds it.
   * @returns whether `owner` holds the claim now (false: another owner holds it, or the chat has no rows)
   */
  claimChat(channelId: string, chatId: string, owner: string, now: number, leaseMs: number): Promise<boolean>;
  /** Releases the chat's claim if `owner` holds it; returns whether it did. */
  releaseChat(channelId: string, chatId: string, owner: string): Promise<boolean>;
  /**
   * Marks a `queued` row `sent`: `sentMessageId`, `sentAt = at`, one more attempt, `lastError` kept.
   * @returns whether the row was queued (and is now sent)
   */
  markSent(id: string, sentMessageId: string, at: number): Promise<boolean>;
  /**
   * Marks a `queued` row `failed` for good: `lastError = error`, one more attempt.
   * @returns whether the row was queued (and is now failed)
   */
  markFailed(id: string, error: string): Promise<boolean>;
  /**
   * Keeps a `queued` row queued for a later attempt: `notBefore`, `lastError = error`, one more attempt.
   * @returns whether the row was queued
   */
  retryLater(id: string, notBefore: number, error: string): Promise<boolean>;
}
