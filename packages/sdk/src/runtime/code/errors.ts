// Errors of read-only code orchestration.
import type { ErrorCode } from '../../core/error-codes';
import { MediaAgentError } from '../../core/errors';

/**
 * Codes of {@link CodeExecutionError}: why a cell, or one capability call inside it, did not run or
 * stopped (see `docs/errors.md`).
 * @public
 */
export type CodeErrorCode = Extract<ErrorCode, `CODE_${string}`>;

/**
 * A cell of `execute_code`, or one capability call of a script, failed with a `CODE_*` code:
 * `CODE_ADMIN_ONLY`, `CODE_SANDBOX_UNAVAILABLE`, `CODE_INPUT_INVALID`, `CODE_SYNTAX`,
 * `CODE_SCRIPT_ERROR`, `CODE_EXIT`, `CODE_TIMEOUT`, `CODE_CPU_LIMIT`, `CODE_MEMORY_LIMIT`,
 * `CODE_CANCELLED`, `CODE_TOOL_NOT_READ`, `CODE_TOOL_UNKNOWN`, `CODE_CALL_BUDGET`,
 * `CODE_RESULT_TOO_LARGE`, `CODE_OWNER_CHANGED`.
 * @public
 */
export class CodeExecutionError extends MediaAgentError {
  /** @param code - the `CODE_*` code; @param message - for the model and people; @param details - JSON facts */
  constructor(code: CodeErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
  }
}
