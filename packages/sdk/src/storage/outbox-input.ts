/**
 * The check of an outbox row before any store writes it.
 * @packageDocumentation
 */
import { MediaAgentError } from '../core/errors';
import { OUTBOX_KINDS, type NewOutboxRecord } from '../ports/outbox-records';

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const isTime = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** What is wrong with `record`, or null when it may be written. @internal */
export function outboxInputProblem(record: NewOutboxRecord): string | null {
  if (typeof record !== 'object' || record === null) return 'the row is not an object';
  for (const field of ['id', 'channelId', 'chatId', 'idempotencyKey'] as const)
    if (!nonEmpty(record[field])) return `${field} must be a non-empty string`;
  if (record.runId !== null && !nonEmpty(record.runId)) return 'runId must be a non-empty string or null';
  if (!OUTBOX_KINDS.includes(record.kind)) return `kind must be one of ${OUTBOX_KINDS.join(', ')}`;
  if (!isTime(record.createdAt)) return 'createdAt must be a non-negative integer (ms)';
  if (record.notBefore !== undefined && !isTime(record.notBefore))
    return 'notBefore must be a non-negative integer (ms)';
  const p = record.payload;
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return 'payload must be an object';
  if (typeof p.text !== 'string') return 'payload.text must be a string';
  if (p.buttons !== undefined && p.buttons !== null) {
    if (!Array.isArray(p.buttons)) return 'payload.buttons must be rows of buttons';
    for (const buttonRow of p.buttons) {
      if (!Array.isArray(buttonRow)) return 'payload.buttons must be rows of buttons';
      for (const b of buttonRow)
        if (typeof b !== 'object' || b === null || typeof b.label !== 'string' || typeof b.data !== 'string')
          return 'each button must have a string label and data';
    }
  }
  for (const field of ['replyTo', 'replyToOutboxId', 'editOf'] as const)
    if (p[field] !== undefined && !nonEmpty(p[field])) return `payload.${field} must be a non-empty string`;
  if (record.kind === 'edit' && p.editOf === undefined) return 'an edit row needs payload.editOf';
  return null;
}

/**
 * Throws `OUTBOX_INPUT_INVALID` when `record` is malformed (see {@link outboxInputProblem}).
 * @internal
 */
export function assertOutboxInput(record: NewOutboxRecord): void {
  const problem = outboxInputProblem(record);
  if (problem !== null)
    throw new MediaAgentError('OUTBOX_INPUT_INVALID', `outbox row: ${problem}`, {
      id: typeof record?.id === 'string' ? record.id : null,
    });
}
