import type { CapabilityRegistry } from './capability-registry';
import type { CapabilitySearchHit } from './capability-search';
import type { CapabilityDescriptor, CapabilityKind } from '../core/capability-descriptor';
import type { Capability, Verifier, VerifierOutcome } from './types';
import type { LedgerEntry } from '../core/records';
import type { InvocationContext, InvocationDryRun, InvocationResult } from './invocation';

/**
 * A `CapabilityRegistry` that hands every call to an inner registry: the base of a host adapter's
 * registry that changes one or two steps (e.g. binds plugin capabilities on `register`, or hides
 * capabilities from `list`) and keeps the SDK's invocation path for the rest. Override a method and
 * call `super` (or {@link ForwardingCapabilityRegistry.inner}) for the default.
 *
 * @example
 * ```ts
 * class AuditedRegistry extends ForwardingCapabilityRegistry {
 *   override register(capability: Capability<any, any>): void {
 *     console.log('registering', capability.id);
 *     super.register(capability);
 *   }
 * }
 * ```
 * @public
 */
export class ForwardingCapabilityRegistry implements CapabilityRegistry {
  /** The registry that holds the capabilities and runs the invocation path. */
  protected readonly inner: CapabilityRegistry;

  /** @param inner - the registry every call is handed to */
  constructor(inner: CapabilityRegistry) {
    this.inner = inner;
  }

  /** The inner registry's invocation events: {@link CapabilityRegistry.events}. */
  get events(): CapabilityRegistry['events'] {
    return this.inner.events;
  }

  /** Registers a capability with the inner registry: {@link CapabilityRegistry.register}. */
  register(capability: Capability<any, any>): void {
    this.inner.register(capability);
  }

  /** Registers a read-back verifier with the inner registry: {@link CapabilityRegistry.registerVerifier}. */
  registerVerifier(capabilityId: string, verifier: Verifier<any, any>): void {
    this.inner.registerVerifier(capabilityId, verifier);
  }

  /** The inner registry's descriptor of a capability: {@link CapabilityRegistry.get}. */
  get(id: string): CapabilityDescriptor {
    return this.inner.get(id);
  }

  /** Whether the inner registry holds a capability: {@link CapabilityRegistry.has}. */
  has(id: string): boolean {
    return this.inner.has(id);
  }

  /** The inner registry's capabilities: {@link CapabilityRegistry.list}. */
  list(filter?: { kind?: CapabilityKind }): CapabilityDescriptor[] {
    return this.inner.list(filter);
  }

  /** Searches the inner registry's capabilities: {@link CapabilityRegistry.search}. */
  search(query: string, limit?: number): CapabilitySearchHit[] {
    return this.inner.search(query, limit);
  }

  /**
   * Invokes a capability through the inner registry's invocation path (authorized, audited, ledgered).
   * @param idOrCapability - a registered capability id, or a capability object
   * @param input - the input, validated against the capability's schema before its handler runs
   * @param context - actor, run and approval of the call
   * @returns the invocation result (`succeeded`, `failed`, `pending`, `unknown` or `denied`)
   */
  async invoke(
    idOrCapability: string | Capability<any, any>,
    input: unknown,
    context: InvocationContext,
  ): Promise<InvocationResult<any>> {
    return this.inner.invoke(idOrCapability as string, input, context);
  }

  /** A dry run through the inner registry: {@link CapabilityRegistry.dryRun}. */
  dryRun(id: string, input: unknown, context: InvocationContext): Promise<InvocationDryRun> {
    return this.inner.dryRun(id, input, context);
  }

  /** The inner registry's definition: {@link CapabilityRegistry.definition}. */
  definition(id: string): Capability {
    return this.inner.definition(id);
  }

  /** Reads back a ledgered effect through the inner registry: {@link CapabilityRegistry.readBack}. */
  readBack(
    capabilityId: string,
    input: unknown,
    entry: LedgerEntry,
    context?: { runId?: string; signal?: AbortSignal },
  ): Promise<VerifierOutcome<unknown>> {
    return this.inner.readBack(capabilityId, input, entry, context);
  }
}
