import type { Static, TSchema } from 'typebox';
import {
  defineCapability,
  MediaAgentError,
  type Capability,
  type CapabilityDefinition,
  type Clock,
  type HandlerContext,
  type IdGenerator,
  type InvocationResult,
  type PendingOutcome,
  type StorageAdapter,
} from '@media-agent/sdk';
import { type AuditRecord } from '@media-agent/sdk/storage';
import type { V3Authorizer } from './authorizer';
import { isReadEffect, type V3CallInput, type V3Client, type V3Response } from './client';
import { V3_OPERATIONS } from './contract/operations';
import type { V3Operation } from './contract/types';
import { kindOfV3Operation } from './operations-capabilities';
import type { V3ErrorCode } from './error-codes';

/**
 * Why a plugin's scoped client refused a request (nothing was sent to the host):
 * - `PLUGIN_OPERATION_UNDECLARED`: the operation is not among the plugin's declared `operations`;
 * - `PLUGIN_OPERATION_FORBIDDEN`: the invoking actor may not send it (admin-only, and its principal is
 *   not a host superuser — the rule a direct `mp.<operation_id>` call is refused by);
 * - `PLUGIN_CLIENT_CLOSED`: the handler already returned; the client of one invocation cannot be kept.
 * @public
 */
export type V3PluginRefusalCode = 'PLUGIN_OPERATION_UNDECLARED' | 'PLUGIN_OPERATION_FORBIDDEN' | 'PLUGIN_CLIENT_CLOSED';

/**
 * A plugin's request was refused before it reached the host (see {@link V3PluginRefusalCode} for
 * the codes). The refusal is audited as `capability.denied` on the plugin capability; when the handler
 * lets it propagate and has sent no write in this invocation, the invocation's result is `denied`
 * with this code, as a direct refusal is.
 * @public
 */
export class V3PluginOperationError extends MediaAgentError<V3ErrorCode> {
  /** The plugin capability. */
  readonly capabilityId: string;
  /** The catalog operation it tried to send. */
  readonly operationId: string;
  /**
   * @param code - `PLUGIN_OPERATION_UNDECLARED`, `PLUGIN_OPERATION_FORBIDDEN` or `PLUGIN_CLIENT_CLOSED`
   * @param capabilityId - the plugin capability
   * @param operationId - the operation it tried to send
   * @param message - why
   */
  constructor(code: V3PluginRefusalCode, capabilityId: string, operationId: string, message: string) {
    super(code, message, { capabilityId, operationId });
    this.capabilityId = capabilityId;
    this.operationId = operationId;
  }
}

/**
 * Codes of {@link V3PluginDefinitionError}:
 * - `PLUGIN_DECLARATION_INVALID`: `operations` is not a list of catalog operation ids (unknown ids are named);
 * - `PLUGIN_KIND_TOO_WEAK`: a declared operation is a write (any effect but `safe_read`) and the
 *   plugin's `kind` is not `execute` — the kind a direct `mp.<operation_id>` call of it has;
 * - `PLUGIN_NOT_BOUND`: the plugin was registered on a registry that cannot give it a scoped client
 *   (register it on the `host.capabilities` of {@link createV3AgentHost});
 * - `PLUGIN_OPERATIONS_UNDECLARED`: a `plugin.*` capability made with `defineCapability` (no declared
 *   operations) was registered on a V3 host.
 * @public
 */
export type V3PluginDefinitionCode =
  | 'PLUGIN_DECLARATION_INVALID'
  | 'PLUGIN_KIND_TOO_WEAK'
  | 'PLUGIN_NOT_BOUND'
  | 'PLUGIN_OPERATIONS_UNDECLARED';

/**
 * A plugin capability cannot be defined or registered as written (see {@link V3PluginDefinitionCode}).
 * @public
 */
export class V3PluginDefinitionError extends MediaAgentError<V3ErrorCode> {
  /**
   * @param code - see {@link V3PluginDefinitionCode}
   * @param capabilityId - the plugin capability
   * @param message - what is wrong
   */
  constructor(code: V3PluginDefinitionCode, capabilityId: string, message: string) {
    super(code, message, { capabilityId });
  }
}

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
   * Like {@link V3PluginClient.call}, but a `success:false` answer throws `V3HostError` (`HOST_OPERATION_FAILED`).
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
  if (typeof handler !== 'function')
    throw new V3PluginDefinitionError('PLUGIN_DECLARATION_INVALID', id, `${id}: handler must be a function`);
  const capability = defineCapability({
    ...(rest as Omit<CapabilityDefinition<I, O>, 'handler'>),
    operations,
    handler: async () => {
      throw new V3PluginDefinitionError(
        'PLUGIN_NOT_BOUND',
        id,
        `${id} is a V3 plugin capability: register it on the host.capabilities of createV3AgentHost, which gives it a scoped client`,
      );
    },
  } as CapabilityDefinition<I, O>);
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
export interface V3PluginServices {
  storage: StorageAdapter;
  ids: IdGenerator;
  clock: Clock;
}

/** Refusals kept until the registry returns the result (bounded: invocations that bypass it leave nothing behind for long). @internal */
const MAX_PENDING_REFUSALS = 1_000;

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
  readonly #refusals = new Map<string, V3PluginOperationError>();

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
    const bound = defineCapability({
      ...definition,
      handler: async (input: unknown, ctx: HandlerContext) => {
        const client = new ScopedClient(
          this.#client,
          plugin.id,
          operations,
          ctx,
          (operationId, code, message) => this.#refuse(plugin.id, ctx, operationId, code, message),
          this.#authorizer,
          this.#services,
        );
        try {
          return await handler(input, Object.freeze({ ...ctx, client }) as V3PluginContext);
        } catch (error) {
          if (error instanceof V3PluginOperationError && client.refused(error) && !client.wrote)
            this.#remember(ctx.invocationId, error);
          throw error;
        } finally {
          client.close();
        }
      },
    } as CapabilityDefinition);
    return bound as Capability<any, any>;
  }

  settle(result: InvocationResult): InvocationResult {
    const refusal = this.#refusals.get(result.invocationId);
    if (!refusal) return result;
    this.#refusals.delete(result.invocationId);
    if (result.status !== 'failed') return result;
    return { ...result, status: 'denied', error: { code: refusal.code, message: refusal.message } };
  }

  #remember(invocationId: string, error: V3PluginOperationError): void {
    this.#refusals.set(invocationId, error);
    while (this.#refusals.size > MAX_PENDING_REFUSALS) this.#refusals.delete(this.#refusals.keys().next().value!);
  }

  /** Audits a refused request as a direct refusal is (`capability.denied`, `<code>: <reason>`) and builds its error. */
  async #refuse(
    capabilityId: string,
    ctx: HandlerContext,
    operationId: string,
    code: V3PluginRefusalCode,
    message: string,
  ): Promise<V3PluginOperationError> {
    const error = new V3PluginOperationError(code, capabilityId, operationId, message);
    const { storage, ids, clock } = this.#services();
    const record: AuditRecord = {
      id: ids.next('aud'),
      seq: 0,
      at: clock.now(),
      action: 'capability.denied',
      actor: ctx.actor,
      capabilityId,
      invocationId: ctx.invocationId,
      runId: ctx.runId ?? null,
      taskId: ctx.taskId ?? null,
      outcome: 'denied',
      approvalId: null,
      grantId: null,
      idempotencyKey: ctx.idempotencyKey ?? null,
      inputSummary: JSON.stringify({ operation: operationId }),
      reason: `${code}: ${message}`,
    };
    await storage.audit.append(record).catch(() => undefined);
    return error;
  }
}

/** The per-invocation client of one plugin call. */
class ScopedClient implements V3PluginClient {
  readonly capabilityId: string;
  readonly operations: readonly string[];
  /** True once a write (any effect but a read) was sent. */
  wrote = false;
  #closed = false;
  readonly #refusals = new Set<V3PluginOperationError>();
  readonly #client: V3Client;
  readonly #declared: ReadonlyMap<string, V3Operation>;
  readonly #ctx: HandlerContext;
  readonly #refuse: (
    operationId: string,
    code: V3PluginRefusalCode,
    message: string,
  ) => Promise<V3PluginOperationError>;
  readonly #authorizer: () => V3Authorizer;
  readonly #services: () => V3PluginServices;

  constructor(
    client: V3Client,
    capabilityId: string,
    declared: ReadonlyMap<string, V3Operation>,
    ctx: HandlerContext,
    refuse: (operationId: string, code: V3PluginRefusalCode, message: string) => Promise<V3PluginOperationError>,
    authorizer: () => V3Authorizer,
    services: () => V3PluginServices,
  ) {
    this.#client = client;
    this.capabilityId = capabilityId;
    this.operations = Object.freeze([...declared.keys()]);
    this.#declared = declared;
    this.#ctx = ctx;
    this.#refuse = refuse;
    this.#authorizer = authorizer;
    this.#services = services;
  }

  refused(error: V3PluginOperationError): boolean {
    return this.#refusals.has(error);
  }

  close(): void {
    this.#closed = true;
  }

  async call<T = unknown>(operationId: string, input: V3CallInput = {}): Promise<V3Response<T>> {
    await this.#check(operationId);
    return this.#client.call<T>(operationId, { ...input, signal: input.signal ?? this.#ctx.signal });
  }

  async ok<T = unknown>(operationId: string, input: V3CallInput = {}): Promise<V3Response<T>> {
    await this.#check(operationId);
    return this.#client.ok<T>(operationId, { ...input, signal: input.signal ?? this.#ctx.signal });
  }

  /** Refuses before anything is sent: closed, undeclared, or not for this actor. */
  async #check(operationId: string): Promise<void> {
    const op = this.#declared.get(operationId);
    let refusal: [V3PluginRefusalCode, string] | undefined;
    if (this.#closed)
      refusal = [
        'PLUGIN_CLIENT_CLOSED',
        `${this.capabilityId}: its client was used after the handler returned (${String(operationId)} not sent)`,
      ];
    else if (!op)
      refusal = [
        'PLUGIN_OPERATION_UNDECLARED',
        `${this.capabilityId} did not declare MoviePilot ${String(operationId)} (it declared ${this.operations.join(', ') || 'nothing'}); the request was not sent`,
      ];
    else {
      const denial = await this.#authorizer().superuserDenial([op], this.#ctx.actor, this.#services().storage);
      if (denial)
        refusal = [
          'PLUGIN_OPERATION_FORBIDDEN',
          `${this.capabilityId} may not send ${operationId} for ${this.#ctx.actor}: ${denial}`,
        ];
    }
    if (refusal) {
      const error = await this.#refuse(String(operationId), refusal[0], refusal[1]);
      this.#refusals.add(error);
      throw error;
    }
    if (!isReadEffect(op!)) this.wrote = true;
  }
}
