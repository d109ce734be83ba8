import {
  defineCapability,
  type Capability,
  type CapabilityDefinition,
  type Clock,
  type HandlerContext,
  type IdGenerator,
  type InvocationResult,
  type StorageAdapter,
} from '@media-agent/sdk';
import type { AuditRecord } from '@media-agent/sdk/storage';
import { PluginDefinitionError, PluginOperationError, type PluginRefusalCode } from './plugin-errors';

/** What a plugin binder needs of its host once the host is built. @public */
export interface PluginServices {
  /** Where refusals are audited. */
  storage: StorageAdapter;
  /** Audit record ids. */
  ids: IdGenerator;
  /** Audit times. */
  clock: Clock;
}

/**
 * What one adapter tells the gate about its routes or operations (`Op`): who may send one, and whether
 * it writes.
 * @public
 */
export interface PluginGateRules<Op> {
  /** Why `actor` may not send `op` (e.g. a superuser-only route for a non-superuser), or `undefined` when it may. */
  deny(op: Op, actor: string, storage: StorageAdapter): Promise<string | undefined>;
  /** Whether sending `op` may change the host's state. */
  writes(op: Op): boolean;
  /** How an undeclared request is named in the refusal (default: as written). */
  describe?(key: string): string;
  /** The word for what the plugin declares, in messages (e.g. `MoviePilot` for 3.x operation ids). */
  noun?: string;
}

/**
 * One invocation's gate of a plugin's scoped client: refuses a request before anything is sent when the
 * client is closed, the route or operation is undeclared, or the invoking actor may not send it —
 * auditing each refusal as `capability.denied` — and remembers whether a write was let through.
 * @public
 */
export class PluginCallGate<Op> {
  /** The plugin capability. */
  readonly capabilityId: string;
  /** What the plugin declared, in its normalized form. */
  readonly declared: readonly string[];
  /** True once a writing request was let through. */
  wrote = false;
  #closed = false;
  readonly #refusals = new Set<PluginOperationError>();
  readonly #ops: ReadonlyMap<string, Op>;
  readonly #ctx: HandlerContext;
  readonly #rules: PluginGateRules<Op>;
  readonly #services: () => PluginServices;

  /**
   * @param capabilityId - the plugin capability
   * @param ops - declared routes or operations by their normalized key
   * @param ctx - the invocation's handler context (actor, ids, signal)
   * @param rules - the adapter's rules
   * @param services - storage, ids and clock for the audit
   */
  constructor(
    capabilityId: string,
    ops: ReadonlyMap<string, Op>,
    ctx: HandlerContext,
    rules: PluginGateRules<Op>,
    services: () => PluginServices,
  ) {
    this.capabilityId = capabilityId;
    this.declared = Object.freeze([...ops.keys()]);
    this.#ops = ops;
    this.#ctx = ctx;
    this.#rules = rules;
    this.#services = services;
  }

  /** The invocation's abort signal (the default of every request). */
  get signal(): AbortSignal | undefined {
    return this.#ctx.signal;
  }

  /** Whether `error` is a refusal of this gate. @param error - a thrown error */
  refused(error: unknown): boolean {
    return error instanceof PluginOperationError && this.#refusals.has(error);
  }

  /** Closes the gate: the handler returned. */
  close(): void {
    this.#closed = true;
  }

  /**
   * Lets a request through or refuses it (audited) before anything is sent.
   * @param key - the normalized route or operation, or `undefined` when the request names none
   * @param written - the request as the plugin wrote it (for messages)
   * @returns the declared route or operation to send
   * @throws {@link PluginOperationError} `PLUGIN_CLIENT_CLOSED`, `PLUGIN_OPERATION_UNDECLARED`, `PLUGIN_OPERATION_FORBIDDEN`
   */
  async admit(key: string | undefined, written: string): Promise<Op> {
    const named = key ?? written;
    const op = key === undefined ? undefined : this.#ops.get(key);
    const noun = this.#rules.noun ? `${this.#rules.noun} ` : '';
    let refusal: [PluginRefusalCode, string] | undefined;
    if (this.#closed)
      refusal = [
        'PLUGIN_CLIENT_CLOSED',
        `${this.capabilityId}: its client was used after the handler returned (${named} not sent)`,
      ];
    else if (op === undefined)
      refusal = [
        'PLUGIN_OPERATION_UNDECLARED',
        `${this.capabilityId} did not declare ${noun}${this.#rules.describe?.(named) ?? named} (it declared ${this.declared.join(', ') || 'nothing'}); the request was not sent`,
      ];
    else {
      const denial = await this.#rules.deny(op, this.#ctx.actor, this.#services().storage);
      if (denial)
        refusal = [
          'PLUGIN_OPERATION_FORBIDDEN',
          `${this.capabilityId} may not send ${named} for ${this.#ctx.actor}: ${denial}`,
        ];
    }
    if (refusal) {
      const error = await auditPluginRefusal(this.#services(), this.#ctx, this.capabilityId, named, ...refusal);
      this.#refusals.add(error);
      throw error;
    }
    if (this.#rules.writes(op!)) this.wrote = true;
    return op!;
  }
}

/**
 * Audits a refused plugin request as a refusal before the handler is (`capability.denied`,
 * `<code>: <reason>`; a failed audit write is ignored) and builds its error.
 * @param services - storage, ids, clock
 * @param ctx - the invocation's handler context
 * @param capabilityId - the plugin capability
 * @param operation - what it tried to send
 * @param code - the refusal code
 * @param message - why
 * @returns the error to throw
 * @public
 */
export async function auditPluginRefusal(
  services: PluginServices,
  ctx: HandlerContext,
  capabilityId: string,
  operation: string,
  code: PluginRefusalCode,
  message: string,
): Promise<PluginOperationError> {
  const error = new PluginOperationError(code, capabilityId, operation, message);
  const { storage, ids, clock } = services;
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
    inputSummary: JSON.stringify({ operation }),
    reason: `${code}: ${message}`,
  };
  await storage.audit.append(record).catch(() => undefined);
  return error;
}

/** Refusals kept until the registry returns the result (bounded: invocations that bypass it leave nothing behind for long). */
const MAX_PENDING_REFUSALS = 1_000;

/**
 * The refusals of plugin requests that ended an invocation with nothing written, kept until the
 * registry settles the invocation's result: a `failed` result caused by such a refusal becomes
 * `denied` with the refusal's code, as a refusal before the handler is.
 * @public
 */
export class PluginRefusals {
  readonly #byInvocation = new Map<string, PluginOperationError>();

  /** Remembers the refusal that ended an invocation. @param invocationId - the invocation @param error - its refusal */
  remember(invocationId: string, error: PluginOperationError): void {
    this.#byInvocation.set(invocationId, error);
    while (this.#byInvocation.size > MAX_PENDING_REFUSALS)
      this.#byInvocation.delete(this.#byInvocation.keys().next().value!);
  }

  /** The result, `denied` when a remembered refusal made it fail. @param result - the invocation's result */
  settle(result: InvocationResult): InvocationResult {
    const refusal = this.#byInvocation.get(result.invocationId);
    if (!refusal) return result;
    this.#byInvocation.delete(result.invocationId);
    if (result.status !== 'failed') return result;
    return { ...result, status: 'denied', error: { code: refusal.code, message: refusal.message } };
  }
}

/**
 * Binds a plugin capability: the same definition, with a handler that gives each invocation a new
 * gate-backed scoped client, closes it when the handler returns, and remembers a refusal that ended
 * the invocation with nothing written.
 * @param plugin - the plugin's definition without its handler and declarations
 * @param handler - the author's handler
 * @param gate - makes the invocation's gate
 * @param client - makes the scoped client around the gate
 * @param refusals - where ending refusals are remembered
 * @returns the bound capability
 * @public
 */
export function bindPluginCapability<Op, Client>(
  plugin: Omit<CapabilityDefinition, 'handler'>,
  handler: (input: unknown, ctx: HandlerContext & { readonly client: Client }) => Promise<unknown>,
  gate: (ctx: HandlerContext) => PluginCallGate<Op>,
  client: (gate: PluginCallGate<Op>) => Client,
  refusals: PluginRefusals,
): Capability<any, any> {
  return defineCapability({
    ...plugin,
    handler: async (input: unknown, ctx: HandlerContext) => {
      const g = gate(ctx);
      try {
        return await handler(input, Object.freeze({ ...ctx, client: client(g) }));
      } catch (error) {
        if (g.refused(error) && !g.wrote) refusals.remember(ctx.invocationId, error as PluginOperationError);
        throw error;
      } finally {
        g.close();
      }
    },
  } as CapabilityDefinition) as Capability<any, any>;
}

/**
 * Defines a plugin capability that refuses to run until the adapter's host binds it
 * (`PLUGIN_NOT_BOUND`), carrying its declarations as extra fields.
 * @param id - the capability id (for messages)
 * @param definition - the definition without its handler and declarations
 * @param handler - the author's handler (checked to be a function)
 * @param declarations - the normalized declarations to carry (e.g. `{ routes }`, `{ operations }`)
 * @param unbound - the `PLUGIN_NOT_BOUND` message
 * @returns the frozen capability
 * @throws {@link PluginDefinitionError} `PLUGIN_DECLARATION_INVALID` when `handler` is not a function; what `defineCapability` throws
 * @public
 */
export function defineUnboundPlugin<C>(
  id: string,
  definition: Omit<CapabilityDefinition, 'handler'>,
  handler: unknown,
  declarations: Record<string, unknown>,
  unbound: string,
): C {
  if (typeof handler !== 'function')
    throw new PluginDefinitionError('PLUGIN_DECLARATION_INVALID', id, `${id}: handler must be a function`);
  return defineCapability({
    ...definition,
    ...declarations,
    handler: async () => {
      throw new PluginDefinitionError('PLUGIN_NOT_BOUND', id, unbound);
    },
  } as CapabilityDefinition) as C;
}

/**
 * The base of an adapter's per-invocation plugin client: it names its plugin and lets each request
 * through its {@link PluginCallGate} before the adapter's client sends it.
 * @public
 */
export abstract class GatedPluginClient<Op> {
  /** The invocation's gate. */
  protected readonly gate: PluginCallGate<Op>;

  /** @param gate - the invocation's gate */
  constructor(gate: PluginCallGate<Op>) {
    this.gate = gate;
  }

  /** The plugin capability it serves. */
  get capabilityId(): string {
    return this.gate.capabilityId;
  }

  /** The signal a request gets when it brings none: the invocation's. @param signal - the request's own */
  protected signalOr(signal: AbortSignal | undefined): AbortSignal | undefined {
    return signal ?? this.gate.signal;
  }
}
