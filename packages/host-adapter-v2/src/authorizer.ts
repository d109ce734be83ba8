import type { AuthorizationVerdict, AuthorizationRequest, Authorizer, DenialCode } from '@media-agent/sdk';
import { parseActor } from '@media-agent/sdk/authorization';
import type { StorageSession } from '@media-agent/sdk/storage';
import { HOST_SUPERUSER_REQUIRED } from '@media-agent/host-adapter-kit';
import type { V2RouteEffect } from './operations';

/**
 * Decides whether an actor is a MoviePilot superuser. `user:<name>` actors are console users of
 * the embedding host; agent actors (`agent:<runId>`) act for the actor that started the run.
 * @public
 */
export type SuperuserResolver = (actor: string) => boolean | Promise<boolean>;

// The stable denial code for an admin-only capability invoked by an actor that is not a host superuser
// (MoviePilot V2: `get_current_active_superuser`, "用户权限不足"), shared with the V3 adapter.
export { HOST_SUPERUSER_REQUIRED };

/**
 * The routes a capability sends, by capability id: a plugin route capability's own route, or the routes
 * a plugin capability declared (`defineV2PluginCapability`); `undefined` for any other capability.
 * @public
 */
export type V2CapabilityRoutes = (capabilityId: string) => readonly V2RouteEffect[] | undefined;

/** How many `agent:` → starter links are followed to find the person (or key) behind a subagent. @internal */
const MAX_AGENT_CHAIN = 4;

/**
 * An `Authorizer` for MoviePilot 2.x, composed over the SDK authorizer it wraps (normally `PolicyAuthorizer`):
 * 1. an admin-only capability (one sending a superuser-only V2 operation, e.g. `organize.execute` →
 *    `POST /api/v1/transfer/manual`, or a plugin capability sending a superuser-only route) is denied
 *    to actors that are not host superusers, before any request (`AUTH_HOST_SUPERUSER_REQUIRED`);
 *    agent actors are resolved to the actor that started their run (followed through subagents);
 * 2. otherwise the inner authorizer decides;
 * 3. a plugin capability sending a destructive route (`DELETE`, or declared destructive) is allowed
 *    for a non-human actor only on an approval, never on a standing grant (`AUTH_NO_AUTHORIZATION`).
 *
 * A plugin capability is therefore authorized like the route capability of each route it declared; its
 * scoped client applies rule 1 again to every request ({@link V2SuperuserAuthorizer.superuserDenial}).
 * @public
 */
export class V2SuperuserAuthorizer implements Authorizer {
  /**
   * @param inner - the authorizer to defer to (the SDK's `PolicyAuthorizer`)
   * @param adminOnly - capability ids that need a host superuser
   * @param isSuperuser - whether an actor (never an `agent:` one) is a host superuser
   * @param credentialIsSuperuser - whether the adapter's own credential is a superuser (`undefined`: not known yet)
   * @param routesOf - the routes of plugin and plugin route capabilities (default: none)
   */
  constructor(
    private readonly inner: Authorizer,
    private readonly adminOnly: ReadonlySet<string>,
    private readonly isSuperuser: SuperuserResolver,
    private readonly credentialIsSuperuser: () => boolean | undefined = () => true,
    private readonly routesOf: V2CapabilityRoutes = () => undefined,
  ) {}

  /**
   * Rule 1 on its own: why `actor` may not send a superuser-only request, or `undefined` when it may.
   * Used before every invocation and by a plugin's scoped client before every superuser-only request.
   * @param what - what is sent, for the reason (a capability id or a route)
   * @param actor - the invoking actor (`agent:<runId>` counts as whoever started the run)
   * @param session - storage, to find who started a run
   * @returns the reason of a denial, or `undefined`
   */
  async superuserDenial(what: string, actor: string, session: StorageSession): Promise<string | undefined> {
    if (this.credentialIsSuperuser() === false)
      return `${what} needs a MoviePilot superuser; the adapter's login is not one`;
    let principal = actor;
    for (let i = 0; i < MAX_AGENT_CHAIN && principal.startsWith('agent:'); i++)
      principal = (await session.runs.get(principal.slice('agent:'.length)))?.startedBy ?? principal;
    if (principal.startsWith('agent:') || !(await this.isSuperuser(principal)))
      return `${what} sends a MoviePilot superuser-only request; ${principal} is not a host superuser`;
    return undefined;
  }

  /**
   * Decides whether one invocation may run ({@link Authorizer.authorize}).
   * @param request - the question
   * @param session - the storage session of the invocation's transaction (read records only through it)
   * @returns the verdict; never throws for a denial
   */
  async authorize(request: AuthorizationRequest, session: StorageSession): Promise<AuthorizationVerdict> {
    const id = request.capability.id;
    const routes = this.routesOf(id) ?? [];
    const superuserRoutes = routes.filter((r) => r.superuser).map((r) => r.route);
    if (this.adminOnly.has(id) || superuserRoutes.length > 0) {
      const denial = await this.superuserDenial(
        superuserRoutes.length > 0 ? `${id} (${superuserRoutes.join(', ')})` : id,
        request.actor,
        session,
      );
      if (denial) return { allowed: false, code: HOST_SUPERUSER_REQUIRED as DenialCode, reason: denial };
    }
    const decision = await this.inner.authorize(request, session);
    if (!decision.allowed || decision.basis !== 'grant') return decision;
    const destructive = routes.filter((r) => r.destructive).map((r) => r.route);
    if (destructive.length > 0 && parseActor(request.actor).kind !== 'user')
      return {
        allowed: false,
        code: 'AUTH_NO_AUTHORIZATION',
        reason: `${id} needs a single-use approval of its plan for ${parseActor(request.actor).kind} actors (a grant is not enough): it sends ${destructive.join(', ')}`,
        ...(decision.grantId ? { grantId: decision.grantId } : {}),
      };
    return decision;
  }
}
