// The shapes of conversation control: fork points, fork options, the effects a fork lists, undo's result.
import type { JsonValue } from '../../core/records';
import type { RunRecord } from '../../core/run-records';

/**
 * A step boundary a run can be forked at (`host.listForkPoints`; docs/forks.md#fork-points): an event that ended a
 * step commit and whose conversation prefix is closed (every tool call in it has its result).
 * @public
 */
export interface ForkPoint {
  /** The event's `seq` in the run: pass it as `ForkRunOptions.atSeq`. */
  seq: number;
  /** When that step committed (ms). */
  at: number;
  /** How many conversation messages the fork copies (the run had stored that many once the step committed). */
  messageCount: number;
  /** What the step did, for people, e.g. `after tool download.submit (pending)`, `after the reply (waiting)`. */
  label: string;
}

/**
 * Options of `host.forkRun` (docs/forks.md).
 * @public
 */
export interface ForkRunOptions {
  /** The original's event `seq` to fork at: one of `host.listForkPoints(runId)` (else `FORK_POINT_INVALID`). */
  atSeq: number;
  /** Who forks: the fork's owner; must be allowed to read the original (its owner or an administrator). */
  actor: string;
  /**
   * The model id the fork's turns use on the host's primary provider (1–200 characters), e.g. to compare models
   * from the same point. Absent: a fork of a fork inherits its original's; else the host's configured model.
   */
  model?: string;
  /**
   * A new goal (1–10 000 characters): the fork's `RunRecord.goal`, and a user message `The person changed the
   * goal: …` after the copied conversation. Absent: the original's goal.
   */
  goal?: string;
}

/**
 * Options of `host.listForkPoints`.
 * @public
 */
export interface ListForkPointsOptions {
  /** List on a person's behalf: only the run's owner and administrators may (else `RUN_NOT_FOUND`). */
  actor?: string;
}

/**
 * One effect of the lineage after the fork point, as the fork's `forked` event lists it: a fact the fork neither
 * repeats nor undoes (docs/forks.md#what-a-fork-is-told).
 * @public
 */
export interface ForkedEffect {
  /** Its ledger (idempotency) key in the run that performed it. */
  key: string;
  /** The capability invoked, e.g. `download.submit`. */
  capabilityId: string;
  /** SHA-256 of its canonical input (the ledger's `argsHash`). */
  argsHash: string;
  /** The ledger state when the fork was made. */
  outcome: 'succeeded' | 'pending' | 'unknown' | 'failed' | 'running';
  /** The invocation id of its latest claim (in the audit trail). */
  invocationId: string;
  /** Recorded output (`succeeded`, `pending`), at most 4 KiB of JSON; a larger one is `{ truncated: true, preview }`. */
  output?: JsonValue;
  /** Recorded error (`failed`, `unknown`). */
  error?: { code: string; message: string };
  /** The run that performed it: the original, or an ancestor of it for a fork of a fork. */
  runId: string;
}

/**
 * What `host.undoLastTurn` did.
 * @public
 */
export interface UndoTurnResult {
  /** The fork, `waiting` for the person's next message (`appendToInbox` wakes it). */
  run: RunRecord;
  /** The original's event `seq` the fork was made at (the last fork point before the undone message was applied). */
  forkedAt: number;
  /** The person's message that was undone: its inbox id and text (not in the fork's conversation). */
  undoneMessage: { inboxId: string; text: string };
  /** True when the original had not ended and was cancelled (`undone: continued in <forkId>`); no effect is undone. */
  originalCancelled: boolean;
}
