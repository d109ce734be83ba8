import { EventEmitter } from 'eventemitter3';
import { DEFAULT_IDENTITY_RESOLVER, type IdentityResolver } from '../ports/identity';
import type { EventSource } from '../ports/event-source';
import type { Static, TSchema } from 'typebox';
import type { Authorizer } from '../authorization/authorizer';
import type { InvocationLedger } from '../ledger/invocation-ledger';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Logger } from '../ports/logger';
import type { StorageAdapter } from '../ports/storage-adapter';
import { InvalidCapabilityError } from './errors';
import { CapabilityCatalog } from './capability-catalog';
import type { CapabilitySearchHit } from './capability-search';
import type { InvocationContext, InvocationDryRun, InvocationResult } from './invocation';
import { DEFAULT_MAX_INPUT_BYTES, InvocationPipeline, type InvocationEvents } from './invocation-pipeline';
import type { IntentOptions } from './intent-join';
import type { Capability, Verifier, VerifierOutcome } from './types';
import type { LedgerEntry } from '../core/records';
import type { CapabilityDescriptor, CapabilityKind } from '../core/capability-descriptor';

/**
 * The capability registry port: descriptors, lookup, search (for tool
 * discovery) and the single `invoke` path.
 * @public
 */
export interface CapabilityRegistry {
  /**
   * Registers a capability made by `defineCapability`.
   * @throws `CAPABILITY_DUPLICATE` naming both capabilities when the id is taken; `CAPABILITY_DEFINITION_INVALID`;
   *   `CAPABILITY_SCHEMA_UNSUPPORTED` for a capability not made by `defineCapability` whose input schema no model
   *   provider accepts even rewritten (see `checkProviderSchema`)
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
  /**
   * The capability as registered (its definition with handler and hooks: `impact`, `inverse`, `planPayload`,
   * `verify`), for the runtime parts that read them (approvals, undo). Never invoke its handler directly: only
   * `invoke` runs handlers.
   * @throws `CAPABILITY_NOT_FOUND`
   */
  definition(id: string): Capability;
  /** Whether a capability id is registered. */
  has(id: string): boolean;
  /**
   * Every registered capability offered now, optionally of one kind, in registration order (a capability the
   * registry does not offer now, e.g. an MCP tool disabled because its server changed it, is left out here and in
   * `search` while `has`, `get` and `invoke` still find it).
   */
  list(filter?: { kind?: CapabilityKind }): CapabilityDescriptor[];
  /** Capabilities ranked against a query over id, title, description, tags and aliases (CJK aliases work); default limit 8. */
  search(query: string, limit?: number): CapabilitySearchHit[];
  /**
   * Invokes a capability (given as the object made by `defineCapability`, so input and output are typed)
   * through the one invocation path; the same as invoking it by id (results and errors as there).
   */
  invoke<I extends TSchema, O extends TSchema>(
    capability: Capability<I, O>,
    input: NoInfer<Static<I>>,
    context: InvocationContext,
  ): Promise<InvocationResult<Static<O>>>;
  /**
   * Invokes a capability by id through the one invocation path: validate, authorize, claim, run, settle, audit.
   * Denials, handler failures, pending and unknown outcomes are returned as results.
   * @throws `CAPABILITY_NOT_FOUND`, `ACTOR_INVALID`, `INPUT_INVALID` (with every path), `INPUT_TOO_LARGE`,
   *   `LEDGER_CALL_ID_CONFLICT`, `LEDGER_IN_PROGRESS`, `LEDGER_STALE_EXECUTOR`, storage errors — none of them after a partial write
   */
  invoke(id: string, input: unknown, context: InvocationContext): Promise<InvocationResult>;
  /**
   * A dry run of a call: validates, authorizes and computes the impact; never runs the handler, claims the ledger,
   * consumes an approval or charges a grant (docs/approvals.md#dry-runs). `invoke` with `dryRun: true` comes here too.
   * Audited as `capability.dry_run`.
   * @throws as `invoke`, for an unknown capability or invalid context or input
   */
  dryRun(id: string, input: unknown, context: InvocationContext): Promise<InvocationDryRun>;
  /**
   * Reads back the effect of a call that succeeded, with the capability's read-only verifier (its `verify`, or
   * one given to `registerVerifier`). Nothing is claimed, settled or audited; the verifier's reads go through
   * the invocation path as `system:ledger-verifier`. The verified goal report confirms `subscription`,
   * `setting` and `schedule` effects this way (docs/architecture.md#the-goal-report).
   * @param capabilityId - the capability whose call succeeded
   * @param input - the call's input
   * @param entry - the call's ledger entry
   * @param context - the run the call belongs to (its reads carry it) and a signal that aborts them
   * @returns the verifier's verdict: `succeeded` (the effect holds), `failed` (it does not) or `unknown` (with
   *   the reason: no verifier, a read failed, no verdict)
   * @throws `CAPABILITY_NOT_FOUND` for an unregistered id
   */
  readBack(
    capabilityId: string,
    input: unknown,
    entry: LedgerEntry,
    context?: { runId?: string; signal?: AbortSignal },
  ): Promise<VerifierOutcome<unknown>>;
  /** Emits `invocation` after every settled invocation. */
  readonly events: EventSource<InvocationEvents>;
}

/** The key of how a {@link DefaultCapabilityRegistry} replaces a capability (not on the public interface). */
const REPLACE = Symbol('replaceCapability');

function replacer(registry: CapabilityRegistry): ((capability: Capability) => void) | undefined {
  const replace = (registry as unknown as Record<symbol, unknown>)[REPLACE];
  return typeof replace === 'function' ? (replace as (capability: Capability) => void) : undefined;
}

/**
 * Whether {@link replaceCapability} can replace capabilities of this registry (a {@link DefaultCapabilityRegistry}).
 * @internal
 */
export function canReplaceCapabilities(registry: CapabilityRegistry): boolean {
  return replacer(registry) !== undefined;
}

/**
 * Replaces a registered capability of a {@link DefaultCapabilityRegistry} by a new definition: same id, kind and
 * replay policy, a higher version (idempotency keys of the old version never match a call of the new one). Calls
 * already resolved keep the old definition. Logged at `info` (the audit log holds invocations only). Used by the
 * MCP re-registration only.
 * @throws `CAPABILITY_NOT_FOUND`, `CAPABILITY_DEFINITION_INVALID` (another kind or replay, a version not higher);
 *   `CAPABILITY_DEFINITION_INVALID` for a registry of another class
 * @internal
 */
export function replaceCapability(registry: CapabilityRegistry, capability: Capability<any, any>): void {
  const replace = replacer(registry);
  if (!replace) throw new InvalidCapabilityError(capability.id, 'this capability registry cannot replace a capability');
  replace(capability as Capability);
}

/** The key of how a {@link DefaultCapabilityRegistry} hides a capability it does not offer now. */
const AVAILABILITY = Symbol('capabilityAvailability');

/**
 * Sets whether a registered capability of a {@link DefaultCapabilityRegistry} is offered now: while `available`
 * returns false (or throws), `list()` and `search()` leave it out, so runs do not offer it to the model, the MCP
 * server does not publish it and `search_tools` does not find it; `has`, `get` and `invoke` are unchanged (a call
 * gets the capability's own refusal). Used by the MCP client for tools disabled by drift.
 * @returns false (nothing set) for a registry of another class
 * @throws `CAPABILITY_NOT_FOUND`
 * @internal
 */
export function setCapabilityAvailability(
  registry: CapabilityRegistry,
  capabilityId: string,
  available: () => boolean,
): boolean {
  const set = (registry as unknown as Record<symbol, unknown>)[AVAILABILITY];
  if (typeof set !== 'function') return false;
  (set as (id: string, available: () => boolean) => void)(capabilityId, available);
  return true;
}

/** The key of how a {@link DefaultCapabilityRegistry} counts the host code it ran. */
const HOST_CODE_CALLS = Symbol('hostCodeCalls');

/**
 * How many capability handlers and verifiers a {@link DefaultCapabilityRegistry} has started since it was built
 * (host code: what a replay must never run; `host.replayRun` measures it before and after).
 * @returns the count, or undefined for a registry of another class
 * @internal
 */
export function hostCodeCalls(registry: CapabilityRegistry): number | undefined {
  const count = (registry as unknown as Record<symbol, unknown>)[HOST_CODE_CALLS];
  return typeof count === 'function' ? (count as () => number)() : undefined;
}

/** What {@link DefaultCapabilityRegistry} runs the invocation path with. @public */
export interface CapabilityRegistryDeps {
  /** Storage for plans, ledger and audit. */
  storage: StorageAdapter;
  /** Decides allow or deny for `propose`/`approve`/`execute` calls (docs/architecture.md#authorization). */
  authorizer: Authorizer;
  /** Claims and settles idempotency keys of side-effecting calls (docs/architecture.md#the-ledger). */
  ledger: InvocationLedger;
  /** Time source for expiries, ledger timestamps and audit rows. */
  clock: Clock;
  /** Ids of invocations and audit rows. */
  ids: IdGenerator;
  /** Where invocation warnings are logged (never inputs or secrets). */
  logger: Logger;
  /** Largest accepted input JSON in bytes (default 1 MiB); larger inputs fail with `INPUT_TOO_LARGE`. */
  maxInputBytes?: number;
  /** The default handler deadline in ms, for capabilities without their own `timeoutMs` (default 120 000). */
  capabilityTimeoutMs?: number;
  /** Deadline of a capability's `impact` in ms (default 3 000). */
  impactTimeoutMs?: number;
  /** How long intents are held (default 6 h for runs, 15 min outside runs; docs/intents.md). */
  intents?: IntentOptions;
  /** Who is an administrator, for admin-only capabilities and human authorization (default {@link DEFAULT_IDENTITY_RESOLVER}). */
  identity?: IdentityResolver;
}

/**
 * The default {@link CapabilityRegistry}: a catalog of capabilities plus the invocation pipeline.
 * Adapters that keep the SDK's invocation path construct it with their own ports.
 * @public
 */
export class DefaultCapabilityRegistry implements CapabilityRegistry {
  /** {@inheritDoc CapabilityRegistry.events} */
  readonly events: EventSource<InvocationEvents>;
  readonly #emitter = new EventEmitter<InvocationEvents>();
  readonly #catalog = new CapabilityCatalog();
  readonly #pipeline: InvocationPipeline;

  /** @param deps - storage, authorizer, ledger, clock, ids, logger and the input size limit */
  constructor(deps: CapabilityRegistryDeps) {
    this.events = this.#emitter;
    // Reachable through the host's views of the registry (proxies forward symbol keys), never enumerated.
    const replace = (capability: Capability): void => {
      const from = this.#catalog.replace(capability);
      deps.logger.info('capability replaced by a new definition', {
        capabilityId: capability.id,
        fromVersion: from,
        toVersion: capability.version,
      });
    };
    Object.defineProperty(this, REPLACE, { value: replace, configurable: true });
    Object.defineProperty(this, AVAILABILITY, {
      value: (id: string, available: () => boolean) => this.#catalog.setAvailability(id, available),
      configurable: true,
    });
    Object.defineProperty(this, HOST_CODE_CALLS, {
      value: () => this.#pipeline.hostCodeCalls,
      configurable: true,
    });
    this.#pipeline = new InvocationPipeline({
      ...deps,
      catalog: this.#catalog,
      events: this.#emitter,
      maxInputBytes: deps.maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES,
      identity: deps.identity ?? DEFAULT_IDENTITY_RESOLVER,
    });
  }

  /** {@inheritDoc CapabilityRegistry.register} */
  register(capability: Capability<any, any>): void {
    this.#catalog.register(capability as Capability);
    this.#emitter.emit('registered', this.#catalog.descriptor(capability.id));
  }

  /** {@inheritDoc CapabilityRegistry.registerVerifier} */
  registerVerifier(capabilityId: string, verifier: Verifier<any, any>): void {
    this.#catalog.registerVerifier(capabilityId, verifier as Verifier);
  }

  /** {@inheritDoc CapabilityRegistry.get} */
  get(id: string): CapabilityDescriptor {
    return this.#catalog.descriptor(id);
  }

  /** {@inheritDoc CapabilityRegistry.definition} */
  definition(id: string): Capability {
    return this.#catalog.capability(id);
  }

  /** {@inheritDoc CapabilityRegistry.has} */
  has(id: string): boolean {
    return this.#catalog.has(id);
  }

  /** {@inheritDoc CapabilityRegistry.list} */
  list(filter?: { kind?: CapabilityKind }): CapabilityDescriptor[] {
    return this.#catalog.list(filter);
  }

  /** {@inheritDoc CapabilityRegistry.search} */
  search(query: string, limit?: number): CapabilitySearchHit[] {
    return this.#catalog.search(query, limit);
  }

  /**
   * Invokes a capability (given as the object made by `defineCapability`, so input and output are typed)
   * through the one invocation path; the same as invoking it by id (results and errors as there).
   */
  invoke<I extends TSchema, O extends TSchema>(
    capability: Capability<I, O>,
    input: NoInfer<Static<I>>,
    context: InvocationContext,
  ): Promise<InvocationResult<Static<O>>>;
  /**
   * Invokes a capability by id through the one invocation path: validate, authorize, claim, run, settle, audit.
   * Denials, handler failures, pending and unknown outcomes are returned as results.
   * @throws `CAPABILITY_NOT_FOUND`, `ACTOR_INVALID`, `INPUT_INVALID` (with every path), `INPUT_TOO_LARGE`,
   *   `LEDGER_CALL_ID_CONFLICT`, `LEDGER_IN_PROGRESS`, `LEDGER_STALE_EXECUTOR`, storage errors — none of them after a partial write
   */
  invoke(id: string, input: unknown, context: InvocationContext): Promise<InvocationResult>;
  invoke(idOrCapability: string | Capability, input: unknown, context: InvocationContext): Promise<InvocationResult> {
    const id = typeof idOrCapability === 'string' ? idOrCapability : idOrCapability?.id;
    return this.#pipeline.invoke(id, input, context);
  }

  /** {@inheritDoc CapabilityRegistry.dryRun} */
  dryRun(id: string, input: unknown, context: InvocationContext): Promise<InvocationDryRun> {
    return this.#pipeline.dryRun(id, input, context);
  }

  /** {@inheritDoc CapabilityRegistry.readBack} */
  readBack(
    capabilityId: string,
    input: unknown,
    entry: LedgerEntry,
    context: { runId?: string; signal?: AbortSignal } = {},
  ): Promise<VerifierOutcome<unknown>> {
    this.#catalog.descriptor(capabilityId);
    return this.#pipeline.readBack(capabilityId, input, entry, context);
  }
}
