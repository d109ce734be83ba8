import {
  CapabilityNotFoundError,
  CapabilitySchemaUnsupportedError,
  DuplicateCapabilityError,
  InvalidCapabilityError,
} from './errors';
import { checkProviderSchema, deepFreeze } from '../models/provider-schema';
import { enforcedSchema } from './enforced-schema';
import { searchCapabilities, type CapabilitySearchHit } from './capability-search';
import type { Capability, Verifier } from './types';
import type { CapabilityDescriptor, CapabilityKind, InvocationTarget } from '../core/capability-descriptor';
import { declaredProvenance } from './declared-provenance';

/**
 * The set of registered capabilities and their verifiers: register, look up, list, search.
 * Holds no invocation logic.
 * @internal
 */
export class CapabilityCatalog {
  readonly #capabilities = new Map<string, { capability: Capability; descriptor: CapabilityDescriptor }>();
  readonly #verifiers = new Map<string, Verifier>();
  /** Per capability, whether it is offered now (absent: always); asked by {@link CapabilityCatalog.list}. */
  readonly #available = new Map<string, () => boolean>();

  register(capability: Capability): void {
    this.#checkMade(capability);
    const existing = this.#capabilities.get(capability.id);
    if (existing) throw new DuplicateCapabilityError(capability.id, existing.descriptor, capability);
    this.#capabilities.set(capability.id, { capability, descriptor: this.#describe(capability) });
    if (capability.verify) this.#verifiers.set(capability.id, capability.verify as Verifier);
  }

  /**
   * Replaces a registered capability by a new definition of it: the same id, kind and replay policy, a higher
   * version (so idempotency keys of the old definition never match a call of the new one). Calls already past
   * lookup keep the capability they resolved. A verifier registered earlier stays unless the new one brings its own.
   * @returns the version replaced
   * @throws `CAPABILITY_NOT_FOUND`; `CAPABILITY_DEFINITION_INVALID` for another kind or replay policy, a version
   *   not higher, or a capability not made by `defineCapability`
   */
  replace(capability: Capability): number {
    this.#checkMade(capability);
    const existing = this.#require(capability.id).descriptor;
    if (capability.kind !== existing.kind || capability.replay !== existing.replay)
      throw new InvalidCapabilityError(
        capability.id,
        `a replacement keeps kind and replay (${existing.kind}, ${existing.replay}); got ${capability.kind}, ${capability.replay}`,
      );
    if (!(capability.version > existing.version))
      throw new InvalidCapabilityError(
        capability.id,
        `a replacement needs a version higher than ${existing.version}; got ${capability.version}`,
      );
    this.#capabilities.set(capability.id, { capability, descriptor: this.#describe(capability) });
    if (capability.verify) this.#verifiers.set(capability.id, capability.verify as Verifier);
    return existing.version;
  }

  #checkMade(capability: Capability): void {
    if (
      !capability ||
      typeof capability !== 'object' ||
      typeof capability.handler !== 'function' ||
      !Object.isFrozen(capability)
    )
      throw new InvalidCapabilityError(
        (capability as { id?: unknown } | undefined)?.id,
        'register a capability made by defineCapability()',
      );
  }

  #describe(capability: Capability): CapabilityDescriptor {
    const modelInputSchema = capability.modelInputSchema ?? this.#modelInputSchema(capability);
    const descriptor: CapabilityDescriptor = Object.freeze({
      id: capability.id,
      version: capability.version,
      title: capability.title,
      description: capability.description,
      kind: capability.kind,
      replay: capability.replay,
      input: capability.input,
      modelInputSchema,
      output: capability.output,
      tags: capability.tags ?? [],
      aliases: capability.aliases ?? [],
      policy: capability.policy,
      adminOnly: capability.adminOnly === true,
      ...(capability.kind === 'execute' ? { effect: capability.effect ?? 'other' } : {}),
      redact: capability.redact ?? [],
      // Computed once here: the invocation path checks a run's side effects of declared capabilities only.
      provenance: declaredProvenance(capability.input, capability.output),
      target: capability.target as ((input: unknown) => InvocationTarget) | undefined,
      ...(capability.inverse
        ? { inverse: capability.inverse as { capability: string; input: (output: unknown) => unknown } }
        : {}),
    });
    return descriptor;
  }

  /** A frozen capability not made by `defineCapability` (no `modelInputSchema`): checked here, once. */
  #modelInputSchema(capability: Capability): Readonly<Record<string, unknown>> {
    // validated as published: a schema defineCapability would rewrite (draft-07 keywords) or refuse is refused
    // here, since the frozen capability's input cannot be replaced by the rewritten one
    const enforced = enforcedSchema(capability.input);
    if (enforced.problems.length > 0) throw new CapabilitySchemaUnsupportedError(capability.id, enforced.problems);
    if (enforced.schema !== capability.input)
      throw new InvalidCapabilityError(
        capability.id,
        'the input schema uses draft-07 keywords (items as a list, additionalItems, dependencies, a draft-06/-07 $schema): define the capability with defineCapability(), which publishes and enforces their JSON Schema 2020-12 form',
      );
    const model = checkProviderSchema(capability.input);
    if (model.problems.length > 0) throw new CapabilitySchemaUnsupportedError(capability.id, model.problems);
    return model.rewrites.length === 0
      ? (capability.input as unknown as Readonly<Record<string, unknown>>)
      : deepFreeze(model.schema);
  }

  registerVerifier(id: string, verifier: Verifier): void {
    const entry = this.#require(id);
    if (entry.descriptor.kind === 'read' || entry.descriptor.kind === 'preview')
      throw new InvalidCapabilityError(id, 'verifiers are for side-effecting capabilities (propose, approve, execute)');
    if (typeof verifier !== 'function') throw new InvalidCapabilityError(id, 'a verifier must be a function');
    this.#verifiers.set(id, verifier);
  }

  capability(id: string): Capability {
    return this.#require(id).capability;
  }

  descriptor(id: string): CapabilityDescriptor {
    return this.#require(id).descriptor;
  }

  has(id: string): boolean {
    return this.#capabilities.has(id);
  }

  verifier(id: string): Verifier | undefined {
    return this.#verifiers.get(id);
  }

  /**
   * Sets whether a registered capability is offered now: one it says is not (a predicate returning false or
   * throwing) is left out of {@link CapabilityCatalog.list} and search, and stays registered and invocable.
   * @throws `CAPABILITY_NOT_FOUND`
   */
  setAvailability(id: string, available: () => boolean): void {
    this.#require(id);
    this.#available.set(id, available);
  }

  list(filter: { kind?: CapabilityKind } = {}): CapabilityDescriptor[] {
    return [...this.#capabilities.values()]
      .map((e) => e.descriptor)
      .filter((d) => (filter.kind === undefined || d.kind === filter.kind) && this.#isAvailable(d.id));
  }

  #isAvailable(id: string): boolean {
    const available = this.#available.get(id);
    if (!available) return true;
    try {
      return available() !== false;
    } catch {
      return false;
    }
  }

  search(query: string, limit?: number): CapabilitySearchHit[] {
    return searchCapabilities(this.list(), query, limit);
  }

  #require(id: string) {
    const entry = this.#capabilities.get(id);
    if (!entry) throw new CapabilityNotFoundError(id);
    return entry;
  }
}
