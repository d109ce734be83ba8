// The typed errors of stable memory.
import { MediaAgentError } from '../core/errors';
import type { ErrorCode } from '../core/error-codes';

/**
 * The stable codes a memory error carries.
 * @public
 */
export type MemoryErrorCode = Extract<ErrorCode, `MEMORY_${string}`>;

/**
 * A memory write, proposal, command or search was refused; nothing was written. Switch on
 * {@link MediaAgentError.code}: `MEMORY_INPUT_INVALID`, `MEMORY_OVER_BUDGET`, `MEMORY_THREAT_DETECTED`,
 * `MEMORY_ENTRY_NOT_FOUND`, `MEMORY_ENTRY_AMBIGUOUS`, `MEMORY_EMPTY_BATCH`, `MEMORY_DRIFT`,
 * `MEMORY_READ_FAILED`, `MEMORY_BUSY`, `MEMORY_USER_REQUIRED`, `MEMORY_FORBIDDEN`, `MEMORY_PROPOSAL_NOT_FOUND`,
 * `MEMORY_PROPOSAL_LIMIT`, `MEMORY_ORIGINAL_CHANGED`, `MEMORY_SEARCH_TIMEOUT`.
 * @public
 */
export class MemoryError extends MediaAgentError<MemoryErrorCode> {
  /**
   * @param code - one of the `MEMORY_*` codes
   * @param message - what is wrong and what to do, in words the model and a person read
   * @param details - structured facts (never secrets)
   */
  constructor(code: MemoryErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
  }
}
