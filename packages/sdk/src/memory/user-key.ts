// The folder key of a user's memory: a one-way hash of the stable user id.
import { createHash } from 'node:crypto';
import { parseActor } from '../core/actor';
import { MemoryError } from './errors';

/**
 * The memory key of an actor: the first 32 hex characters of SHA-256 of its stable user id. Only
 * `user:<id>` actors have one; renaming a user keeps the id, so it keeps the memory.
 * @param actor - `user:<id>`
 * @throws {@link MemoryError} `MEMORY_USER_REQUIRED` for any other actor kind (`ACTOR_INVALID` for a malformed actor)
 * @public
 */
export function memoryUserKey(actor: string): string {
  const { kind, id } = parseActor(actor);
  if (kind !== 'user') throw new MemoryError('MEMORY_USER_REQUIRED', `${kind} actors have no personal memory`);
  return createHash('sha256').update(`user:${id}`).digest('hex').slice(0, 32);
}
