import { EventEmitter } from 'eventemitter3';
import type { Static, TSchema } from 'typebox';
import type { CapabilitySearchHit } from './capability-search';
import type { CapabilityCatalog } from './capability-catalog';
import type { InvocationContext, InvocationResult } from './invocation';
import type { InvocationEvents, InvocationPipeline } from './invocation-pipeline';
import type { Capability, CapabilityDescriptor, CapabilityKind, Verifier } from './types';

/**
 * The capability registry port (DESIGN.md §3, §4): descriptors, lookup, search (for tool
 * discovery) and the single `invoke` path.
 * @public
 */
export interface CapabilityRegistry {
  /**
   * Registers a capability made by `defineCapability`.
   * @throws `CAPABILITY_DUPLICATE` naming both capabilities when the id is taken; `CAPABILITY_DEFINITION_INVALID`
   */
  register(capability: Capability<any, any>): void;
  /**
   * Registers the read-only verifier of a side-effecting capability (replacing one given in its definition).
   * @throws `CAPABILITY_NOT_FOUND`, `CAPABILITY_DEFINITION_INVALID` for a read/preview capability
   */
  registerVerifier(capabilityId: string, verifier: Verifier<any, any>): void;
  /**
   * The descriptor of a capability.
   * @throws `CAPABILITY_NOT_FOUND`
   */
  get(id: string): CapabilityDescriptor;
  /** Whether a capability id is registered. */
  has(id: string): boolean;
  /** Every registered capability, optionally of one kind, in registration order. */
  list(filter?: { kind?: CapabilityKind }): CapabilityDescriptor[];
  /** Capabilities ranked against a query over id, title, description, tags and aliases (CJK aliases work); default limit 8. */
  search(query: string, limit?: number): CapabilitySearchHit[];
  /**
   * Invokes a capability through the one invocation path: validate, authorize, claim, run, settle, audit.
   * Denials, handler failures, pending and unknown outcomes are returned as results.
   * @throws `CAPABILITY_NOT_FOUND`, `ACTOR_INVALID`, `INPUT_INVALID` (with every path), `INPUT_TOO_LARGE`,
   *   `LEDGER_CALL_ID_CONFLICT`, `LEDGER_IN_PROGRESS`, `LEDGER_STALE_EXECUTOR`, storage errors — none of them after a partial write
   */
  invoke<I extends TSchema, O extends TSchema>(capability: Capability<I, O>, input: Static<I>, context: InvocationContext): Promise<InvocationResult<Static<O>>>;
  /** {@inheritDoc CapabilityRegistry.(invoke:1)} */
  invoke(id: string, input: unknown, context: InvocationContext): Promise<InvocationResult>;
  /** Emits `invocation` after every settled invocation. */
  readonly events: EventEmitter<InvocationEvents>;
}

/**
 * The default {@link CapabilityRegistry}: a catalog of capabilities plus the invocation pipeline.
 * @public
 */
export class DefaultCapabilityRegistry implements CapabilityRegistry {
  /** {@inheritDoc CapabilityRegistry.events} */
  readonly events: EventEmitter<InvocationEvents>;

  /** @internal */
  constructor(
    private readonly catalog: CapabilityCatalog,
    private readonly pipeline: InvocationPipeline,
    events: EventEmitter<InvocationEvents>,
  ) {
    this.events = events;
  }

  /** {@inheritDoc CapabilityRegistry.register} */
  register(capability: Capability<any, any>): void {
    this.catalog.register(capability as Capability);
  }

  /** {@inheritDoc CapabilityRegistry.registerVerifier} */
  registerVerifier(capabilityId: string, verifier: Verifier<any, any>): void {
    this.catalog.registerVerifier(capabilityId, verifier as Verifier);
  }

  /** {@inheritDoc CapabilityRegistry.get} */
  get(id: string): CapabilityDescriptor {
    return this.catalog.descriptor(id);
  }

  /** {@inheritDoc CapabilityRegistry.has} */
  has(id: string): boolean {
    return this.catalog.has(id);
  }

  /** {@inheritDoc CapabilityRegistry.list} */
  list(filter?: { kind?: CapabilityKind }): CapabilityDescriptor[] {
    return this.catalog.list(filter);
  }

  /** {@inheritDoc CapabilityRegistry.search} */
  search(query: string, limit?: number): CapabilitySearchHit[] {
    return this.catalog.search(query, limit);
  }

  /** {@inheritDoc CapabilityRegistry.(invoke:1)} */
  invoke<I extends TSchema, O extends TSchema>(capability: Capability<I, O>, input: Static<I>, context: InvocationContext): Promise<InvocationResult<Static<O>>>;
  /** {@inheritDoc CapabilityRegistry.(invoke:2)} */
  invoke(id: string, input: unknown, context: InvocationContext): Promise<InvocationResult>;
  invoke(idOrCapability: string | Capability, input: unknown, context: InvocationContext): Promise<InvocationResult> {
    const id = typeof idOrCapability === 'string' ? idOrCapability : idOrCapability?.id;
    return this.pipeline.invoke(id, input, context);
  }
}

/** Creates the event emitter of the invocation path. @internal */
export function createInvocationEvents(): EventEmitter<InvocationEvents> {
  return new EventEmitter<InvocationEvents>();
}
