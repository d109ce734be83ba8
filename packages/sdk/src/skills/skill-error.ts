// The error personal-skill operations throw.
import type { ErrorCode } from '../core/error-codes';
import { MediaAgentError } from '../core/errors';

/** The codes a {@link SkillError} carries. @public */
export type SkillErrorCode = Extract<ErrorCode, `SKILL_${string}` | `SKILLS_${string}`>;

/**
 * A personal-skill operation was refused or failed; nothing was written (a batch is rolled back).
 * The message is written for the model that made the call and says what to do instead.
 * @public
 */
export class SkillError extends MediaAgentError {
  /**
   * @param code - a `SKILL_*` code
   * @param message - what went wrong and what to do instead
   * @param details - structured facts (skill name, file path …)
   */
  constructor(code: SkillErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
  }
}
