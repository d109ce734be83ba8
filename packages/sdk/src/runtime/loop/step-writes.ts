// The writes of one step, gathered while it runs and committed together (see `commit.ts`).
import type { RunEventPayloads, RunEventType } from '../events/run-event';
import type { ModelMessage } from '../../models/types';
import type { DecisionRecord } from '../../core/run-records';
import type { RunPatch } from '../../ports/storage-adapter';

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
  /** Set by the run's end: a message queued meanwhile makes the ended run wake once more. */
  wakeIfQueued = false;

  /** True when the step has nothing to write. */
  get empty(): boolean {
    return (
      Object.keys(this.patch).length === 0 &&
      this.messages.length === 0 &&
      this.events.length === 0 &&
      this.applied.length === 0 &&
      this.decisions.length === 0 &&
      !this.wakeIfQueued
    );
  }

  /** Forgets everything (after a commit, or when the step failed). */
  clear(): void {
    this.patch = {};
    this.messages.length = 0;
    this.events.length = 0;
    this.applied.length = 0;
    this.decisions.length = 0;
    this.wakeIfQueued = false;
  }
}
