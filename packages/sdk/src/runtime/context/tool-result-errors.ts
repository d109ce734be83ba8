// The typed errors of reading a stored tool result.
import { MediaAgentError } from '../../core/errors';
import { formatBytes, formatDuration } from './size-words';

/** Why a stored result is gone: aged out, evicted by a newer one, or released with its run. @public */
export type GoneReason = 'expired' | 'evicted' | 'released';

/** Codes of the errors {@link ToolResultStore.read} throws. @public */
export const TOOL_RESULT_ERROR_CODES = Object.freeze({
  expired: 'TOOL_RESULT_EXPIRED',
  notFound: 'TOOL_RESULT_NOT_FOUND',
  foreign: 'TOOL_RESULT_FOREIGN',
  range: 'TOOL_RESULT_RANGE',
} as const);

/**
 * `TOOL_RESULT_EXPIRED`: the id was issued to this run but the result is gone — older than the TTL
 * (15 minutes), evicted by the per-run limits (8 results / 4 MiB) or the process-wide bound, or
 * released with its run. The message tells the model to
 * call the original tool again, narrowed if it can.
 * @public
 */
export class ToolResultExpiredError extends MediaAgentError {
  /** @param resultId - the id asked for; @param reason - why it is gone; @param limits - the limits to quote */
  constructor(
    resultId: string,
    reason: GoneReason,
    limits: { ttlMs: number; maxResultsPerRun: number; maxBytesPerRun: number },
  ) {
    const why =
      reason === 'expired'
        ? `it expired (stored results are kept for ${formatDuration(limits.ttlMs)})`
        : reason === 'evicted'
          ? `it was dropped to make room (a run keeps at most ${limits.maxResultsPerRun} stored results and ${formatBytes(limits.maxBytesPerRun)}; the oldest go first)`
          : 'the stored results of this run were released';
    super(
      TOOL_RESULT_ERROR_CODES.expired,
      `result_id ${JSON.stringify(resultId)} can no longer be read: ${why}. Call the original tool again to get the data, with a narrower query if possible, then read the new result_id.`,
      { resultId, reason },
    );
  }
}

/**
 * `TOOL_RESULT_NOT_FOUND`: no stored result has this id (mistyped, never issued, or issued before
 * the process restarted — results are kept in memory only).
 * @public
 */
export class ToolResultNotFoundError extends MediaAgentError {
  /** @param resultId - the id asked for */
  constructor(resultId: string) {
    super(
      TOOL_RESULT_ERROR_CODES.notFound,
      `no stored tool result has result_id ${JSON.stringify(resultId)}. Use the result_id exactly as given in a truncated tool result of this run; if it is from an earlier session, call the original tool again.`,
      { resultId },
    );
  }
}

/**
 * `TOOL_RESULT_FOREIGN`: the id belongs to another run. Neither the content
 * nor its size, tool or owner is revealed.
 * @public
 */
export class ToolResultForeignError extends MediaAgentError {
  /** @param resultId - the id asked for */
  constructor(resultId: string) {
    super(
      TOOL_RESULT_ERROR_CODES.foreign,
      `result_id ${JSON.stringify(resultId)} belongs to another run and cannot be read here. Only result_ids returned to this run can be read; call the tool yourself to get the data.`,
      { resultId },
    );
  }
}

/**
 * `TOOL_RESULT_RANGE`: `offset` or `limit` is not usable (not an integer, negative, `limit < 1`, or
 * `offset` past the end). The message says what is allowed.
 * @public
 */
export class ToolResultRangeError extends MediaAgentError {
  /** @param message - what is wrong and what is allowed; @param details - structured facts */
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(TOOL_RESULT_ERROR_CODES.range, message, details);
  }
}
