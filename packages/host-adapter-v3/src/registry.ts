import type {
  Capability,
  CapabilityDescriptor,
  CapabilityKind,
  CapabilityRegistry,
  InvocationContext,
  InvocationResult,
} from '@media-agent/sdk';
import { ForwardingCapabilityRegistry } from '@media-agent/sdk/capabilities';
import { settleSecretRefusal } from './operations-capabilities';
import { isV3PluginCapability, V3PluginDefinitionError, type V3PluginBinder } from './plugins';

/** `mp.*` capabilities always offered to the model: the discovery tool and the call planner. @internal */
const ALWAYS = new Set(['mp.operations.search', 'mp.operation.plan']);

/**
 * A `CapabilityRegistry` that keeps the 221 `mp.*` catalog capabilities out of `list()` (the
 * tools offered to the model) until `mp.operations.search` reveals them. The most recent `maxRevealed` discoveries stay listed;
 * `get`, `has`, `search` and `invoke` see everything.
 *
 * Plugin capabilities: one made by `defineV3PluginCapability` is bound on `register` (its handler gets
 * a scoped client per invocation; its declared operations go to the authorizer), and a refused plugin
 * request that wrote nothing makes the invocation's result `denied`. A `plugin.*` capability made
 * any other way (no declared operations) is refused.
 * @public
 */
export class V3CapabilityRegistry extends ForwardingCapabilityRegistry {
  readonly #revealed: string[] = [];
  readonly #max: number;

  readonly #plugins: V3PluginBinder | undefined;

  /**
   * @param inner - the registry that holds the capabilities and runs the invocation path
   * @param maxRevealed - discovered tools kept listed (default 16)
   * @param plugins - binds plugin capabilities (given by `createV3AgentHost`; without it plugins are refused with `PLUGIN_NOT_BOUND`)
   */
  constructor(inner: CapabilityRegistry, maxRevealed = 16, plugins?: V3PluginBinder) {
    super(inner);
    this.#max = maxRevealed;
    this.#plugins = plugins;
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

  /**
   * Registers a capability; a plugin capability is registered bound (see the class notes).
   * @param capability - the capability
   * @throws {@link V3PluginDefinitionError} `PLUGIN_NOT_BOUND` (a plugin without a binder),
   *   `PLUGIN_OPERATIONS_UNDECLARED` (a `plugin.*` capability not made by `defineV3PluginCapability`);
   *   `CAPABILITY_DUPLICATE` from the inner registry
   */
  override register(capability: Capability<any, any>): void {
    if (isV3PluginCapability(capability)) {
      if (!this.#plugins)
        throw new V3PluginDefinitionError(
          'PLUGIN_NOT_BOUND',
          capability.id,
          `${capability.id}: this registry cannot bind V3 plugin capabilities (use the host.capabilities of createV3AgentHost)`,
        );
      this.inner.register(this.#plugins.bind(capability));
      this.#plugins.declare(capability);
      return;
    }
    if (capability.id.startsWith('plugin.'))
      throw new V3PluginDefinitionError(
        'PLUGIN_OPERATIONS_UNDECLARED',
        capability.id,
        `${capability.id} declares no MoviePilot operations: define plugin capabilities with defineV3PluginCapability({ operations: [...] }) so their requests are scoped to the invoking actor`,
      );
    this.inner.register(capability);
  }

  /** Every capability except `mp.*` catalog operations not revealed by discovery. @param filter - optional kind */
  override list(filter?: { kind?: CapabilityKind }): CapabilityDescriptor[] {
    return this.inner
      .list(filter)
      .filter((d) => !d.id.startsWith('mp.') || ALWAYS.has(d.id) || this.#revealed.includes(d.id));
  }

  /**
   * Invokes through the inner registry; a refused plugin request that wrote nothing, or an `mp.*` call
   * refused because it would hand a secret to a non-human actor, makes the result `denied`.
   */
  override async invoke(
    idOrCapability: string | Capability<any, any>,
    input: unknown,
    context: InvocationContext,
  ): Promise<InvocationResult<any>> {
    const result = settleSecretRefusal(await super.invoke(idOrCapability, input, context));
    return this.#plugins ? this.#plugins.settle(result) : result;
  }
}
