// The binding of a run to the channel conversation it answers: kept in the run's runtime state, found by the run's
// session id (one session per channel configuration and chat), so it survives a restart and costs one indexed read.
import { createHash } from 'node:crypto';
import type { ActorRole } from '../../core/actor';
import type { JsonValue } from '../../core/records';
import type { RunRecord } from '../../core/run-records';

/** Key of the channel binding in a run's runtime state. */
export const CHANNEL_STATE_KEY = 'channel';

/**
 * The reply a channel run is writing: the outbox row of the message holding it (an edit-capable channel edits that
 * message as the reply grows) and its text so far.
 * @public
 */
export interface OpenReply {
  /** Step key of the reply row that sends the message (`ch<n>`; edit rows refer to its first part). */
  key: string;
  /** The reply's text so far. */
  text: string;
}

/**
 * A choice put to the person as buttons (from an `input_requested` event): what a tap on option `i` appends.
 * @public
 */
export interface PendingChoice {
  /** First 8 hex digits of SHA-256 of the question and its options; a tap carrying another is stale. */
  hash: string;
  /** The text each option appends to the run as the person's message, in button order. */
  options: string[];
}

/**
 * A run's channel conversation: where it was started and where its replies go. Stored under
 * `channel` in the run's runtime state, written with the step that changes it.
 * @public
 */
export interface ChannelConversation {
  /** The channel configuration id (`ChannelPort.id`). */
  channelId: string;
  /** The channel's chat id. */
  chatId: string;
  /** Private chat or group. */
  chatType: 'private' | 'group';
  /** The person (`user:<id>`) whose conversation it is. */
  person: string;
  /** The person's role when the run started; input after a role change is not appended. */
  role: ActorRole;
  /** The channel message id replies answer: the starting message, then the last applied steering message. */
  replyTo: string | null;
  /** The reply being written (edit-capable channels), or null. */
  open: OpenReply | null;
  /** Reply rows this run has written (their step keys are numbered by it). */
  rows: number;
  /** The choice put to the person last, while it stands. */
  choice: PendingChoice | null;
}

/** Longest session id a run takes (see `RunService.prepareRun`). */
const MAX_SESSION_ID = 200;

/**
 * The session id of every run of one chat on one channel configuration: `channel:<channelId>:<chatId>`, or
 * `channel:sha256:<hex>` when that would be longer than 200 characters. Runs are listed by it (an indexed read).
 * @public
 */
export function conversationSessionId(channelId: string, chatId: string): string {
  const plain = `channel:${channelId}:${chatId}`;
  if (plain.length <= MAX_SESSION_ID) return plain;
  return `channel:sha256:${createHash('sha256').update(`${channelId}\n${chatId}`).digest('hex')}`;
}

/** The run's channel conversation, or null for a run that was not started from a channel. @public */
export function conversationOf(run: Pick<RunRecord, 'runtimeState'>): ChannelConversation | null {
  const state = run.runtimeState as Record<string, JsonValue> | null;
  const value = state?.[CHANNEL_STATE_KEY];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const c = value as unknown as ChannelConversation;
  return typeof c.channelId === 'string' && typeof c.chatId === 'string' && typeof c.person === 'string' ? c : null;
}

/** Separator between an inbox id and the channel message id it carries (never in a generated id). */
const INBOX_MARK = '~';

/**
 * The inbox id of a steering message a channel delivered: `<id>~<base64url(channel message id)>`, so the step that
 * applies it knows which channel message the rest of the reply answers (no other storage needed).
 * @public
 */
export function channelInboxId(id: string, channelMessageId: string): string {
  return `${id}${INBOX_MARK}${Buffer.from(channelMessageId, 'utf8').toString('base64url')}`;
}

/** The channel message id an inbox id carries ({@link channelInboxId}), or null for any other inbox id. @public */
export function channelMessageOfInbox(inboxId: string): string | null {
  const at = inboxId.lastIndexOf(INBOX_MARK);
  if (at < 0) return null;
  const decoded = Buffer.from(inboxId.slice(at + 1), 'base64url').toString('utf8');
  return decoded.length > 0 ? decoded : null;
}
