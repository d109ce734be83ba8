/**
 * `@media-agent/sdk/capabilities`: the capability registries behind `host.capabilities` (the default one
 * and one that forwards to another), the events of the invocation path, search hits, and which
 * capabilities an actor of a given role sees.
 *
 * @remarks
 * A host registers capabilities through `host.capabilities.register(defineCapability({ … }))`, with
 * `defineCapability` and the capability types in the root entry. This entry is for hosts that build or wrap
 * a registry themselves, or listen to every invocation. See docs/architecture.md.
 *
 * @example
 * ```ts
 * import { visibleCapabilities, type InvocationEvent } from '@media-agent/sdk/capabilities';
 *
 * host.capabilities.events.on('invocation', (event: InvocationEvent) => {
 *   console.log(event.capabilityId, event.actor, event.result.status);
 * });
 * console.log(visibleCapabilities(host.capabilities.list(), 'user').map((c) => c.id));
 * ```
 *
 * @packageDocumentation
 */
export { capabilityVisibleTo, visibleCapabilities } from './capabilities/visible-capabilities';
export {
  DefaultCapabilityRegistry,
  type CapabilityRegistry,
  type CapabilityRegistryDeps,
} from './capabilities/capability-registry';
export { ForwardingCapabilityRegistry } from './capabilities/forwarding-registry';
export type { InvocationEvent, InvocationEvents } from './capabilities/invocation-pipeline';
export type { EventSource } from './ports/event-source';
export type { CapabilitySearchHit } from './capabilities/capability-search';
export { DEFAULT_CAPABILITY_TIMEOUT_MS } from './capabilities/capability-deadline';
export { CapabilityTimeoutError } from './capabilities/errors';
// the rules of undo through declared inverses (`host.undo`, docs/approvals.md#undo)
export {
  MAX_UNDO_EFFECTS,
  UNDO_TASK_PREFIX,
  effectPerformer,
  inverseTaskId,
  isInverseCall,
  mayUndo,
  parseUndoTarget,
  undoOrder,
  undoPlanOf,
  undoStatus,
} from './runtime/undo/undo-rules';
