import { createHash } from 'node:crypto';

/**
 * The folder name of a user's history: an irreversible, stable hash of the stable user id (32 hex
 * characters), so no user id or name appears on disk and tool arguments can never choose a path.
 * @param userId - the stable user id
 * @public
 */
export function historyUserKey(userId: string): string {
  return createHash('sha256').update(`media-agent-history:${userId}`).digest('hex').slice(0, 32);
}
