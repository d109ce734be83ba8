import { HOST_SUPERUSER_REQUIRED } from '@media-agent/host-adapter-kit';
import type { AuthorizationVerdict, AuthorizationRequest, Authorizer, DenialCode } from '@media-agent/sdk';
import { parseActor } from '@media-agent/sdk/authorization';
import type { StorageSession } from '@media-agent/sdk/storage';
import { v3Operation } from './contract/catalog';
import type { V3Operation } from './contract/types';
import { v3NeedsApproval } from './operations-capabilities';

// The denial of an admin-only operation to a principal that is not a host superuser, shared with the V2 adapter.
export { HOST_SUPERUSER_REQUIRED };

/**
 * Catalog operations each standard capability may send. An
 * admin-only operation among them makes the capability admin-only for the authorizer.
 * @public
 */
export const V3_STANDARD_OPERATIONS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  'catalog.lookup': ['media.search', 'media.detail', 'library.exists', 'system.network.test'],
  'release.search': ['search.torrents', 'library.exists', 'media.detail', 'site.list', 'system.network.test'],
  'release.inspect': ['search.results', 'library.exists'],
  'identity.resolve': ['media.detail', 'system.network.test'],
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
  'moviepilot.organize.revert': ['download.tasks.active', 'transfer.history', 'transfer.history.delete'],
  'moviepilot.policy.revert': [],
});

/** Role of a principal on the host: `superuser` may call admin-only operations. @public */
export type V3HostRole = 'superuser' | 'user';

/**
 * Decides the host role of a principal (the actor, or for `agent:<runId>` the actor that started the run).
 * Return `undefined` to fall back to the client's own identity.
 * @public
 */
export type V3PrincipalRole = (principal: string) => V3HostRole | undefined | Promise<V3HostRole | undefined>;

/** The catalog operations a capability id stands for (plugin declarations aside). @internal */
function operationsOf(capabilityId: string): V3Operation[] {
  if (
    capabilityId.startsWith('mp.') &&
    capabilityId !== 'mp.operation.plan' &&
    capabilityId !== 'mp.operations.search'
  ) {
    try {
      return [v3Operation(capabilityId.slice(3))];
    } catch {
      return [];
    }
  }
  return (V3_STANDARD_OPERATIONS[capabilityId] ?? V3_ADAPTER_OPERATIONS[capabilityId] ?? []).map((id) =>
    v3Operation(id),
  );
}

/**
 * The catalog operations each plugin capability declared (`defineV3PluginCapability`'s `operations`),
 * by capability id; `undefined` for a capability that is not a declared plugin.
 * @public
 */
export type V3DeclaredOperations = (capabilityId: string) => readonly string[] | undefined;

/** How many `agent:` → starter links are followed to find the person (or key) behind a subagent. @internal */
const MAX_AGENT_CHAIN = 4;

/**
 * The V3 host's `Authorizer`, composed over the SDK's (normally
 * `PolicyAuthorizer`) and registered through `configure`:
 * 1. an admin-only operation (`admin_only` in the catalog; for a standard capability, any operation it
 *    sends; for a plugin capability, any operation it declared) is denied before any request when the
 *    principal is not a host superuser (`AUTH_HOST_SUPERUSER_REQUIRED`, which no approval or grant
 *    lifts) — the principal of `agent:<runId>` is the actor that started the run (followed through
 *    subagents);
 * 2. otherwise the inner authorizer decides;
 * 3. an `mp.*`, adapter or plugin capability standing for a `destructive_write` (any non-human actor)
 *    or a `confirmation: required` operation (agent actors) is allowed only on an approval (or a
 *    console administrator), never on a standing grant; the same holds for a download plan revised to
 *    be sent unrecognised (`download.add` requires_confirmation).
 *
 * A plugin capability therefore needs exactly what a direct `mp.<operation_id>` call of each operation
 * it declared needs; its scoped client applies rule 1 again to every request
 * ({@link V3Authorizer.superuserDenial}).
 * @public
 */
export class V3Authorizer implements Authorizer {
  /**
   * @param inner - the SDK authorizer it composes
   * @param role - host role of a principal
   * @param declared - operations declared by plugin capabilities (default: none)
   */
  constructor(
    private readonly inner: Authorizer,
    private readonly role: (principal: string) => Promise<V3HostRole>,
    private readonly declared: V3DeclaredOperations = () => undefined,
  ) {}

  /**
   * The catalog operations a capability stands for: the operation of `mp.<operation_id>`, the
   * operations a standard or adapter capability sends, or those a plugin capability declared.
   * @param capabilityId - capability id
   * @returns catalog entries (empty for a capability that sends nothing the catalog knows)
   */
  operationsOf(capabilityId: string): V3Operation[] {
    const declared = this.declared(capabilityId);
    if (declared) return declared.map((id) => v3Operation(id));
    return operationsOf(capabilityId);
  }

  /**
   * Rule 1 on its own: why `actor` may not send these operations (some are admin-only and its
   * principal is not a host superuser), or `undefined` when it may. The ledger's verifier actor may
   * always read. Used before every invocation and by a plugin's scoped client before every request.
   * @param operations - catalog entries
   * @param actor - the invoking actor (`agent:<runId>` counts as whoever started the run)
   * @param session - storage, to find who started a run
   * @returns the reason of a denial, or `undefined`
   */
  async superuserDenial(
    operations: readonly V3Operation[],
    actor: string,
    session: StorageSession,
  ): Promise<string | undefined> {
    const admin = operations.filter((o) => o.admin_only);
    if (admin.length === 0 || actor === 'system:ledger-verifier') return undefined;
    let principal = actor;
    for (let i = 0; i < MAX_AGENT_CHAIN && principal.startsWith('agent:'); i++)
      principal = (await session.runs.get(principal.slice('agent:'.length)))?.startedBy ?? principal;
    if ((await this.role(principal)) === 'superuser') return undefined;
    return `MoviePilot ${admin.map((o) => o.operation_id).join(', ')} is for host superusers only; ${principal} is not a superuser (denied before any request)`;
  }

  /**
   * Decides whether one invocation may run ({@link Authorizer.authorize}).
   * @param request - the question
   * @param session - the storage session of the invocation's transaction (read records only through it)
   * @returns the verdict; never throws for a denial
   */
  async authorize(request: AuthorizationRequest, session: StorageSession): Promise<AuthorizationVerdict> {
    const id = request.capability.id;
    const ops = this.operationsOf(id);
    const actor = parseActor(request.actor);
    const denial = await this.superuserDenial(ops, request.actor, session);
    // No approval or grant lifts it (this runs first, whatever the approval): not AUTH_NO_AUTHORIZATION.
    if (denial) return { allowed: false, code: HOST_SUPERUSER_REQUIRED as DenialCode, reason: denial };
    const decision = await this.inner.authorize(request, session);
    if (!decision.allowed || decision.basis !== 'grant') return decision;
    const strict =
      (id.startsWith('mp.') || id in V3_ADAPTER_OPERATIONS || this.declared(id) !== undefined) &&
      ops.some((o) => v3NeedsApproval(o, actor.kind));
    const unrecognised =
      id === 'download.submit' &&
      (request.plan?.payload as { allowUnrecognized?: boolean } | null)?.allowUnrecognized === true;
    if (strict || unrecognised)
      return {
        allowed: false,
        code: 'AUTH_NO_AUTHORIZATION',
        reason: unrecognised
          ? 'MoviePilot could not recognise this download: a person must approve the revised plan (a grant is not enough)'
          : `${id} needs a single-use approval of its plan for ${actor.kind} actors (a grant is not enough): it ${id.startsWith('mp.') ? 'is' : 'sends'} ${ops
              .filter((o) => v3NeedsApproval(o, actor.kind))
              .map((o) => o.operation_id)
              .join(', ')}`,
        ...(decision.grantId ? { grantId: decision.grantId } : {}),
      };
    return decision;
  }
}
