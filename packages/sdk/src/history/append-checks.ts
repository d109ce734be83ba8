// Checks of the store calls' arguments, before any storage access.
import { HistoryInputError } from './errors';
import type { HistoryAppend } from './history-store';

/** @throws `HISTORY_INPUT_INVALID` unless the user id is 1–255 characters */
export function checkUser(userId: string): void {
  if (typeof userId !== 'string' || userId.length === 0 || userId.length > 255)
    throw new HistoryInputError('userId', 'must be a non-empty string of at most 255 characters');
}

/** @throws `HISTORY_INPUT_INVALID` unless the id is a string of 1–255 characters */
export function checkSessionId(id: unknown, field: string): void {
  if (typeof id !== 'string' || id.length === 0 || id.length > 255)
    throw new HistoryInputError(field, 'must be a non-empty string of at most 255 characters');
}

const ROLES = new Set(['user', 'assistant', 'tool']);

/** @throws `HISTORY_INPUT_INVALID` for a malformed batch (over 100 messages, unknown roles, bad ids) */
export function checkAppend(userId: string, batch: HistoryAppend): void {
  checkUser(userId);
  checkSessionId(batch?.session?.id, 'session.id');
  if (!Array.isArray(batch.messages) || batch.messages.length > 100)
    throw new HistoryInputError('messages', 'must be an array of at most 100 messages');
  batch.messages.forEach((m, i) => {
    checkSessionId(m?.uid, `messages[${i}].uid`);
    if (!ROLES.has(m.role)) throw new HistoryInputError(`messages[${i}].role`, 'must be user, assistant or tool');
    if (typeof m.content !== 'string') throw new HistoryInputError(`messages[${i}].content`, 'must be a string');
    if (m.timestamp !== undefined && !Number.isFinite(m.timestamp))
      throw new HistoryInputError(`messages[${i}].timestamp`, 'must be epoch milliseconds');
  });
}
