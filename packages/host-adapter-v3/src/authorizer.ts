import { parseActor, type AuthorizationDecision, type AuthorizationRequest, type Authorizer, type StorageSession } from '@media-agent/sdk';
import { v3Operation } from './contract/catalog';
import type { V3Operation } from './contract/types';
import { v3NeedsApproval } from './operations-capabilities';

/**
 * Catalog operations each standard capability may send (issue 5 item 2; README mapping table). An
 * admin-only operation among them makes the capability admin-only for the authorizer.
 * @public
 */
export const V3_STANDARD_OPERATIONS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  'catalog.lookup': ['media.search', 'media.detail', 'library.exists'],
  'release.search': ['search.torrents', 'library.exists'],
  'release.inspect': ['search.results', 'library.exists'],
  'identity.resolve': [],
  'download.plan': ['search.torrents', 'library.exists', 'download.tasks.active'],
  'download.submit': ['download.add'],
  'download.recheck': [],
  'organize.plan': ['download.tasks.active', 'transfer.history', 'download.history.list', 'transfer.file'],
  'organize.execute': ['download.tasks.active', 'transfer.history', 'transfer.file'],
  'task.inspect': ['download.tasks.active', 'transfer.history'],
  'task.retry': ['transfer.history.redo', 'download.tasks.active', 'transfer.history'],
  'task.cancel': [],
  'policy.preview': [],
  'policy.apply': [],
  'inventory.query': ['media.search', 'media.detail', 'library.exists', 'library.latest'],
});

/**
 * Catalog operations each adapter capability (not standard, not `mp.*`) sends; it is authorized like
 * them (admin-only; `confirmation: required` → an approval for agents, never a grant).
 * @public
 */
export const V3_ADAPTER_OPERATIONS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  'moviepilot.subscription.find': ['subscription.find'],
  'moviepilot.subscription.add': ['subscription.add'],
});

/** Role of a principal on the host: `superuser` may call admin-only operations. @public */
export type V3HostRole = 'superuser' | 'user';

/**
 * Decides the host role of a principal (the actor, or for `agent:<runId>` the actor that started the run).
 * Return `undefined` to fall back to the client's own identity.
 * @public
 */
export type V3PrincipalRole = (principal: string) => V3HostRole | undefined | Promise<V3HostRole | undefined>;

/** The catalog operations a capability id stands for. @internal */
function operationsOf(capabilityId: string): V3Operation[] {
  if (capabilityId.startsWith('mp.') && capabilityId !== 'mp.operation.plan' && capabilityId !== 'mp.operations.search') {
    try {
      return [v3Operation(capabilityId.slice(3))];
    } catch {
      return [];
    }
  }
  return (V3_STANDARD_OPERATIONS[capabilityId] ?? V3_ADAPTER_OPERATIONS[capabilityId] ?? []).map((id) => v3Operation(id));
}

/**
 * The V3 host's `Authorizer` (issue 5 item 3), composed over the SDK's (normally
 * `PolicyAuthorizer`) and registered through `configure`:
 * 1. an admin-only operation (`admin_only` in the catalog; for a standard capability, any operation it
 *    sends) is denied before any request when the principal is not a host superuser — the principal of
 *    `agent:<runId>` is the actor that started the run;
 * 2. otherwise the inner authorizer decides;
 * 3. an `mp.*` `destructive_write` for a non-human actor, or `confirmation: required` for an agent,
 *    is allowed only on an approval (or a console administrator), never on a standing grant; the same
 *    holds for a download plan revised to be sent unrecognised (`download.add` requires_confirmation).
 * @public
 */
export class V3Authorizer implements Authorizer {
  /** @param inner - the SDK authorizer it composes; @param role - host role of a principal */
  constructor(
    private readonly inner: Authorizer,
    private readonly role: (principal: string) => Promise<V3HostRole>,
  ) {}

  /** {@inheritDoc @media-agent/sdk#Authorizer.authorize} */
  async authorize(request: AuthorizationRequest, session: StorageSession): Promise<AuthorizationDecision> {
    const ops = operationsOf(request.capability.id);
    const actor = parseActor(request.actor);
    const admin = ops.filter((o) => o.admin_only);
    if (admin.length > 0 && request.actor !== 'system:ledger-verifier') {
      let principal = request.actor;
      if (actor.kind === 'agent') principal = (await session.runs.get(actor.id))?.startedBy ?? request.actor;
      if ((await this.role(principal)) !== 'superuser')
        return { allowed: false, code: 'AUTH_NO_AUTHORIZATION', reason: `MoviePilot ${admin.map((o) => o.operation_id).join(', ')} is for host superusers only; ${principal} is not a superuser (denied before any request)` };
    }
    const decision = await this.inner.authorize(request, session);
    if (!decision.allowed || decision.basis !== 'grant') return decision;
    const strict = (request.capability.id.startsWith('mp.') || request.capability.id in V3_ADAPTER_OPERATIONS) && ops.some((o) => v3NeedsApproval(o, actor.kind));
    const unrecognised = request.capability.id === 'download.submit' && (request.plan?.payload as { allowUnrecognized?: boolean } | null)?.allowUnrecognized === true;
    if (strict || unrecognised)
      return {
        allowed: false,
        code: 'AUTH_NO_AUTHORIZATION',
        reason: unrecognised ? 'MoviePilot could not recognise this download: a person must approve the revised plan (a grant is not enough)' : `${request.capability.id} needs a single-use approval of its plan for ${actor.kind} actors (a grant is not enough)`,
        ...(decision.grantId ? { grantId: decision.grantId } : {}),
      };
    return decision;
  }
}
