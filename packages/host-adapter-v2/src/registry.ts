import type { Capability, CapabilityRegistry, InvocationContext, InvocationResult } from '@media-agent/sdk';
import { ForwardingCapabilityRegistry } from '@media-agent/sdk/capabilities';
import { isV2PluginCapability, V2PluginDefinitionError, type V2PluginBinder } from './plugins';

/**
 * The `CapabilityRegistry` of a MoviePilot 2.x host (made by `createV2AgentHost`), over the SDK's:
 * - a plugin capability made by `defineV2PluginCapability` is bound on `register` (its handler gets a
 *   scoped client per invocation; its declared routes go to the authorizer), and a plugin route
 *   capability from `discoverV2PluginCapabilities` has its route recorded for the authorizer;
 * - a `plugin.*` capability made any other way (no declared routes) is refused;
 * - a refused plugin request that wrote nothing makes the invocation's result `denied`.
 * Everything else is the inner registry's.
 * @public
 */
export class V2CapabilityRegistry extends ForwardingCapabilityRegistry {
  readonly #plugins: V2PluginBinder | undefined;

  /**
   * @param inner - the registry that holds the capabilities and runs the invocation path
   * @param plugins - binds plugin capabilities (given by `createV2AgentHost`; without it plugins are refused with `PLUGIN_NOT_BOUND`)
   */
  constructor(inner: CapabilityRegistry, plugins?: V2PluginBinder) {
    super(inner);
    this.#plugins = plugins;
  }

  /**
   * Registers a capability; plugin capabilities as described on the class.
   * @param capability - the capability
   * @throws {@link V2PluginDefinitionError} `PLUGIN_NOT_BOUND` (a plugin without a binder),
   *   `PLUGIN_DECLARATION_INVALID` (a declared route the host does not serve), `PLUGIN_OPERATIONS_UNDECLARED`
   *   (a `plugin.*` capability not made by `defineV2PluginCapability` or discovery); `CAPABILITY_DUPLICATE` from the inner registry
   */
  override register(capability: Capability<any, any>): void {
    const bound = this.#plugins?.bind(capability);
    if (bound) {
      this.inner.register(bound);
      this.#plugins!.declare(bound);
      return;
    }
    if (isV2PluginCapability(capability))
      throw new V2PluginDefinitionError(
        'PLUGIN_NOT_BOUND',
        capability.id,
        `${capability.id}: this registry cannot bind V2 plugin capabilities (use the host.capabilities of createV2AgentHost)`,
      );
    if (capability.id.startsWith('plugin.'))
      throw new V2PluginDefinitionError(
        'PLUGIN_OPERATIONS_UNDECLARED',
        capability.id,
        `${capability.id} declares no MoviePilot routes: define plugin capabilities with defineV2PluginCapability({ routes: [...] }) so their requests are scoped to the invoking actor`,
      );
    this.inner.register(capability);
  }

  /** Invokes through the inner registry; a refused plugin request that wrote nothing makes the result `denied`. */
  override async invoke(
    idOrCapability: string | Capability<any, any>,
    input: unknown,
    context: InvocationContext,
  ): Promise<InvocationResult<any>> {
    const result = await super.invoke(idOrCapability, input, context);
    return this.#plugins ? this.#plugins.settle(result) : result;
  }
}
