// The folder key of a user's memory: a one-way hash of the person's canonical id.
import { createHash } from 'node:crypto';
import { PersonIdError, personKey } from '../core/person-id';
import { MemoryError } from './errors';

/**
 * The memory key of a person: the first 32 hex characters of SHA-256 of `user:<id>`. `user:alice` and
 * `alice` are the same person and have the same key (the key memory always had, so stored memory stays
 * where it was); renaming a user keeps the id, so it keeps the memory.
 * @param actor - `user:<id>` or the bare `<id>`
 * @throws {@link MemoryError} `MEMORY_USER_REQUIRED` for another actor kind (`apikey:`, `agent:`, `system:`);
 *   `PERSON_ID_INVALID` for an empty, malformed or wrong-typed value
 * @public
 */
export function memoryUserKey(actor: string): string {
  let id: string;
  try {
    id = personKey(actor, 'actor');
  } catch (error) {
    const kind = error instanceof PersonIdError ? error.details.kind : undefined;
    if (typeof kind === 'string')
      throw new MemoryError('MEMORY_USER_REQUIRED', `${kind} actors have no personal memory`);
    throw error;
  }
  return createHash('sha256').update(`user:${id}`).digest('hex').slice(0, 32);
}
