import type { Capability, CapabilityDescriptor, CapabilityKind, CapabilityRegistry, CapabilitySearchHit, InvocationContext, InvocationResult, Verifier } from '@media-agent/sdk';

/** `mp.*` capabilities always offered to the model: the discovery tool and the call planner. @internal */
const ALWAYS = new Set(['mp.operations.search', 'mp.operation.plan']);

/**
 * A `CapabilityRegistry` that keeps the 221 `mp.*` catalog capabilities out of `list()` (the
 * tools offered to the model) until `mp.operations.search` reveals them (issue 5 item 3: found through
 * tool discovery, not sent all at once). The most recent `maxRevealed` discoveries stay listed;
 * `get`, `has`, `search` and `invoke` see everything.
 * @public
 */
export class V3CapabilityRegistry implements CapabilityRegistry {
  readonly #inner: CapabilityRegistry;
  readonly #revealed: string[] = [];
  readonly #max: number;

  /** @param inner - the registry that holds the capabilities and runs the invocation path; @param maxRevealed - discovered tools kept listed (default 16) */
  constructor(inner: CapabilityRegistry, maxRevealed = 16) {
    this.#inner = inner;
    this.#max = maxRevealed;
  }

  /** {@inheritDoc @media-agent/sdk#CapabilityRegistry.events} */
  get events(): CapabilityRegistry['events'] {
    return this.#inner.events;
  }

  /** Makes `mp.*` capabilities listed (most recent last; older ones beyond the limit drop out). @param ids - capability ids */
  reveal(ids: readonly string[]): void {
    for (const id of ids) {
      const at = this.#revealed.indexOf(id);
      if (at >= 0) this.#revealed.splice(at, 1);
      this.#revealed.push(id);
    }
    while (this.#revealed.length > this.#max) this.#revealed.shift();
  }

  /** {@inheritDoc @media-agent/sdk#CapabilityRegistry.register} */
  register(capability: Capability<any, any>): void {
    this.#inner.register(capability);
  }

  /** {@inheritDoc @media-agent/sdk#CapabilityRegistry.registerVerifier} */
  registerVerifier(capabilityId: string, verifier: Verifier<any, any>): void {
    this.#inner.registerVerifier(capabilityId, verifier);
  }

  /** {@inheritDoc @media-agent/sdk#CapabilityRegistry.get} */
  get(id: string): CapabilityDescriptor {
    return this.#inner.get(id);
  }

  /** {@inheritDoc @media-agent/sdk#CapabilityRegistry.has} */
  has(id: string): boolean {
    return this.#inner.has(id);
  }

  /** Every capability except `mp.*` catalog operations not revealed by discovery. @param filter - optional kind */
  list(filter?: { kind?: CapabilityKind }): CapabilityDescriptor[] {
    return this.#inner.list(filter).filter((d) => !d.id.startsWith('mp.') || ALWAYS.has(d.id) || this.#revealed.includes(d.id));
  }

  /** {@inheritDoc @media-agent/sdk#CapabilityRegistry.search} */
  search(query: string, limit?: number): CapabilitySearchHit[] {
    return this.#inner.search(query, limit);
  }

  /** {@inheritDoc @media-agent/sdk#CapabilityRegistry.invoke} */
  invoke(idOrCapability: string | Capability<any, any>, input: unknown, context: InvocationContext): Promise<InvocationResult<any>> {
    return this.#inner.invoke(idOrCapability as string, input, context);
  }
}
