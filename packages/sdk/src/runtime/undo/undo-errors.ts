// The typed refusals of host.undo (docs/approvals.md#undo). Each is thrown before any inverse ran, and audited.
import { MediaAgentError } from '../../core/errors';

/**
 * `host.undo` refused the request before any inverse ran: `UNDO_REQUEST_INVALID` (bad target shape, or a run with
 * more effects than one undo takes), `UNDO_NOT_FOUND` (nothing recorded for the target) or `UNDO_FORBIDDEN` (an
 * effect performed by another person, and the caller is not an administrator: `details.performers` names who did
 * it). The refusal is audited (`undo.refused`).
 * @public
 */
export class UndoError extends MediaAgentError<'UNDO_REQUEST_INVALID' | 'UNDO_NOT_FOUND' | 'UNDO_FORBIDDEN'> {
  /** @param code - the refusal; @param message - why; @param details - structured facts */
  constructor(
    code: 'UNDO_REQUEST_INVALID' | 'UNDO_NOT_FOUND' | 'UNDO_FORBIDDEN',
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, details);
  }
}
