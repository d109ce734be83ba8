// Checks of the store calls' arguments, before any storage access.
import { personKey } from '../core/person-id';
import { HistoryInputError } from './errors';
import type { HistoryAppend } from './history-store';

/**
 * The canonical id of the person a call names (`user:alice` and `alice` are the same person).
 * @throws `PERSON_ID_INVALID` for another actor kind, an empty or malformed id, or a non-string
 */
export function checkUser(userId: unknown): string {
  return personKey(userId, 'userId');
}

/** @throws `HISTORY_INPUT_INVALID` unless the id is a string of 1–255 characters without U+0000 */
export function checkSessionId(id: unknown, field: string): void {
  if (typeof id !== 'string' || id.length === 0 || id.length > 255)
    throw new HistoryInputError(field, 'must be a non-empty string of at most 255 characters');
  if (id.includes('\u0000')) throw new HistoryInputError(field, 'must not contain U+0000');
}

const ROLES = new Set(['user', 'assistant', 'tool']);

/** A finite number: epoch ms, a deadline (a string, `NaN` or an infinity would be stored, or break every later read). */
const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** @throws `HISTORY_INPUT_INVALID` unless each optional session field present has its type */
function checkSession(session: HistoryAppend['session']): void {
  checkSessionId(session?.id, 'session.id');
  for (const field of ['source', 'title', 'model'] as const)
    if (session[field] !== undefined && typeof session[field] !== 'string')
      throw new HistoryInputError(`session.${field}`, 'must be a string');
  for (const field of ['parentSessionId', 'endReason'] as const)
    if (session[field] !== undefined && session[field] !== null && typeof session[field] !== 'string')
      throw new HistoryInputError(`session.${field}`, 'must be a string or null');
  if (session.startedAt !== undefined && !isFiniteNumber(session.startedAt))
    throw new HistoryInputError('session.startedAt', 'must be epoch milliseconds');
}

/**
 * @throws `HISTORY_INPUT_INVALID` for a malformed batch (over 100 messages, unknown roles, bad ids, session
 * fields or times of the wrong type)
 */
export function checkAppend(userId: unknown, batch: HistoryAppend): string {
  const user = checkUser(userId);
  checkSession(batch?.session);
  if (!Array.isArray(batch.messages) || batch.messages.length > 100)
    throw new HistoryInputError('messages', 'must be an array of at most 100 messages');
  batch.messages.forEach((m, i) => {
    checkSessionId(m?.uid, `messages[${i}].uid`);
    if (!ROLES.has(m.role)) throw new HistoryInputError(`messages[${i}].role`, 'must be user, assistant or tool');
    if (typeof m.content !== 'string') throw new HistoryInputError(`messages[${i}].content`, 'must be a string');
    if (m.timestamp !== undefined && !isFiniteNumber(m.timestamp))
      throw new HistoryInputError(`messages[${i}].timestamp`, 'must be epoch milliseconds');
    for (const field of ['toolCallId', 'toolName', 'toolCalls', 'toolStatus'] as const)
      if (m[field] !== undefined && typeof m[field] !== 'string')
        throw new HistoryInputError(`messages[${i}].${field}`, 'must be a string when present');
  });
  return user;
}

/** @throws `HISTORY_INPUT_INVALID` unless `uids` is an array of message ids (strings of 1–255 characters) */
export function checkUids(uids: unknown): readonly string[] {
  if (!Array.isArray(uids)) throw new HistoryInputError('uids', 'must be an array of message ids');
  for (const [i, uid] of uids.entries()) checkSessionId(uid, `uids[${i}]`);
  return uids as readonly string[];
}

/** @throws `HISTORY_INPUT_INVALID` unless the search scope is absent or an object whose `currentSessionId` is a session id */
export function checkScope(scope: unknown): { currentSessionId?: string } {
  if (scope === undefined) return {};
  if (typeof scope !== 'object' || scope === null || Array.isArray(scope))
    throw new HistoryInputError('scope', 'must be an object { currentSessionId?: string }');
  const current = (scope as { currentSessionId?: unknown }).currentSessionId;
  if (current !== undefined) checkSessionId(current, 'scope.currentSessionId');
  return scope as { currentSessionId?: string };
}

/**
 * The rows per step of a maintenance pass, checked with the rest of its options.
 * @throws `HISTORY_INPUT_INVALID` unless `options` is absent or an object with `batchSize` an integer from 1 to
 * 2000 and `maxSteps` a non-negative integer
 */
export function checkMaintenance(options: unknown): { batchSize: number; maxSteps: number } {
  if (options === undefined) return { batchSize: 500, maxSteps: Number.POSITIVE_INFINITY };
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new HistoryInputError('options', 'must be an object { batchSize?, maxSteps? }');
  const { batchSize = 500, maxSteps = Number.POSITIVE_INFINITY } = options as Record<string, unknown>;
  if (!Number.isInteger(batchSize) || (batchSize as number) < 1 || (batchSize as number) > 2000)
    throw new HistoryInputError('batchSize', 'must be an integer from 1 to 2000');
  if (maxSteps !== Number.POSITIVE_INFINITY && !(Number.isSafeInteger(maxSteps) && (maxSteps as number) >= 0))
    throw new HistoryInputError('maxSteps', 'must be a non-negative integer');
  return { batchSize: batchSize as number, maxSteps: maxSteps as number };
}

/** What a history store's constructor checks: the numbers it computes deadlines, retention and pools from. */
export interface HistoryStoreLimits {
  deadlineMs?: unknown;
  retentionDays?: unknown;
  redact?: unknown;
  /** Positive integers (worker threads, open files, pool connections), by option name. */
  counts?: Record<string, unknown>;
}

/**
 * Checks a history store's options when it is made, so a wrong type never turns into a search that always
 * times out (`deadlineMs: "3000"`) or a first append that throws a `TypeError`.
 * @throws `HISTORY_INPUT_INVALID` (`details.field` names the option) for a deadline that is not a positive
 * number, a retention that is not a non-negative number, a count that is not a positive integer, or a
 * `redact` that is not a function
 */
export function checkStoreLimits(limits: HistoryStoreLimits): void {
  const { deadlineMs, retentionDays, redact, counts = {} } = limits;
  if (deadlineMs !== undefined && !(isFiniteNumber(deadlineMs) && deadlineMs > 0))
    throw new HistoryInputError('deadlineMs', 'must be a positive number of milliseconds');
  if (retentionDays !== undefined && !(isFiniteNumber(retentionDays) && retentionDays >= 0))
    throw new HistoryInputError('retentionDays', 'must be a number of days, 0 (no retention) or more');
  if (redact !== undefined && typeof redact !== 'function') throw new HistoryInputError('redact', 'must be a function');
  for (const [field, value] of Object.entries(counts))
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) > 0))
      throw new HistoryInputError(field, 'must be a positive integer');
}
