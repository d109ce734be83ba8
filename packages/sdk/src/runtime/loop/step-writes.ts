// The writes of one step, gathered while it runs and committed together (see `commit.ts`).
import type { RunEventPayloads, RunEventType } from '../events/run-event';
import type { ModelMessage } from '../../models/types';
import type { CarriedSettlement } from '../../capabilities/settle-rider';
import type { DecisionRecord } from '../../core/run-records';
import type { JsonValue } from '../../core/records';
import type { NewOutboxRecord } from '../../ports/outbox-records';
import type { RunPatch, StorageSession } from '../../ports/storage-adapter';

/**
 * Storage work that rides on a step's commit: it runs inside the step's transaction, after the run patch and
 * before the events (e.g. settling a model call's spending reservation), so it costs no commit of its own.
 * It is lost with the step when the step is not committed (the lease was lost, the process died): only
 * work whose loss is safe may ride (a reservation left `reserved` keeps its worst case counted).
 */
export type RidingWork = (s: StorageSession) => Promise<unknown>;

/** A run event waiting for its step's commit. */
export interface PendingEvent<T extends RunEventType = RunEventType> {
  /** Event type. */
  type: T;
  /** Payload. */
  data: RunEventPayloads[T];
}

/**
 * What one step of a run will write: a run patch (fields merged, later ones win), messages and
 * events in order, inbox messages marked applied, decisions for people. Nothing is written until
 * the step commits; a step that fails leaves none of it behind.
 */
export class StepWrites {
  /** Run fields to set (without `runtimeState` and `usage`, which the session adds at commit). */
  patch: RunPatch = {};
  /** Conversation messages to append, in order. */
  readonly messages: ModelMessage[] = [];
  /** Run events to append, in order (published after the commit). */
  readonly events: PendingEvent[] = [];
  /** Inbox message ids to mark applied. */
  readonly applied: string[] = [];
  /** Decisions to insert (deduplicated by their key). */
  readonly decisions: DecisionRecord[] = [];
  /** Storage work run inside the step's transaction ({@link RidingWork}), in order. */
  readonly riding: RidingWork[] = [];
  /**
   * Settlements of side-effecting calls this step answered (`capabilities/settle-rider.ts`), written in the step's
   * transaction after the run patch; when the lease is lost they are still written on their own (the call ran).
   */
  readonly settlements: CarriedSettlement[] = [];
  /**
   * Channel outbox rows to insert, in order (what the run says on a message channel; docs/channels.md). Each row's
   * idempotency key is derived from the run and the step (see `outboxRowsForReply`), so a step committed twice
   * writes its rows once.
   */
  readonly outbox: NewOutboxRecord[] = [];
  /** Set by the run's end: a message queued meanwhile makes the ended run wake once more. */
  wakeIfQueued = false;
  /**
   * Set by a run that waits for these approvals (ids): one decided meanwhile — after the run read it open, before
   * it was stored waiting, when a decision's wake-up finds the run still running — makes it due at once.
   */
  readonly wakeIfDecided: string[] = [];
  /**
   * The ends of the earlier steps merged into this one ({@link mergeSteps}), as counts of its messages and events
   * up to each end: the step's commit marks them as step boundaries (fork points), as if each had committed alone.
   */
  readonly ends: Array<{ messages: number; events: number }> = [];

  /** True when the step has nothing to write. */
  get empty(): boolean {
    return (
      Object.keys(this.patch).length === 0 &&
      this.messages.length === 0 &&
      this.events.length === 0 &&
      this.applied.length === 0 &&
      this.decisions.length === 0 &&
      this.riding.length === 0 &&
      this.settlements.length === 0 &&
      this.outbox.length === 0 &&
      !this.wakeIfQueued &&
      this.wakeIfDecided.length === 0
    );
  }

  /** Forgets everything (after a commit, or when the step failed). */
  clear(): void {
    this.patch = {};
    this.messages.length = 0;
    this.events.length = 0;
    this.applied.length = 0;
    this.decisions.length = 0;
    this.riding.length = 0;
    this.settlements.length = 0;
    this.outbox.length = 0;
    this.wakeIfQueued = false;
    this.wakeIfDecided.length = 0;
    this.ends.length = 0;
  }
}

/** A step's writes taken from the session for a commit: the run patch (runtime state and usage included) and the rest. */
export interface TakenStep {
  /** The run patch. */
  patch: RunPatch;
  /** Messages, events, inbox ids, decisions. */
  writes: StepWrites;
}

/** `first` followed by `then`, as one step: patches merged (later fields win), lists concatenated in order. */
export function mergeSteps(first: TakenStep, then: TakenStep): TakenStep {
  const writes = new StepWrites();
  writes.patch = { ...first.writes.patch, ...then.writes.patch };
  writes.messages.push(...first.writes.messages, ...then.writes.messages);
  writes.events.push(...first.writes.events, ...then.writes.events);
  writes.applied.push(...first.writes.applied, ...then.writes.applied);
  writes.decisions.push(...first.writes.decisions, ...then.writes.decisions);
  writes.riding.push(...first.writes.riding, ...then.writes.riding);
  writes.settlements.push(...first.writes.settlements, ...then.writes.settlements);
  writes.outbox.push(...first.writes.outbox, ...then.writes.outbox);
  writes.wakeIfQueued = first.writes.wakeIfQueued || then.writes.wakeIfQueued;
  writes.wakeIfDecided.push(...first.writes.wakeIfDecided, ...then.writes.wakeIfDecided);
  const messages = first.writes.messages.length;
  const events = first.writes.events.length;
  writes.ends.push(...first.writes.ends);
  // The end of `first` is a step boundary when an event of it can carry it (`RunEventRecord.messageCount`).
  if (events > 0) writes.ends.push({ messages, events });
  for (const end of then.writes.ends)
    writes.ends.push({ messages: messages + end.messages, events: events + end.events });
  return { patch: { ...first.patch, ...then.patch }, writes };
}

/**
 * The steps merged into `writes` ({@link StepWrites.ends}), in order: each one's messages and events. A step that
 * was never merged is one segment.
 */
export function stepSegments(writes: StepWrites): Array<{ messages: ModelMessage[]; events: PendingEvent[] }> {
  const segments: Array<{ messages: ModelMessage[]; events: PendingEvent[] }> = [];
  let messages = 0;
  let events = 0;
  for (const end of [...writes.ends, { messages: writes.messages.length, events: writes.events.length }]) {
    segments.push({
      messages: writes.messages.slice(messages, end.messages),
      events: writes.events.slice(events, end.events),
    });
    messages = end.messages;
    events = end.events;
  }
  return segments;
}

/** What {@link StepReplies} sees of the run session: its id, and its runtime state (read, and adopted unmarked). */
export interface ReplySession {
  /** The run id. */
  readonly id: string;
  /** A value of the runtime state. */
  getState(key: string): JsonValue | undefined;
  /** A copy of the whole runtime state. */
  stateSnapshot(): Record<string, JsonValue>;
  /** Takes a runtime-state value the commit writes itself. */
  adoptState(key: string, value: JsonValue): void;
}

/**
 * Derives what a step says on a message channel, inside the step's transaction before anything is written: it may
 * add outbox rows and runtime state to `step` (`runtime/channels/channel-replies.ts`).
 */
export type StepReplies = (session: ReplySession, step: TakenStep, s: StorageSession) => Promise<void>;
