import { MediaAgentError } from '../../core/errors';

/**
 * A decision request failed: `DECISION_INVALID` (malformed), `DECISION_NOT_FOUND`, `DECISION_SUBJECT_NOT_FOUND`
 * (the subject is unknown to the host), `DECISION_OPTION_NOT_FOUND`, `DECISION_CLOSED` (dismissed), `DECISION_IN_PROGRESS` (a simultaneous
 * choice is still executing after `decisions.choiceWaitMs`). Nothing was
 * stored when it is thrown.
 * @public
 */
export class DecisionError extends MediaAgentError<
  | 'DECISION_INVALID'
  | 'DECISION_NOT_FOUND'
  | 'DECISION_SUBJECT_NOT_FOUND'
  | 'DECISION_OPTION_NOT_FOUND'
  | 'DECISION_CLOSED'
  | 'DECISION_IN_PROGRESS'
> {}
