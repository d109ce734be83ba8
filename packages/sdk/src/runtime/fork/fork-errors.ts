// The typed refusals of forks and undo (docs/forks.md#refusals).
import { MediaAgentError } from '../../core/errors';

/**
 * `atSeq` is not a fork point of the run (mid-step, beyond the end, below 1, not an integer). `details`: `runId`,
 * `atSeq`, `before` and `after` (the nearest fork points, or null). Code `FORK_POINT_INVALID`; nothing was written.
 * @public
 */
export class ForkPointInvalidError extends MediaAgentError {
  /**
   * @param runId - the run
   * @param atSeq - the value given
   * @param before - the nearest fork point below it, or null
   * @param after - the nearest fork point above it, or null
   */
  constructor(runId: string, atSeq: unknown, before: number | null, after: number | null) {
    const near =
      before === null && after === null
        ? 'the run has no fork point yet'
        : `the nearest fork points are ${before === null ? 'none before' : `${before} before`} and ${after === null ? 'none after' : `${after} after`}`;
    super(
      'FORK_POINT_INVALID',
      `run ${JSON.stringify(runId)}: event ${JSON.stringify(atSeq)} is not a step boundary with a closed conversation; ${near}`,
      { runId, atSeq: typeof atSeq === 'number' ? atSeq : String(atSeq), before, after },
    );
  }
}

/**
 * A subagent run (depth > 0) cannot be forked or undone: fork its top-level run. Code `FORK_SUBAGENT_RUN`;
 * `details.runId`, `details.parentRunId`.
 * @public
 */
export class ForkSubagentRunError extends MediaAgentError {
  /** @param runId - the subagent run; @param parentRunId - its parent */
  constructor(runId: string, parentRunId: string | null) {
    super(
      'FORK_SUBAGENT_RUN',
      `run ${JSON.stringify(runId)} is a subagent run; fork its top-level run instead${parentRunId ? ` (its parent is ${parentRunId})` : ''}`,
      { runId, parentRunId },
    );
  }
}

/**
 * `host.undoLastTurn` of a run with no message from a person after its goal. Code `UNDO_NO_TURN`; `details.runId`.
 * @public
 */
export class UndoNoTurnError extends MediaAgentError {
  /** @param runId - the run */
  constructor(runId: string) {
    super('UNDO_NO_TURN', `run ${JSON.stringify(runId)} has no message from a person after its goal to undo`, {
      runId,
    });
  }
}

/**
 * `host.undoLastTurn` of a run whose origin is not `interactive`. Code `UNDO_NOT_INTERACTIVE`; `details.runId`,
 * `details.origin`.
 * @public
 */
export class UndoNotInteractiveError extends MediaAgentError {
  /** @param runId - the run; @param origin - its origin */
  constructor(runId: string, origin: string) {
    super(
      'UNDO_NOT_INTERACTIVE',
      `run ${JSON.stringify(runId)} is a ${origin} run; only an interactive conversation can undo its last turn (fork it instead)`,
      { runId, origin },
    );
  }
}

/**
 * `host.undoLastTurn` while the person's latest message is still queued (not applied yet): nothing to undo yet.
 * Code `UNDO_MESSAGE_PENDING`; `details.runId`, `details.inboxId`.
 * @public
 */
export class UndoMessagePendingError extends MediaAgentError {
  /** @param runId - the run; @param inboxId - the queued message */
  constructor(runId: string, inboxId: string) {
    super(
      'UNDO_MESSAGE_PENDING',
      `run ${JSON.stringify(runId)}: the latest message (${inboxId}) has not reached the model yet; nothing to undo yet`,
      { runId, inboxId },
    );
  }
}
