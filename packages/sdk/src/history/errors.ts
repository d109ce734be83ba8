import { MediaAgentError } from '../core/errors';

/**
 * A session search request, a history append or a history store's options are invalid (inverted time
 * bounds, unknown roles, `window` above 20, an anchor without a session, limits out of range, a batch over
 * 100 messages, a session start time that is not epoch ms, a deadline that is not positive …). Code
 * `HISTORY_INPUT_INVALID`; `details.field` names the offending field. Raised before any storage access:
 * nothing is read or written.
 * @public
 */
export class HistoryInputError extends MediaAgentError {
  /**
   * @param field - the offending field
   * @param message - what is wrong
   */
  constructor(field: string, message: string) {
    super('HISTORY_INPUT_INVALID', `${field}: ${message}`, { field });
  }
}

/**
 * The history store cannot be used: its file has a newer schema version than this SDK knows, or it
 * cannot be opened. Code `HISTORY_STORE_UNAVAILABLE`; `details.reason` says why. Nothing is written.
 * @public
 */
export class HistoryStoreError extends MediaAgentError {
  /**
   * @param reason - why
   * @param options - the underlying error as `cause`
   */
  constructor(reason: string, options?: ErrorOptions) {
    super('HISTORY_STORE_UNAVAILABLE', `history store unavailable: ${reason}`, { reason }, options);
  }
}
