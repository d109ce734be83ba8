// What a channel run says, as messages: the rule that turns one step's text and events into outbox rows and the
// conversation's next state (docs/channels.md#replies-and-steering). Pure: the caller writes the rows in the step's
// transaction.
import { createHash } from 'node:crypto';
import type { ChannelButton, ChannelCapabilities } from '../../ports/channel';
import type { RunEventPayloads, RunEventType } from '../events/run-event';
import { confirmCode } from './confirm-code';
import { channelMessageOfInbox, type ChannelConversation } from './conversation-binding';
import { approvalPromptText, choiceOptions, choicePromptText } from './prompt-text';
import { signTap, TAP_HASH_DIGITS } from './tap-data';

/**
 * One message the rule wants delivered (the caller makes an outbox row of it).
 * - `text`: a new message (part of the run's reply), replying to `replyTo`;
 * - `edit`: the message sent by the row keyed `edits` gets `text` (and `buttons`, `null` removing them);
 * - `approval` / `choice`: a prompt, with buttons when the channel has them;
 * - `notice`: a line from the runtime (the run ended without an answer).
 * @public
 */
export interface ReplyRow {
  /** Kind of row. */
  kind: 'text' | 'edit' | 'approval' | 'choice' | 'notice';
  /** The row's step key `ch<n>`, numbered per run (the outbox keys its rows `<runId>:ch<n>:<part>`). */
  key: string;
  /** The text (may be longer than the channel's limit for `text` and `notice`: the outbox splits it). */
  text: string;
  /** The channel message id it replies to, if any. */
  replyTo: string | null;
  /** Buttons (prompts), or `null` to remove them (a closing edit). */
  buttons?: ChannelButton[][] | null;
  /** For `edit`: the key of the row whose message is edited. */
  edits?: string;
}

/**
 * One step's facts: the text the model said in it (one entry per assistant message, in order), then its events in
 * order. Text comes first: a steering message applied, a prompt or the run's end closes what was said before it.
 * @public
 */
export interface ReplyStep {
  /** The text of each assistant message the step appends. */
  texts: readonly string[];
  /** The step's events. */
  events: ReadonlyArray<{ type: RunEventType; data: unknown }>;
}

/** What the rule needs beyond the step. */
export interface ReplyContext {
  /** The run. */
  runId: string;
  /** What the channel can do. */
  capabilities: ChannelCapabilities;
  /** The host's channel secret (signs buttons, derives confirmation codes). */
  secret: string;
}

/** Terminal statuses that end a channel run without its answer: the person is told. */
const ENDED_WITHOUT_ANSWER = new Set(['failed', 'cancelled', 'budget_exceeded']);

/** First 8 hex digits of SHA-256 of a choice's question and options. @public */
export function choiceHash(question: string, options: readonly string[]): string {
  return createHash('sha256')
    .update(JSON.stringify([question, ...options]))
    .digest('hex')
    .slice(0, TAP_HASH_DIGITS);
}

/**
 * The rows one step of a channel run writes, and the conversation after it.
 *
 * @remarks
 * Text: on a channel that can edit, the first text of a reply is a new message and later text edits it (the whole
 * reply so far), until the reply is closed or would pass `maxLength`; on other channels each step's text is a
 * message. A steering message applied (`inbox_applied`) closes the reply — an edit with its final text and no
 * buttons on an edit-capable channel, nothing otherwise — and later text answers the steering message (its channel
 * message id, from {@link channelMessageOfInbox}). An approval request is one message with the preview and
 * Approve / Reject buttons (or `reply YES <code> or NO <code>`); a choice one message with a button per option (or
 * numbered options). A run that ends failed, cancelled or over budget gets a notice.
 * @public
 */
export function replyRows(
  conversation: ChannelConversation,
  step: ReplyStep,
  context: ReplyContext,
): { conversation: ChannelConversation; rows: ReplyRow[] } {
  const c: ChannelConversation = { ...conversation };
  const rows: ReplyRow[] = [];
  const { capabilities: caps, runId, secret } = context;
  const key = () => `ch${++c.rows}`;
  for (const raw of step.texts) {
    const piece = raw.trim();
    if (!piece) continue;
    const grown = c.open ? `${c.open.text}\n${piece}` : piece;
    if (caps.edit && c.open && grown.length <= caps.maxLength) {
      rows.push({ kind: 'edit', key: key(), text: grown, replyTo: null, edits: c.open.key });
      c.open = { key: c.open.key, text: grown };
      continue;
    }
    const k = key();
    rows.push({ kind: 'text', key: k, text: piece, replyTo: c.replyTo });
    c.open = caps.edit && piece.length <= caps.maxLength ? { key: k, text: piece } : null;
  }
  for (const event of step.events) {
    if (event.type === 'inbox_applied') {
      const ids = (event.data as RunEventPayloads['inbox_applied']).inboxIds;
      if (caps.edit && c.open)
        rows.push({ kind: 'edit', key: key(), text: c.open.text, replyTo: null, edits: c.open.key, buttons: null });
      c.open = null;
      c.choice = null;
      const target = ids.map(channelMessageOfInbox).filter((m): m is string => m !== null);
      if (target.length > 0) c.replyTo = target.at(-1)!;
    } else if (event.type === 'approval_requested') {
      const request = event.data as RunEventPayloads['approval_requested'];
      c.open = null;
      const approve = signTap(secret, c.channelId, c.chatId, {
        kind: 'approve',
        ref: request.approvalId,
        hash: request.payloadHash,
      });
      const reject = signTap(secret, c.channelId, c.chatId, {
        kind: 'reject',
        ref: request.approvalId,
        hash: request.payloadHash,
      });
      if (caps.buttons && approve && reject)
        rows.push({
          kind: 'approval',
          key: key(),
          text: approvalPromptText(request),
          replyTo: c.replyTo,
          buttons: [
            [
              { label: 'Approve', data: approve },
              { label: 'Reject', data: reject },
            ],
          ],
        });
      else {
        const code = confirmCode(secret, c.channelId, c.chatId, {
          id: request.approvalId,
          payloadHash: request.payloadHash,
        });
        rows.push({ kind: 'approval', key: key(), text: approvalPromptText(request, code), replyTo: c.replyTo });
      }
    } else if (event.type === 'input_requested') {
      const asked = event.data as RunEventPayloads['input_requested'];
      const options = choiceOptions(asked.options);
      const hash = choiceHash(asked.question, options);
      c.open = null;
      c.choice = { hash, options };
      const data = options.map((_, option) =>
        signTap(secret, c.channelId, c.chatId, { kind: 'choose', ref: runId, hash, option }),
      );
      const buttons =
        caps.buttons && options.length > 0 && data.every((d) => d !== null)
          ? options.map((label, i) => [{ label: label.slice(0, 64), data: data[i]! }])
          : undefined;
      rows.push({
        kind: 'choice',
        key: key(),
        text: choicePromptText(asked.question, options, buttons !== undefined),
        replyTo: c.replyTo,
        ...(buttons ? { buttons } : {}),
      });
    } else if (event.type === 'run_status') {
      const status = event.data as RunEventPayloads['run_status'];
      if (!ENDED_WITHOUT_ANSWER.has(status.status)) continue;
      c.open = null;
      c.choice = null;
      const why = status.reason ? `: ${status.reason}` : '';
      rows.push({
        kind: 'notice',
        key: key(),
        text: `The task ended ${status.status.replace('_', ' ')}${why}.`,
        replyTo: c.replyTo,
      });
    }
  }
  return { conversation: c, rows };
}
