import { MediaAgentError } from './errors';

/**
 * Kinds of actor: `user` a console administrator (counts as human
 * authorization), `apikey` an API key, `agent` an agent run, `system` a background job.
 * @public
 */
export type ActorKind = 'user' | 'apikey' | 'agent' | 'system';

/**
 * Who is invoking: `user:<id>`, `apikey:<id>`, `agent:<runId>` or `system:<name>`.
 * @public
 */
export type Actor = `${ActorKind}:${string}`;

/**
 * The actor string is not one of the four forms.
 * @public
 */
export class InvalidActorError extends MediaAgentError {
  /** @param actor - the rejected value */
  constructor(actor: unknown) {
    super(
      'ACTOR_INVALID',
      `actor must be user:<id>, apikey:<id>, agent:<runId> or system:<name>; got ${JSON.stringify(String(actor)).slice(0, 80)}`,
      {
        actor: String(actor).slice(0, 80),
      },
    );
  }
}

const ACTOR = /^(user|apikey|agent|system):([^\s:][^\s]{0,199})$/;

/**
 * Splits an actor string into its kind and id.
 * @returns `{ kind, id }`
 * @throws `ACTOR_INVALID` ({@link MediaAgentError}) when `actor` is not `user:`, `apikey:`, `agent:` or `system:`
 *   followed by a non-empty id (≤ 200 chars, no spaces)
 * @public
 */
export function parseActor(actor: unknown): { kind: ActorKind; id: string } {
  const m = typeof actor === 'string' ? ACTOR.exec(actor) : null;
  if (!m) throw new InvalidActorError(actor);
  return { kind: m[1] as ActorKind, id: m[2]! };
}

/**
 * True when the actor is a person (`user:*`). Whether that person's direct calls count as human
 * authorization depends on their {@link ActorRole}: only an `admin` approves, changes grants and
 * executes without an approval or a grant.
 * @throws `ACTOR_INVALID` ({@link MediaAgentError}) for a malformed actor
 * @public
 */
export function isHumanActor(actor: string): boolean {
  return parseActor(actor).kind === 'user';
}

/**
 * What a person may do: `admin` decides approvals, changes grants and automation settings, reaches
 * admin-only capabilities and sees every user's runs; `user` runs the agent and sees their own runs.
 * The host resolves it through an `IdentityResolver`; text in messages, tool results, memory or
 * history never changes it.
 * @public
 */
export type ActorRole = 'admin' | 'user';

/**
 * The role an actor has when the host installs no `IdentityResolver`: every `user:*` actor is an
 * administrator (one person runs the host), every other actor (`apikey:`, `agent:`, `system:`) is an
 * ordinary `user`.
 * @throws `ACTOR_INVALID` ({@link MediaAgentError}) for a malformed actor
 * @public
 */
export function defaultRoleOf(actor: string): ActorRole {
  return parseActor(actor).kind === 'user' ? 'admin' : 'user';
}
