/**
 * The stored rows of the channel outbox: what a run says to a person on a message channel, written in the
 * transaction of the step that produced it and delivered by the outbox dispatcher (docs/channels.md).
 * @packageDocumentation
 */
import type { ChannelButton } from './channel';

/**
 * What an outbox row delivers: `text` (a reply or part of one), `edit` (a new text for a message sent before),
 * `approval` (an approval prompt with its preview and buttons), `choice` (an `ask_user_choice` prompt), `notice`
 * (a short notice from the runtime, e.g. "not linked").
 * @public
 */
export type OutboxKind = 'text' | 'edit' | 'approval' | 'choice' | 'notice';

/** Every {@link OutboxKind}, in declaration order. @public */
export const OUTBOX_KINDS: readonly OutboxKind[] = ['text', 'edit', 'approval', 'choice', 'notice'];

/**
 * Where an outbox row is: `queued` (to deliver), `sent` (the channel accepted it), `failed` (refused for good,
 * `CHANNEL_REJECTED` or `CHANNEL_MESSAGE_TOO_LONG`; never retried).
 * @public
 */
export type OutboxStatus = 'queued' | 'sent' | 'failed';

/**
 * The payload of an outbox row, stored as JSON.
 * @public
 */
export interface OutboxPayload {
  /** The text to send (or, for `edit`, the new text), at most the channel's `maxLength` characters. */
  text: string;
  /** Rows of inline buttons; for `edit`, `null` removes the buttons and absent keeps them. */
  buttons?: ChannelButton[][] | null;
  /** The channel's id of the message this one replies to (e.g. the person's message, or a steering message). */
  replyTo?: string;
  /**
   * The outbox id of a row whose sent message this one replies to, when the channel id is not known yet (the
   * row is sent first; `replyTo` wins when both are given). A target never sent means no reply.
   */
  replyToOutboxId?: string;
  /** For `edit`: the outbox id of the row whose sent message is edited (never sent: this row is sent as new). */
  editOf?: string;
}

/**
 * One outbox row.
 * @public
 */
export interface OutboxRecord {
  /** Unique id (made by the writer). */
  id: string;
  /** The channel configuration id (`ChannelPort.id`, e.g. `telegram:home`). */
  channelId: string;
  /** The channel's chat id. */
  chatId: string;
  /** Order within the chat (`channelId`, `chatId`), assigned by the store at insert: 1, 2, … in commit order. */
  seq: number;
  /** The run that wrote it, or null (a runtime notice outside runs). */
  runId: string | null;
  /** What it delivers. */
  kind: OutboxKind;
  /** The text, buttons and targets. */
  payload: OutboxPayload;
  /** Unique in the store: a second insert with the same key writes nothing. Given to the channel as `ChannelSend.idempotencyKey`. */
  idempotencyKey: string;
  /** Where it is. */
  status: OutboxStatus;
  /** Delivery attempts so far (each send or edit that returned or threw). */
  attempts: number;
  /** Not delivered before this time (ms since the epoch): a rate limit's `retryAfter`, or an outage's backoff. */
  notBefore: number;
  /** The channel's id of the sent message (for `edit`: of the edited one), once sent; else null. */
  sentMessageId: string | null;
  /** The last error, `CODE: message`, or null. */
  lastError: string | null;
  /** When it was written (ms since the epoch). */
  createdAt: number;
  /** When it was sent (ms since the epoch), or null. */
  sentAt: number | null;
}

/**
 * An outbox row to insert: the store assigns `seq` and starts it `queued` with 0 attempts.
 * @public
 */
export type NewOutboxRecord = Pick<
  OutboxRecord,
  'id' | 'channelId' | 'chatId' | 'runId' | 'kind' | 'payload' | 'idempotencyKey' | 'createdAt'
> & {
  /** Not delivered before this time (ms); default `createdAt`. */
  notBefore?: number;
};

/**
 * A chat of the outbox: the unit of order and of the dispatcher's claim.
 * @public
 */
export interface OutboxChat {
  /** The channel configuration id. */
  channelId: string;
  /** The channel's chat id. */
  chatId: string;
}
