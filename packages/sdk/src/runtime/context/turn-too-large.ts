// The error of a turn that does not fit the model window.
import { MediaAgentError } from '../../core/errors';

/**
 * A single turn (the latest tool transaction, or one user message) plus the fixed part and pinned
 * facts does not fit the model window: nothing can be dropped silently, so the call fails
 * explicitly.
 * Code `CONTEXT_TURN_TOO_LARGE`; details `turnTokens`, `fixedTokens`, `pinnedTokens`, `windowTokens`,
 * `from`, `to` (message indices of the turn).
 * @public
 */
export class ContextTurnTooLargeError extends MediaAgentError {
  /** @param details - token figures and the turn's message range */
  constructor(details: {
    turnTokens: number;
    fixedTokens: number;
    pinnedTokens: number;
    windowTokens: number;
    from: number;
    to: number;
  }) {
    super(
      'CONTEXT_TURN_TOO_LARGE',
      `the latest turn (messages ${details.from}–${details.to - 1}, ${details.turnTokens} tokens) with the fixed prompt (${details.fixedTokens} tokens) and pinned facts (${details.pinnedTokens} tokens) exceeds the model window of ${details.windowTokens} tokens`,
      details,
    );
  }
}
