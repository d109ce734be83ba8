// Which capabilities a caller is shown (MCP tools/list, the HTTP capability list): those their role may call.
import type { ActorRole } from '../core/actor';
import type { CapabilityDescriptor } from '../core/capability-descriptor';

/**
 * Whether a caller with `role` is shown a capability: an admin-only capability (`adminOnly: true`) only to an
 * `admin`, every other capability to everyone (whether a particular call is then allowed — an approval, a grant,
 * the automation switch — is decided when it is made).
 *
 * @remarks
 * The role is the host's answer for the caller (`AgentHost.roleOf`: `admin` only for a `user:` actor whose
 * resolver answers `admin`; `user` for API keys, jobs and runs, and when the resolver fails), the same role
 * the invocation path refuses an admin-only call with (`AUTH_ADMIN_ONLY`), so a listed tool is one the caller's
 * role may call and an unlisted one is refused when called anyway.
 * @param capability - the capability (only `adminOnly` is read)
 * @param role - the caller's role
 * @public
 */
export function capabilityVisibleTo(capability: Pick<CapabilityDescriptor, 'adminOnly'>, role: ActorRole): boolean {
  return capability.adminOnly !== true || role === 'admin';
}

/**
 * The capabilities a caller with `role` is shown, in their order ({@link capabilityVisibleTo}).
 * @param capabilities - the candidates (e.g. `host.capabilities.list()`)
 * @param role - the caller's role
 * @returns a new array
 * @public
 */
export function visibleCapabilities<T extends Pick<CapabilityDescriptor, 'adminOnly'>>(
  capabilities: readonly T[],
  role: ActorRole,
): T[] {
  return capabilities.filter((capability) => capabilityVisibleTo(capability, role));
}
