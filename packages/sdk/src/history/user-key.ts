import { createHash } from 'node:crypto';
import { personKey } from '../core/person-id';

/**
 * The folder name (or row key) of a user's history: an irreversible, stable hash of the person's
 * canonical id (32 hex characters), so no user id or name appears on disk and tool arguments can never
 * choose a path. `user:alice` and `alice` are the same person and give the same key (the key of the
 * bare id, so history stored under a bare id stays where it was).
 * @param userId - `user:<id>` or the bare `<id>`
 * @throws `PERSON_ID_INVALID` (`PersonIdError`) for another actor kind, an empty or malformed id, or a non-string
 * @public
 */
export function historyUserKey(userId: string): string {
  return createHash('sha256')
    .update(`media-agent-history:${personKey(userId, 'userId')}`)
    .digest('hex')
    .slice(0, 32);
}
