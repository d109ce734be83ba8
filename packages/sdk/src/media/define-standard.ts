import type { CapabilityRegistry } from '../capabilities/capability-registry';
import { defineCapability } from '../capabilities/define-capability';
import type { TSchema } from 'typebox';
import type {
  Capability,
  CapabilityInverse,
  HandlerContext,
  ImpactContext,
  PendingOutcome,
  Verifier,
} from '../capabilities/types';
import type { Impact } from '../core/impact';
import type { PlanRecord } from '../core/records';
import {
  STANDARD_CAPABILITIES,
  STANDARD_CAPABILITY_IDS,
  isStandardCapabilityId,
  type StandardCapabilities,
  type StandardCapabilityId,
  type StandardInput,
  type StandardOutput,
} from './contracts';
import { StandardCapabilitiesMissingError, StandardCapabilityMismatchError } from './errors';
import type { PlanReceipt } from './schemas';

/**
 * The handler a host writes for a standard capability; input and output types come from the
 * contract. Return the output, or `ctx.pending(receipt)` for an accepted asynchronous job.
 * @public
 */
export type StandardHandler<Id extends StandardCapabilityId> = (
  input: StandardInput<Id>,
  ctx: HandlerContext,
) => Promise<StandardOutput<Id> | PendingOutcome<StandardOutput<Id>>>;

/**
 * What a host may add to a standard capability: a read-only verifier, extra search tags and
 * aliases, and a note appended to the description. Everything else is fixed by the contract.
 * @public
 */
export interface StandardCapabilityExtras<Id extends StandardCapabilityId> {
  /** Read-only verifier for calls whose outcome is unknown (e.g. {@link verifyDownloadSubmit}). */
  verify?: Verifier<StandardInput<Id>, StandardOutput<Id>>;
  /** What a call would do in real units, from the host's own data (see `CapabilityDefinition.impact`). */
  impact?: (input: StandardInput<Id>, ctx: ImpactContext) => Promise<Impact> | Impact;
  /** How a successful call is undone (see `CapabilityDefinition.inverse`). */
  inverse?: CapabilityInverse<StandardOutput<Id>>;
  /** Schema of the plan payloads the capability executes, so an approver may edit them (see `CapabilityDefinition.planPayload`). */
  planPayload?: TSchema;
  /** Extra search tags. */
  tags?: string[];
  /** Extra aliases (any language). */
  aliases?: string[];
  /** Host-specific text appended to the contract's description. */
  descriptionNote?: string;
}

/** A capability implementing standard contract `Id`, as made by {@link defineStandardCapability}. @public */
export type StandardCapability<Id extends StandardCapabilityId> = Capability<
  StandardCapabilities[Id]['input'],
  StandardCapabilities[Id]['output']
>;

/**
 * Implements a standard media capability by writing only its handler: id, version, kind, replay
 * policy, policy kind, schemas, title, description, tags, aliases, redaction, target and intent class come from
 * {@link STANDARD_CAPABILITIES}.
 *
 * @param id - one of {@link STANDARD_CAPABILITY_IDS}
 * @param handler - the implementation; input/output typed from the contract
 * @param extras - optional verifier, tags, aliases, description note
 * @returns the frozen capability, ready for `CapabilityRegistry.register` or {@link registerStandardCapabilities}
 * @throws {@link StandardCapabilityMismatchError} (`MEDIA_STANDARD_CAPABILITY_MISMATCH`) for an id that is not standard;
 *   `CAPABILITY_DEFINITION_INVALID` when the handler is not a function
 *
 * @example
 * ```ts
 * const inventory = defineStandardCapability('inventory.query', async (input) => ({ total: 0, items: [] }));
 * ```
 * @public
 */
export function defineStandardCapability<Id extends StandardCapabilityId>(
  id: Id,
  handler: StandardHandler<Id>,
  extras: StandardCapabilityExtras<Id> = {},
): StandardCapability<Id> {
  if (typeof id !== 'string' || !isStandardCapabilityId(id))
    throw new StandardCapabilityMismatchError(String(id), 'not a standard capability id');
  const c = STANDARD_CAPABILITIES[id];
  return defineCapability({
    id: c.id,
    version: c.version,
    title: c.title,
    description: extras.descriptionNote ? `${c.description} ${extras.descriptionNote}` : c.description,
    kind: c.kind,
    replay: c.replay,
    input: c.input,
    output: c.output,
    tags: [...c.tags, ...(extras.tags ?? [])],
    aliases: [...c.aliases, ...(extras.aliases ?? [])],
    redact: [...c.redact],
    ...(c.policy !== undefined ? { policy: c.policy } : {}),
    ...(c.target ? { target: c.target } : {}),
    ...(c.effect ? { effect: c.effect } : {}),
    ...(c.intent ? { intent: c.intent } : {}),
    ...(extras.verify ? { verify: extras.verify } : id === 'policy.apply' ? { verify: verifyPolicyApply } : {}),
    ...(extras.impact ? { impact: extras.impact } : {}),
    ...(extras.inverse ? { inverse: extras.inverse } : {}),
    ...(extras.planPayload ? { planPayload: extras.planPayload } : {}),
    handler,
  } as never) as StandardCapability<Id>;
}

/**
 * The implementations of the 15 standard capabilities, as a map by id or a list.
 * @public
 */
export type StandardImplementations =
  | Partial<{ [Id in StandardCapabilityId]: StandardCapability<Id> }>
  | ReadonlyArray<Capability<any, any>>;

/**
 * Registers all 15 standard media capabilities, or none: every one must be present and match its
 * contract.
 * @param registry - the host's capability registry (`host.capabilities`)
 * @param implementations - the 15 capabilities (made by {@link defineStandardCapability}, or by
 *   `defineCapability` with the contract's id, version, kind, replay policy, policy kind and schemas)
 * @throws {@link StandardCapabilitiesMissingError} (`MEDIA_STANDARD_CAPABILITIES_MISSING`, listing the ids) when any is missing;
 *   {@link StandardCapabilityMismatchError} (`MEDIA_STANDARD_CAPABILITY_MISMATCH`) for a non-standard id, a duplicate
 *   in the list, or a capability that differs from its contract; `CAPABILITY_DUPLICATE` when the registry already
 *   has one of the ids (checked before registering any)
 *
 * @example
 * ```ts
 * registerStandardCapabilities(host.capabilities, {
 *   'catalog.lookup': defineStandardCapability('catalog.lookup', async (input) => myCatalog.lookup(input)),
 *   // … the other 14 standard ids …
 * });
 * ```
 * @public
 */
export function registerStandardCapabilities(
  registry: CapabilityRegistry,
  implementations: StandardImplementations,
): void {
  const byId = new Map<string, Capability<any, any>>();
  const list: Array<[string, Capability<any, any> | undefined]> = Array.isArray(implementations)
    ? (implementations as ReadonlyArray<Capability<any, any>>).map((c) => [c?.id, c])
    : Object.entries(implementations as Record<string, Capability<any, any> | undefined>);
  for (const [key, capability] of list) {
    if (capability === undefined) continue;
    if (!isStandardCapabilityId(key))
      throw new StandardCapabilityMismatchError(String(key), 'not a standard capability id');
    if (capability.id !== key)
      throw new StandardCapabilityMismatchError(key, `given under ${key} but its id is ${capability.id}`);
    if (byId.has(key)) throw new StandardCapabilityMismatchError(key, 'given twice');
    checkContract(capability);
    byId.set(key, capability);
  }
  const missing = STANDARD_CAPABILITY_IDS.filter((id) => !byId.has(id));
  if (missing.length > 0) throw new StandardCapabilitiesMissingError(missing);
  for (const id of STANDARD_CAPABILITY_IDS) if (registry.has(id)) registry.register(byId.get(id)!); // throws CAPABILITY_DUPLICATE before any registration
  for (const id of STANDARD_CAPABILITY_IDS) registry.register(byId.get(id)!);
}

function checkContract(capability: Capability<any, any>): void {
  const c = STANDARD_CAPABILITIES[capability.id as StandardCapabilityId];
  for (const field of ['version', 'kind', 'replay', 'policy'] as const) {
    if (capability[field] !== c[field])
      throw new StandardCapabilityMismatchError(
        capability.id,
        `${field} is ${String(capability[field])}, the contract says ${String(c[field])}`,
      );
  }
  if (capability.intent?.effectClass !== c.intent?.effectClass)
    throw new StandardCapabilityMismatchError(
      capability.id,
      `intent is ${String(capability.intent?.effectClass)}, the contract says ${String(c.intent?.effectClass)}`,
    );
  for (const field of ['input', 'output'] as const) {
    if (capability[field] !== c[field] && JSON.stringify(capability[field]) !== JSON.stringify(c[field]))
      throw new StandardCapabilityMismatchError(capability.id, `${field} schema differs from the contract`);
  }
}

/**
 * The `plan` receipt a standard propose capability (`download.plan`, `organize.plan`) returns for the
 * SDK plan artifact it created with the host's `PlanService` (`host.plans.create`).
 * @param plan - the stored plan record (type `download` or `organize`)
 * @returns `{ id, type, payloadHash, revision, mediaEntityId, mediaKind, bytes }`
 * @throws {@link StandardCapabilityMismatchError} when the plan type is neither `download` nor `organize`
 * @public
 */
export function planReceipt(plan: PlanRecord): PlanReceipt {
  if (plan.type !== 'download' && plan.type !== 'organize')
    throw new StandardCapabilityMismatchError(
      `${plan.type}.plan`,
      `plan type ${plan.type} is not download or organize`,
    );
  return {
    id: plan.id,
    type: plan.type,
    payloadHash: plan.payloadHash,
    revision: plan.revision,
    mediaEntityId: plan.mediaEntityId,
    mediaKind: plan.mediaKind === 'movie' || plan.mediaKind === 'tv' ? plan.mediaKind : null,
    bytes: plan.bytes,
  };
}

/**
 * The standard read-only verifier of `download.submit`: reads `task.inspect`
 * by the ledger entry's idempotency key. A download job submitted under that key settles the
 * unknown call as `succeeded` with that job; no job settles it `failed` (verifiably not applied, so
 * the invocation path runs the submit). Requires the host's downloader to record the key each job
 * was submitted with and `task.inspect` to filter by it.
 * @public
 */
export const verifyDownloadSubmit: Verifier<
  StandardInput<'download.submit'>,
  StandardOutput<'download.submit'>
> = async ({ input, entry, read }) => {
  const result = (await read('task.inspect', {
    idempotencyKey: entry.key,
    type: 'download',
  })) as StandardOutput<'task.inspect'>;
  const job = result.tasks.find(
    (t) => t.type === 'download' && t.idempotencyKey === entry.key && t.download !== null,
  )?.download;
  if (!job)
    return { status: 'failed', reason: `the downloader has no job submitted with idempotency key ${entry.key}` };
  if (job.planId !== input.planId)
    return {
      status: 'unknown',
      reason: `the job submitted with this key belongs to plan ${job.planId}, not ${input.planId}`,
    };
  return { status: 'succeeded', output: { download: job } };
};

/**
 * The standard read-back of `policy.apply`, used unless the implementation gives its own `verify`: reads
 * `policy.preview` with the same settings; no changes left means the policy holds the new values (`succeeded`,
 * with the current revision), any change left means it does not (`failed`, naming the fields). A `setting`
 * effect is done only when such a read confirms it (docs/architecture.md#the-goal-report).
 * @public
 */
export const verifyPolicyApply: Verifier<StandardInput<'policy.apply'>, StandardOutput<'policy.apply'>> = async ({
  input,
  read,
}) => {
  const preview = (await read('policy.preview', {
    kind: input.kind,
    settings: input.settings,
  })) as StandardOutput<'policy.preview'>;
  if (preview.changes.length > 0)
    return {
      status: 'failed',
      reason: `the ${input.kind} policy does not hold the new value of ${preview.changes.map((c) => c.field).join(', ')}`,
    };
  if (preview.revision < 1) return { status: 'failed', reason: `the ${input.kind} policy was never applied` };
  return { status: 'succeeded', output: { kind: preview.kind, revision: preview.revision, settings: preview.current } };
};
