// The step commit's channel side: what a channel run said in a step becomes outbox rows, written in the step's own
// transaction with the conversation's next state (docs/channels.md#replies-and-steering).
import type { JsonValue } from '../../core/records';
import type { ChannelCapabilities } from '../../ports/channel';
import type { NewOutboxRecord } from '../../ports/outbox-records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { RunRecord } from '../../core/run-records';
import type { RunEventType } from '../events/run-event';
import type { ModelMessage } from '../../models/types';
import { stepSegments, type ReplySession, type StepReplies, type TakenStep } from '../loop/step-writes';
import { CHANNEL_STATE_KEY, conversationOf, type ChannelConversation } from './conversation-binding';
import { replyRows, type ReplyRow } from './reply-rule';
import { outboxKey, outboxRowId, outboxRowsForEdit, outboxRowsForReply } from './outbox-rows';

/** What a process assumes of a channel it has no port for: the least (each text a message, codes, 4096). */
const UNKNOWN_CHANNEL: ChannelCapabilities = {
  edit: false,
  buttons: false,
  maxLength: 4096,
  formatting: 'plain',
  dedupe: 'none',
};

/** The text of each assistant message a step appends. */
function assistantTexts(messages: readonly ModelMessage[]): string[] {
  return messages.flatMap((m) =>
    m.role === 'assistant' && Array.isArray(m.content)
      ? [
          m.content
            .flatMap((p) => (p.type === 'text' ? [p.text] : []))
            .join('')
            .trim(),
        ]
      : [],
  );
}

/** The outbox rows of one reply row, through the outbox's own rules (split, formatting, keys `<runId>:<stepKey>:<part>`). */
export function outboxRowsOf(
  row: ReplyRow,
  conversation: ChannelConversation,
  runId: string,
  capabilities: ChannelCapabilities,
  now: number,
): NewOutboxRecord[] {
  const base = {
    runId,
    stepKey: row.key,
    channelId: conversation.channelId,
    chatId: conversation.chatId,
    createdAt: now,
  };
  if (row.kind === 'edit')
    return outboxRowsForEdit(
      {
        ...base,
        editOf: outboxRowId(outboxKey(runId, row.edits!, 0)),
        text: row.text,
        ...(row.buttons !== undefined ? { buttons: row.buttons } : {}),
      },
      capabilities,
    );
  return outboxRowsForReply(
    {
      ...base,
      kind: row.kind,
      text: row.text,
      ...(row.buttons ? { buttons: row.buttons } : {}),
      ...(row.replyTo !== null ? { replyTo: row.replyTo } : {}),
    },
    capabilities,
  );
}

/**
 * The {@link StepReplies} of a host with channels: for a run with a channel conversation, derives the step's rows
 * ({@link replyRows}), adds them to the step's outbox writes and the conversation's next state to its run patch.
 * @param channels - what each channel can do, by channel id; `secret` the channel secret (loaded at start)
 */
export function channelReplies(channels: {
  capabilities: (channelId: string) => ChannelCapabilities | undefined;
  secret: () => string;
  now: () => number;
  write: (rows: NewOutboxRecord[], step: TakenStep, s: StorageSession) => Promise<void>;
}): StepReplies {
  return async (session: ReplySession, step: TakenStep, s: StorageSession) => {
    const state = session.getState(CHANNEL_STATE_KEY);
    if (typeof state !== 'object' || state === null || Array.isArray(state)) return;
    const conversation = state as unknown as ChannelConversation;
    if (step.writes.messages.length === 0 && step.writes.events.length === 0) return;
    const capabilities = channels.capabilities(conversation.channelId) ?? UNKNOWN_CHANNEL;
    const context = { runId: session.id, capabilities, secret: channels.secret() };
    // Steps committed together (runtime/loop/step-writes.ts `ends`) reply in their order, as if each committed alone.
    let current = conversation;
    const replies: ReplyRow[] = [];
    for (const segment of stepSegments(step.writes)) {
      const texts = assistantTexts(segment.messages);
      if (texts.length === 0 && segment.events.length === 0) continue;
      const derived = replyRows(current, { texts, events: segment.events }, context);
      replies.push(...derived.rows);
      current = derived.conversation;
    }
    if (replies.length === 0 && JSON.stringify(current) === JSON.stringify(conversation)) return;
    const now = channels.now();
    const rows = replies.flatMap((r) => outboxRowsOf(r, conversation, session.id, capabilities, now));
    const next = current as unknown as JsonValue;
    // The whole runtime state (the step's own when it changed it, else the session's), with the conversation's next.
    const base = (step.patch.runtimeState ?? session.stateSnapshot()) as Record<string, JsonValue>;
    session.adoptState(CHANNEL_STATE_KEY, next);
    step.patch.runtimeState = { ...base, [CHANNEL_STATE_KEY]: next };
    await channels.write(rows, step, s);
  };
}

/**
 * What a run that ends outside a step (a direct cancel of a run nobody drives, a driver failure) tells its channel
 * conversation, written in the transaction that ends it: `(s, run, events)` derives the rows a step with these
 * events would write ({@link replyRows}: a `run_status` of `cancelled`, `failed` or `budget_exceeded` is a notice),
 * inserts them into `s.outbox` and stores the conversation's next state in the run's runtime state. Resolves to the
 * number of rows inserted (0 for a run without a channel binding); the caller wakes the outbox dispatcher after its
 * commit when it is above 0.
 * @param channels - what each channel can do, by channel id; `secret` the channel secret; `now` the clock (ms)
 * @public
 */
export type ChannelEndNotice = (
  s: StorageSession,
  run: RunRecord,
  events: ReadonlyArray<{ type: RunEventType; data: unknown }>,
) => Promise<number>;

/** Makes the {@link ChannelEndNotice} of a host with channels. @public */
export function channelEndNotice(channels: {
  capabilities: (channelId: string) => ChannelCapabilities | undefined;
  secret: () => string;
  now: () => number;
}): ChannelEndNotice {
  return async (s, run, events) => {
    const conversation = conversationOf(run);
    if (!conversation) return 0;
    const capabilities = channels.capabilities(conversation.channelId) ?? UNKNOWN_CHANNEL;
    const derived = replyRows(
      conversation,
      { texts: [], events },
      { runId: run.id, capabilities, secret: channels.secret() },
    );
    if (derived.rows.length === 0) return 0;
    const now = channels.now();
    let inserted = 0;
    for (const row of derived.rows.flatMap((r) => outboxRowsOf(r, conversation, run.id, capabilities, now)))
      if ((await s.outbox.insert(row)).inserted) inserted += 1;
    const state = (run.runtimeState ?? {}) as Record<string, JsonValue>;
    await s.runs.patch(run.id, {
      runtimeState: { ...state, [CHANNEL_STATE_KEY]: derived.conversation as unknown as JsonValue },
    });
    return inserted;
  };
}
