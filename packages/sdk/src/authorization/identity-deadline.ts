// The host's identity resolver with a deadline: a resolver that never answers cannot hang an
// invocation, an approval or an HTTP request; it counts as `user` (least privilege) instead.
import type { ActorRole } from '../core/actor';
import { answerWithin, DeadlineExceeded } from '../core/deadline';
import type { IdentityResolver } from '../ports/identity';

/**
 * Longest wait for the host's identity resolver, in ms; an answer later than that counts as `user`.
 * @public
 */
export const IDENTITY_TIMEOUT_MS = 5000;

/**
 * `resolver` with a deadline: `roleOf` answers what the resolver answers within `timeoutMs`, else `user`
 * (and tells `onTimeout`). A resolver that throws or rejects is passed through (callers count it as `user`).
 * @param resolver - the host's resolver
 * @param timeoutMs - the deadline in ms (default {@link IDENTITY_TIMEOUT_MS})
 * @param onTimeout - told of each actor whose role came too late
 * @returns the bounded resolver
 */
export function withIdentityDeadline(
  resolver: IdentityResolver,
  timeoutMs: number = IDENTITY_TIMEOUT_MS,
  onTimeout?: (actor: string) => void,
): IdentityResolver {
  return {
    roleOf(actor: string): ActorRole | Promise<ActorRole> {
      const answer = resolver.roleOf(actor);
      if (typeof (answer as { then?: unknown } | null)?.then !== 'function') return answer;
      return answerWithin(answer, timeoutMs).catch((error: unknown) => {
        if (!(error instanceof DeadlineExceeded)) throw error;
        onTimeout?.(actor);
        return 'user' as const;
      });
    },
    // A channel user's person, bounded the same way: no answer in time counts as not linked (null).
    ...(resolver.personOf
      ? {
          personOf(channelId: string, userId: string): string | null | Promise<string | null> {
            const answer = resolver.personOf!(channelId, userId);
            if (typeof (answer as { then?: unknown } | null)?.then !== 'function') return answer;
            return answerWithin(answer as Promise<string | null>, timeoutMs).catch((error: unknown) => {
              if (!(error instanceof DeadlineExceeded)) throw error;
              onTimeout?.(`${channelId}/${userId}`);
              return null;
            });
          },
        }
      : {}),
  };
}
