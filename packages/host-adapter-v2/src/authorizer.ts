import type { AuthorizationDecision, AuthorizationRequest, Authorizer, DenialCode, StorageSession } from '@media-agent/sdk';

/**
 * Decides whether an actor is a MoviePilot superuser. `user:<name>` actors are console users of
 * the embedding host; agent actors (`agent:<runId>`) act for the actor that started the run.
 * @public
 */
export type SuperuserResolver = (actor: string) => boolean | Promise<boolean>;

/**
 * The stable denial code for an admin-only capability invoked by an actor that is not a host
 * superuser (MoviePilot V2: `get_current_active_superuser`, "用户权限不足").
 * @public
 */
export const HOST_SUPERUSER_REQUIRED = 'AUTH_HOST_SUPERUSER_REQUIRED';

/**
 * An `Authorizer` that denies admin-only capabilities (those sending a superuser-only V2 operation,
 * e.g. `organize.execute` → `POST /api/v1/transfer/manual`) to actors that are not host superusers,
 * before any request, then defers to the SDK authorizer it wraps. Agent actors are resolved to the
 * actor that started their run.
 * @public
 */
export class V2SuperuserAuthorizer implements Authorizer {
  /**
   * @param inner - the authorizer to defer to (the SDK's `PolicyAuthorizer`)
   * @param adminOnly - capability ids that need a host superuser
   * @param isSuperuser - whether an actor (never an `agent:` one) is a host superuser
   * @param credentialIsSuperuser - whether the adapter's own credential is a superuser (`undefined`: not known yet)
   */
  constructor(
    private readonly inner: Authorizer,
    private readonly adminOnly: ReadonlySet<string>,
    private readonly isSuperuser: SuperuserResolver,
    private readonly credentialIsSuperuser: () => boolean | undefined = () => true,
  ) {}

  /** {@inheritDoc @media-agent/sdk#Authorizer.authorize} */
  async authorize(request: AuthorizationRequest, session: StorageSession): Promise<AuthorizationDecision> {
    if (this.adminOnly.has(request.capability.id)) {
      const deny = (reason: string): AuthorizationDecision => ({ allowed: false, code: HOST_SUPERUSER_REQUIRED as DenialCode, reason });
      if (this.credentialIsSuperuser() === false) return deny(`${request.capability.id} needs a MoviePilot superuser; the adapter's login is not one`);
      let actor = request.actor;
      for (let i = 0; i < 4 && actor.startsWith('agent:'); i++) actor = (await session.runs.get(actor.slice('agent:'.length)))?.startedBy ?? actor;
      if (actor.startsWith('agent:') || !(await this.isSuperuser(actor))) return deny(`${request.capability.id} sends a MoviePilot superuser-only request; ${actor} is not a host superuser`);
    }
    return this.inner.authorize(request, session);
  }
}
