import type { Static, TSchema } from 'typebox';
import {
  bindPluginCapability,
  defineUnboundPlugin,
  GatedPluginClient,
  PluginCallGate,
  PluginDefinitionError,
  PluginOperationError,
  PluginRefusals,
  type PluginDefinitionCode,
  type PluginGateRules,
  type PluginRefusalCode,
  type PluginServices,
} from '@media-agent/host-adapter-kit';
import type {
  Capability,
  CapabilityDefinition,
  HandlerContext,
  InvocationResult,
  PendingOutcome,
} from '@media-agent/sdk';
import type { V3Authorizer } from './authorizer';
import { isReadEffect, type V3CallInput, type V3Client, type V3Response } from './client';
import { V3_OPERATIONS } from './contract/operations';
import type { V3Operation } from './contract/types';
import { kindOfV3Operation } from './operations-capabilities';

/** A former name, kept for one minor version.
 * @deprecated Use `PluginRefusalCode` from `@media-agent/host-adapter-kit` (the same codes). @public */
export type V3PluginRefusalCode = PluginRefusalCode;

/** A former name, kept for one minor version.
 * @deprecated Use `PluginOperationError` from `@media-agent/host-adapter-kit`: this is the same class. @public */
export const V3PluginOperationError = PluginOperationError;
/** A former name, kept for one minor version.
 * @deprecated Use `PluginOperationError` from `@media-agent/host-adapter-kit`. @public */
export type V3PluginOperationError = PluginOperationError;

/** A former name, kept for one minor version.
 * @deprecated Use `PluginDefinitionCode` from `@media-agent/host-adapter-kit` (the same codes). @public */
export type V3PluginDefinitionCode = PluginDefinitionCode;

/** A former name, kept for one minor version.
 * @deprecated Use `PluginDefinitionError` from `@media-agent/host-adapter-kit`: this is the same class. @public */
export const V3PluginDefinitionError = PluginDefinitionError;
/** A former name, kept for one minor version.
 * @deprecated Use `PluginDefinitionError` from `@media-agent/host-adapter-kit`. @public */
export type V3PluginDefinitionError = PluginDefinitionError;

/**
 * The client a plugin handler receives as `ctx.client`: one object per invocation, limited to the
 * operations the plugin declared and to what the invoking actor may send. It has no credentials of its
 * own to give away and stops working when the handler returns.
 * @public
 */
export interface V3PluginClient {
  /** The plugin capability it serves. */
  readonly capabilityId: string;
  /** The operations it may send (the plugin's declaration). */
  readonly operations: readonly string[];
  /**
   * Sends a declared catalog operation for the invoking actor, like {@link V3Client.call}; the
   * signal defaults to the invocation's.
   * @param operationId - a declared operation id, e.g. `subscription.find`
   * @param input - path parameters, query, body, signal
   * @returns the unwrapped answer (also when `success` is false)
   * @throws {@link V3PluginOperationError} `PLUGIN_OPERATION_UNDECLARED` / `PLUGIN_OPERATION_FORBIDDEN` /
   *   `PLUGIN_CLIENT_CLOSED` before anything is sent; otherwise everything {@link V3Client.call} throws
   */
  call<T = unknown>(operationId: string, input?: V3CallInput): Promise<V3Response<T>>;
  /**
   * Like {@link V3PluginClient.call}, but a `success:false` answer throws `HostOperationError` (`HOST_OPERATION_FAILED`).
   * @param operationId - a declared operation id
   * @param input - path parameters, query, body, signal
   * @throws as {@link V3PluginClient.call}, and `HOST_OPERATION_FAILED`
   */
  ok<T = unknown>(operationId: string, input?: V3CallInput): Promise<V3Response<T>>;
}

/** What a plugin handler receives: the SDK's handler context plus its scoped {@link V3PluginClient}. @public */
export interface V3PluginContext extends HandlerContext {
  /** The scoped client of this invocation. */
  readonly client: V3PluginClient;
}

/**
 * What a plugin author writes: an SDK capability definition whose handler gets a scoped client, plus
 * the catalog operations that client may send.
 * @public
 */
export interface V3PluginDefinition<I extends TSchema = TSchema, O extends TSchema = TSchema>
  extends Omit<CapabilityDefinition<I, O>, 'handler'> {
  /**
   * Catalog operation ids the handler may send (`V3_OPERATIONS[].operation_id`, e.g. `subscription.find`).
   * Every id must be in the catalog; any write among them (an effect other than `safe_read`) requires
   * `kind: 'execute'`. The plugin is authorized like a direct `mp.<operation_id>` call of each of
   * them: admin-only ones need a host superuser, `destructive_write` ones an approval for non-human
   * actors, `confirmation: required` ones an approval for agents (a grant is not enough).
   */
  operations: readonly string[];
  /** The handler; `ctx.client` is its scoped client. */
  handler: (
    input: NoInfer<Static<I>>,
    ctx: V3PluginContext,
  ) => Promise<NoInfer<Static<O>> | PendingOutcome<NoInfer<Static<O>>>>; // NoInfer: see CapabilityDefinition
}

/**
 * A defined V3 plugin capability: a frozen SDK capability carrying its declared `operations`.
 * {@link defineV3PluginCapability} returns it typed as a plain `Capability` (so it registers like any
 * other); {@link isV3PluginCapability} narrows to this type.
 * @public
 */
export type V3PluginCapability<I extends TSchema = TSchema, O extends TSchema = TSchema> = Capability<I, O> & {
  /** The declared catalog operations (deduplicated). */
  readonly operations: readonly string[];
};

type PluginHandler = (input: unknown, ctx: V3PluginContext) => Promise<unknown>;
const HANDLERS = new WeakMap<object, PluginHandler>();
const CATALOG = new Map(V3_OPERATIONS.map((o) => [o.operation_id, o]));

/**
 * Defines a plugin capability for MoviePilot 3.x that sends catalog operations through a scoped
 * client. Register the result on the `host.capabilities` of {@link createV3AgentHost}; the host binds
 * it: each invocation gets a new {@link V3PluginClient} limited to `operations` and to the invoking
 * actor's authority, and the authorizer treats the plugin as standing for `operations` (see
 * {@link V3PluginDefinition.operations}).
 *
 * @param definition - the capability definition, `operations`, and a handler taking {@link V3PluginContext}
 * @returns the frozen capability with its deduplicated `operations` (read them through
 *   {@link isV3PluginCapability}); its own handler refuses to run unbound (`PLUGIN_NOT_BOUND`)
 * @throws {@link V3PluginDefinitionError} `PLUGIN_DECLARATION_INVALID` (not a list, or ids outside the
 *   catalog), `PLUGIN_KIND_TOO_WEAK` (a declared write with a kind other than `execute`); and
 *   everything the SDK's `defineCapability` throws (`CAPABILITY_DEFINITION_INVALID`, …)
 *
 * @example
 * ```ts
 * const unfollow = defineV3PluginCapability({
 *   id: 'plugin.Cleanup.unfollow', version: 1, title: 'Unfollow a title', description: '…',
 *   kind: 'execute', replay: 'reconcile',
 *   operations: ['subscription.find', 'subscription.delete'],
 *   input: Type.Object({ mediaId: Type.String() }), output: Type.Object({ deleted: Type.Boolean() }),
 *   handler: async (input, ctx) => {
 *     const found = await ctx.client.call<{ id?: number }>('subscription.find', { pathParams: { media_id: input.mediaId }, query: { media_source: 'themoviedb' } });
 *     if (typeof found.data?.id !== 'number') return { deleted: false };
 *     await ctx.client.ok('subscription.delete', { pathParams: { subscribe_id: found.data.id } });
 *     return { deleted: true };
 *   },
 * });
 * v3.host.capabilities.register(unfollow);
 * ```
 * @public
 */
export function defineV3PluginCapability<I extends TSchema, O extends TSchema>(
  definition: V3PluginDefinition<I, O>,
): Capability<I, O> {
  const id = String((definition as { id?: unknown } | undefined)?.id);
  const declared = definition?.operations as unknown;
  if (!Array.isArray(declared) || declared.some((o) => typeof o !== 'string'))
    throw new V3PluginDefinitionError(
      'PLUGIN_DECLARATION_INVALID',
      id,
      `${id}: operations must be a list of MoviePilot V3 catalog operation ids`,
    );
  const operations = Object.freeze([...new Set(declared as string[])]);
  const unknown = operations.filter((o) => !CATALOG.has(o));
  if (unknown.length > 0)
    throw new V3PluginDefinitionError(
      'PLUGIN_DECLARATION_INVALID',
      id,
      `${id}: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not in the MoviePilot V3 operation catalog`,
    );
  const writes = operations.filter((o) => kindOfV3Operation(CATALOG.get(o)!).kind === 'execute');
  if (writes.length > 0 && definition.kind !== 'execute')
    throw new V3PluginDefinitionError(
      'PLUGIN_KIND_TOO_WEAK',
      id,
      `${id} declares ${writes.join(', ')} (a write) but is kind ${definition.kind}: a plugin that may send a write must be kind execute, like mp.${writes[0]}`,
    );
  const { handler, ...rest } = definition;
  const capability = defineUnboundPlugin<Capability<I, O>>(
    id,
    rest as Omit<CapabilityDefinition, 'handler'>,
    handler,
    { operations },
    `${id} is a V3 plugin capability: register it on the host.capabilities of createV3AgentHost, which gives it a scoped client`,
  );
  HANDLERS.set(capability, handler as PluginHandler);
  return capability;
}

/**
 * Whether a capability was made by {@link defineV3PluginCapability}.
 * @param capability - any capability
 * @public
 */
export function isV3PluginCapability(capability: Capability<any, any>): capability is V3PluginCapability<any, any> {
  return HANDLERS.has(capability);
}

/**
 * How a `V3CapabilityRegistry` binds plugin capabilities (created by {@link createV3AgentHost};
 * hosts do not implement it).
 * @public
 */
export interface V3PluginBinder {
  /**
   * The capability to register in place of a plugin: same definition, with a handler that gives each
   * invocation a scoped client.
   * @throws {@link V3PluginDefinitionError} `PLUGIN_NOT_BOUND` for a capability not made by {@link defineV3PluginCapability}
   */
  bind(plugin: V3PluginCapability<any, any>): Capability<any, any>;
  /** Records the operations of a plugin once its bound capability is registered (the authorizer reads them). */
  declare(plugin: V3PluginCapability<any, any>): void;
  /** The operations a registered plugin declared, by capability id. */
  declared(capabilityId: string): readonly string[] | undefined;
  /** Turns a `failed` result caused by a refused plugin request (nothing written) into `denied`. */
  settle(result: InvocationResult): InvocationResult;
}

/** Services the binder needs once the host is built. @internal */
export type V3PluginServices = PluginServices;

/**
 * The {@link V3PluginBinder} of one V3 host: binds plugins to the host client through per-invocation
 * scoped clients, checks each request (declared, then the invoking actor's host role through
 * {@link V3Authorizer.superuserDenial}), audits refusals.
 * @internal
 */
export class V3PluginHost implements V3PluginBinder {
  readonly #client: V3Client;
  readonly #authorizer: () => V3Authorizer;
  readonly #services: () => V3PluginServices;
  readonly #declared = new Map<string, readonly string[]>();
  readonly #refusals = new PluginRefusals();

  constructor(deps: { client: V3Client; authorizer: () => V3Authorizer; services: () => V3PluginServices }) {
    this.#client = deps.client;
    this.#authorizer = deps.authorizer;
    this.#services = deps.services;
  }

  declared(capabilityId: string): readonly string[] | undefined {
    return this.#declared.get(capabilityId);
  }

  declare(plugin: V3PluginCapability<any, any>): void {
    this.#declared.set(plugin.id, plugin.operations);
  }

  bind(plugin: V3PluginCapability<any, any>): Capability<any, any> {
    const handler = HANDLERS.get(plugin);
    if (!handler)
      throw new V3PluginDefinitionError(
        'PLUGIN_NOT_BOUND',
        plugin.id,
        `${plugin.id} was not made by defineV3PluginCapability`,
      );
    const operations = new Map(plugin.operations.map((o) => [o, CATALOG.get(o)!]));
    const {
      operations: _operations,
      handler: _unbound,
      modelInputSchema: _model,
      ...definition
    } = plugin as V3PluginCapability<any, any> & { modelInputSchema?: unknown };
    const rules: PluginGateRules<V3Operation> = {
      deny: (op, actor, storage) => this.#authorizer().superuserDenial([op], actor, storage),
      writes: (op) => !isReadEffect(op),
      noun: 'MoviePilot',
    };
    const bound = bindPluginCapability<V3Operation, V3PluginClient>(
      definition as Omit<CapabilityDefinition, 'handler'>,
      handler as never,
      (ctx) => new PluginCallGate(plugin.id, operations, ctx, rules, this.#services),
      (gate) => new ScopedClient(this.#client, gate),
      this.#refusals,
    );
    return bound as Capability<any, any>;
  }

  settle(result: InvocationResult): InvocationResult {
    return this.#refusals.settle(result);
  }
}

/** The per-invocation client of one plugin call: its gate admits each request, then the host client sends it. */
class ScopedClient extends GatedPluginClient<V3Operation> implements V3PluginClient {
  readonly #client: V3Client;

  constructor(client: V3Client, gate: PluginCallGate<V3Operation>) {
    super(gate);
    this.#client = client;
  }

  get operations(): readonly string[] {
    return this.gate.declared;
  }

  async call<T = unknown>(operationId: string, input: V3CallInput = {}): Promise<V3Response<T>> {
    await this.gate.admit(String(operationId), String(operationId));
    return this.#client.call<T>(operationId, { ...input, signal: this.signalOr(input.signal) });
  }

  async ok<T = unknown>(operationId: string, input: V3CallInput = {}): Promise<V3Response<T>> {
    await this.gate.admit(String(operationId), String(operationId));
    return this.#client.ok<T>(operationId, { ...input, signal: this.signalOr(input.signal) });
  }
}
