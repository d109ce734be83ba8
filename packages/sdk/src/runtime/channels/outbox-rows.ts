/**
 * Turning what a run says into channel outbox rows for a channel's capabilities.
 * @packageDocumentation
 */
import type { ChannelButton, ChannelCapabilities } from '../../ports/channel';
import type { NewOutboxRecord, OutboxKind, OutboxPayload } from '../../ports/outbox-records';
import { escapeHtml, markdownToPlain } from './plain-text';
import { splitText } from './split-text';

/**
 * What a run says on one chat, before it is adapted to the channel.
 * @public
 */
export interface OutboxReply {
  /** The run that says it, or null (a runtime notice outside runs). */
  runId: string | null;
  /**
   * What makes this reply unique within the run: the seq of the run event it answers, or the step's id. The rows'
   * idempotency keys are `<runId>:<stepKey>:<part>` (`<runId>` is `-` without a run), so a step committed twice
   * writes its rows once.
   */
  stepKey: string;
  /** The channel configuration id. */
  channelId: string;
  /** The channel's chat id. */
  chatId: string;
  /** What the rows deliver (`edit` rows are made by {@link outboxRowsForEdit}). */
  kind: Exclude<OutboxKind, 'edit'>;
  /** The text, in Markdown (the model's and the runtime's writing). */
  text: string;
  /** Inline buttons; put on the last part, dropped when the channel has none (confirm by text instead). */
  buttons?: ChannelButton[][];
  /** The channel's id of the message the first part replies to. */
  replyTo?: string;
  /** When the step wrote it (ms). */
  createdAt: number;
}

/**
 * `markdown` in the channel's formatting: as written for `markdown`; without markup for `plain`
 * ({@link markdownToPlain}); without markup and escaped for `html` (each part is escaped after splitting, so
 * `maxLength` counts the visible text, as Telegram counts it after parsing).
 */
function partsFor(markdown: string, capabilities: ChannelCapabilities): string[] {
  if (capabilities.formatting === 'markdown') return splitText(markdown, capabilities.maxLength);
  const parts = splitText(markdownToPlain(markdown), capabilities.maxLength);
  return capabilities.formatting === 'html' ? parts.map(escapeHtml) : parts;
}

/** The idempotency key of part `part` of step `stepKey` of run `runId`: `<runId>:<stepKey>:<part>` (`-` without a run). @public */
export function outboxKey(runId: string | null, stepKey: string, part: number): string {
  return `${runId ?? '-'}:${stepKey}:${part}`;
}

/** The row id of the row with idempotency key `key`: `outbox:<key>` (deterministic, so a re-committed step finds its rows). @public */
export function outboxRowId(key: string): string {
  return `outbox:${key}`;
}

/**
 * The outbox rows of a reply for a channel with `capabilities`: the text in the channel's formatting, split into
 * parts of at most `maxLength` (paragraph, line, word boundaries; never inside a surrogate pair), one row per part
 * (part 0, 1, …), the reply target on the first, the buttons on the last (only when the channel has buttons). An
 * empty text gives one row with an empty text only when there are buttons to show, else none. Pure.
 *
 * @example
 * ```ts
 * const rows = outboxRowsForReply(
 *   { runId: 'run-1', stepKey: '12', channelId: 'telegram:home', chatId: '42', kind: 'text', text: reply, createdAt: now },
 *   port.capabilities,
 * );
 * session.writes.outbox.push(...rows); // inserted in the step's transaction
 * ```
 * @public
 */
export function outboxRowsForReply(reply: OutboxReply, capabilities: ChannelCapabilities): NewOutboxRecord[] {
  const buttons = capabilities.buttons && reply.buttons && reply.buttons.length > 0 ? reply.buttons : undefined;
  const parts = partsFor(reply.text, capabilities);
  if (parts.length === 0 && buttons) parts.push('');
  return parts.map((text, i) => {
    const key = outboxKey(reply.runId, reply.stepKey, i);
    const payload: OutboxPayload = { text };
    if (i === 0 && reply.replyTo !== undefined) payload.replyTo = reply.replyTo;
    if (i === parts.length - 1 && buttons) payload.buttons = buttons;
    return {
      id: outboxRowId(key),
      channelId: reply.channelId,
      chatId: reply.chatId,
      runId: reply.runId,
      kind: reply.kind,
      payload,
      idempotencyKey: key,
      createdAt: reply.createdAt,
    };
  });
}

/**
 * An edit of a message sent before, as outbox rows.
 * @public
 */
export interface OutboxEditReply {
  /** The run that edits, or null. */
  runId: string | null;
  /** As {@link OutboxReply.stepKey}. */
  stepKey: string;
  /** The channel configuration id. */
  channelId: string;
  /** The channel's chat id. */
  chatId: string;
  /** The outbox id of the row whose sent message is edited. */
  editOf: string;
  /** The new text, in Markdown. */
  text: string;
  /** New buttons; `null` removes them, absent keeps them. */
  buttons?: ChannelButton[][] | null;
  /** When the step wrote it (ms). */
  createdAt: number;
}

/**
 * The outbox rows of an edit: one `edit` row with the first part of the text (in the channel's formatting) and,
 * when the new text is over `maxLength`, `text` rows with the rest. On a channel that cannot edit, or when the
 * edited message was never sent, the dispatcher sends the `edit` row as a new message. Pure.
 * @public
 */
export function outboxRowsForEdit(edit: OutboxEditReply, capabilities: ChannelCapabilities): NewOutboxRecord[] {
  const parts = partsFor(edit.text, capabilities);
  if (parts.length === 0) parts.push('');
  return parts.map((text, i) => {
    const key = outboxKey(edit.runId, edit.stepKey, i);
    const payload: OutboxPayload = i === 0 ? { text, editOf: edit.editOf } : { text };
    if (i === 0 && edit.buttons !== undefined) payload.buttons = capabilities.buttons ? edit.buttons : null;
    return {
      id: outboxRowId(key),
      channelId: edit.channelId,
      chatId: edit.chatId,
      runId: edit.runId,
      kind: i === 0 ? 'edit' : 'text',
      payload,
      idempotencyKey: key,
      createdAt: edit.createdAt,
    };
  });
}
