import type { CapabilityDescriptor } from '../core/capability-descriptor';

/**
 * The MCP tool annotations of a capability, derived from its kind and replay policy (never from text):
 * `readOnlyHint` for `read` and `preview`; `destructiveHint` for `approve` and `execute` (a `propose`
 * only records a plan); `idempotentHint` for reads and for `safe` replay (each MCP call is its own
 * intent with its own idempotency key, so `reconcile` and `never` writes are not idempotent across calls);
 * `openWorldHint` false (a capability acts on the host's own world).
 *
 * @param descriptor - the capability's kind and replay policy
 * @returns the annotations object of the MCP `Tool`
 * @public
 */
export function mcpToolAnnotations(descriptor: Pick<CapabilityDescriptor, 'kind' | 'replay' | 'title'>): {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
} {
  const readOnly = descriptor.kind === 'read' || descriptor.kind === 'preview';
  return {
    title: descriptor.title,
    readOnlyHint: readOnly,
    destructiveHint: descriptor.kind === 'approve' || descriptor.kind === 'execute',
    idempotentHint: readOnly || descriptor.replay === 'safe',
    openWorldHint: false,
  };
}
