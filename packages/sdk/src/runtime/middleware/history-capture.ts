// The history archive's capture points: a person's input before each model request (so originals
// are kept before compaction replaces them), each model reply, and each tool result before any
// middleware shortens it. Runs first among the runtime's middleware.
import { summarizeInput } from '../../capabilities/input-summary';
import type { HistoryMessageInput, HistoryStore } from '../../history/history-store';
import type { ModelMessage } from '../../models/types';
import { isSummaryMessage } from '../context/compaction';
import { historyOwnerOf } from '../history-owner';
import { humanInputId } from '../loop/human-input';
import type { JsonValue } from '../../core/records';
import { type HistoryRetryQueue, historyRetryQueueOf } from './history-retry';
import type { RunMiddleware, RunMiddlewareRun, RunStepContext } from './run-middleware';

/** Name of the capture middleware. */
export const HISTORY_CAPTURE = 'history_capture';

/** The runtime tool whose results are never archived (they are copies of the archive). */
const SESSION_SEARCH = 'session_search';

interface Archive {
  /** Uids archived by this drive. */
  archived: Set<string>;
  /** Uids already marked compacted. */
  compacted: Set<string>;
}

const SOURCES: Record<string, string> = {
  interactive: 'chat',
  background: 'cron',
  channel: 'channel',
  schedule: 'cron',
};

/** Text parts only: images and audio are never archived. */
function textOf(content: ModelMessage['content']): string {
  if (typeof content === 'string') return content;
  return content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

/** The archive uid of a working-conversation message, when it has one. */
function uidOf(m: ModelMessage): string | undefined {
  if (m.role === 'tool') return `tool:${m.toolCallId}`;
  if (m.role === 'assistant') {
    const call = m.content.find((p) => p.type === 'tool_call');
    return call?.type === 'tool_call' ? `assistant:${call.id}` : undefined;
  }
  if (m.role === 'user') {
    const id = humanInputId(m);
    return id ? `user:${id}` : undefined;
  }
  return undefined;
}

/** Most messages a run keeps in its saved state while the store refuses them (the newest are kept). */
export const HISTORY_PENDING_MAX = 500;

/** What the capture saves on the run: messages the store has refused so far, with their capture time. */
interface SavedCapture {
  pending?: HistoryMessageInput[];
}

/** Options of {@link historyCaptureMiddleware}. */
export interface HistoryCaptureOptions {
  /** The time a message is captured, epoch ms (stamped on a message the store refused). @defaultValue `Date.now` */
  now?: () => number;
  /** The in-process retry queue of refused batches. @defaultValue the store's own ({@link historyRetryQueueOf}) */
  retry?: HistoryRetryQueue;
}

/**
 * The capture middleware: archives a top-level run's messages for its owner (`user:<id>` starter)
 * in `store`; runs of API keys, system jobs and subagents are not archived.
 *
 * @remarks
 * A store failure never fails the run, and the messages are not given up: they are stamped with their
 * capture time and (1) saved in the run's state with the step (up to {@link HISTORY_PENDING_MAX}, the
 * newest), so they survive a crash and are appended again first at every later capture point of the
 * run and when a drive of it starts (a resume after a crash, a wake); and (2) handed to the store's
 * in-process retry queue ({@link HistoryRetryQueue}: backoff from 1 s to 60 s), which goes on after
 * the run's last step until the store takes them. Appends are idempotent by message uid, so both
 * paths archiving the same message store it once. Each failure is also a `warning` event
 * (`HISTORY_CAPTURE_FAILED`, `details.pending`: messages now waiting on the run). What is not retried:
 * a compaction mark that failed (the messages stay archived, labelled live), and messages waiting in
 * a process that ends before the store takes them when their run has no later drive.
 * @param store - the history store
 * @param model - model id recorded on sessions
 * @param options - capture clock and retry queue
 */
export function historyCaptureMiddleware(
  store: HistoryStore,
  model: string,
  options: HistoryCaptureOptions = {},
): RunMiddleware {
  const now = options.now ?? Date.now;
  const retry = () => options.retry ?? historyRetryQueueOf(store);
  const owner = (run: RunMiddlewareRun) => (run.depth === 0 ? historyOwnerOf(run.startedBy) : undefined);
  const archive = async (ctx: RunStepContext, messages: HistoryMessageInput[]) => {
    const user = owner(ctx.run);
    if (!user) return;
    const saved = ((ctx.state.get() as SavedCapture | undefined)?.pending ?? []).filter(
      (m) => !messages.some((n) => n.uid === m.uid),
    );
    if (messages.length === 0 && saved.length === 0) return;
    const state = ctx.state.local<Archive>(() => ({ archived: new Set(), compacted: new Set() }));
    const fresh = [...saved, ...messages.filter((m) => !state.archived.has(m.uid))];
    if (fresh.length === 0) return;
    const session = {
      id: ctx.run.id,
      source: SOURCES[ctx.run.origin] ?? 'chat',
      title: [...ctx.run.goal].slice(0, 200).join(''),
      model,
    };
    try {
      for (let i = 0; i < fresh.length; i += 100)
        await store.append(user, { session, messages: fresh.slice(i, i + 100) });
      for (const m of fresh) state.archived.add(m.uid);
      if (saved.length) ctx.state.set({ pending: [] });
    } catch (error) {
      const at = now();
      const stamped = fresh.map((m) => (m.timestamp === undefined ? { ...m, timestamp: at } : m));
      const pending = stamped.slice(-HISTORY_PENDING_MAX);
      ctx.state.set({ pending } as unknown as JsonValue);
      retry().add({ user, session, messages: stamped });
      ctx.warn(
        'HISTORY_CAPTURE_FAILED',
        `history archive: ${error instanceof Error ? error.message : String(error)}; ${stamped.length} message(s) kept and retried until archived`,
        { pending: pending.length },
      );
    }
  };
  return {
    name: HISTORY_CAPTURE,
    async onDriveStart(ctx) {
      // Messages a store refused before (in this process or one that crashed) are archived first.
      await archive(ctx, []);
    },
    async beforeModelRequest(ctx) {
      const user = owner(ctx.run);
      if (!user) return;
      const inputs: HistoryMessageInput[] = [];
      for (const m of ctx.history) {
        const id = m.role === 'user' ? humanInputId(m) : undefined;
        if (id) inputs.push({ uid: `user:${id}`, role: 'user', content: textOf(m.content) });
      }
      await archive(ctx, inputs);
      // After a committed compaction: what this drive archived and the working conversation no
      // longer holds is marked compacted (still searchable, no longer live).
      if (ctx.history[0] && isSummaryMessage(ctx.history[0])) {
        const state = ctx.state.local<Archive>(() => ({ archived: new Set(), compacted: new Set() }));
        const live = new Set(ctx.history.map(uidOf).filter((u): u is string => u !== undefined));
        const gone = [...state.archived].filter((u) => !live.has(u) && !state.compacted.has(u));
        if (gone.length === 0) return;
        try {
          await store.markCompacted(user, ctx.run.id, gone);
          for (const u of gone) state.compacted.add(u);
        } catch (error) {
          ctx.warn(
            'HISTORY_CAPTURE_FAILED',
            `history archive: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
    },
    async afterModelTurn(ctx) {
      const calls = ctx.calls.map((c) => ({ id: c.id, name: c.name, input: JSON.parse(summarizeInput(c.input)) }));
      if (!ctx.text && calls.length === 0) return;
      await archive(ctx, [
        {
          uid: calls[0] ? `assistant:${calls[0].id}` : `assistant:reply:${ctx.usage.modelCalls}`,
          role: 'assistant',
          content: ctx.text,
          ...(calls.length ? { toolCalls: JSON.stringify(calls) } : {}),
        },
      ]);
    },
    async afterToolCall(ctx) {
      if (ctx.call.name === SESSION_SEARCH) return;
      await archive(ctx, [
        {
          uid: `tool:${ctx.call.id}`,
          role: 'tool',
          content: textOf(ctx.result.content),
          toolCallId: ctx.call.id,
          toolName: ctx.call.name,
          toolStatus: ctx.result.status,
        },
      ]);
    },
  };
}
