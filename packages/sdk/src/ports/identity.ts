import { type ActorRole, defaultRoleOf } from '../core/actor';

/**
 * The identity port: tells the runtime which {@link ActorRole} an actor has. The host owns its
 * users; the SDK never invents identities or roles.
 *
 * @remarks
 * Key users by a stable id (`user:<id>`, e.g. MoviePilot's numeric user id), never by a name: a renamed
 * user keeps their runs, and a new user who gets a recycled name inherits nothing. The resolver is
 * asked once per invocation and per administrative call; keep it fast (cache in the host when it
 * queries a database). An actor the host does not know should resolve to `user`.
 *
 * @example
 * ```ts
 * const admins = new Set(['user:1']); // stable user ids, never names
 * const host = createAgentHost({
 *   model: { provider },
 *   identity: { roleOf: (actor) => (admins.has(actor) ? 'admin' : 'user') },
 * });
 * ```
 * @public
 */
export interface IdentityResolver {
  /**
   * The role of one actor.
   * @param actor - a valid actor string (`user:<id>`, `apikey:<id>`, `agent:<runId>`, `system:<name>`)
   * @returns `admin` or `user`; a rejected promise, or any other value, counts as `user` (least privilege)
   */
  roleOf(actor: string): ActorRole | Promise<ActorRole>;
  /**
   * The person behind a message channel's user (optional; needed only when the host uses channels).
   * @param channelId - the channel configuration id (`ChannelPort.id`, e.g. `"telegram:home"`)
   * @param userId - the channel's own user id (e.g. a Telegram user id)
   * @returns the person's actor (`user:<id>`), or `null` when the channel user is linked to no person —
   *   the input is then refused and audited `channel.unknown_user`, and the chat is told once that it is
   *   not linked. Its role comes from {@link IdentityResolver.roleOf} as everywhere.
   * @example
   * ```ts
   * const links = new Map([['telegram:home/123456', 'user:1']]);
   * const identity: IdentityResolver = {
   *   roleOf: (actor) => (actor === 'user:1' ? 'admin' : 'user'),
   *   personOf: (channelId, userId) => links.get(`${channelId}/${userId}`) ?? null,
   * };
   * ```
   */
  personOf?(channelId: string, userId: string): string | null | Promise<string | null>;
}

/**
 * The resolver used when the host installs none ({@link defaultRoleOf}): every `user:*` actor is an
 * administrator, everything else an ordinary user.
 * @public
 */
export const DEFAULT_IDENTITY_RESOLVER: IdentityResolver = Object.freeze({ roleOf: defaultRoleOf });
