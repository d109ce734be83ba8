import type { TSchema } from 'typebox';

/**
 * Capability kinds. `read` and `preview` never need authorization records and never
 * touch the ledger; `propose`, `approve` and `execute` do.
 * @public
 */
export type CapabilityKind = 'read' | 'preview' | 'propose' | 'approve' | 'execute';

/**
 * Replay policy of a side-effecting capability:
 * `safe` may be re-run freely; `reconcile` the handler is idempotent under the same key, so a call
 * whose outcome is unknown is re-run with that key to learn the outcome; `never` cannot be re-run:
 * an unknown outcome stays unknown until a registered read-only verifier settles it.
 * @public
 */
export type ReplayPolicy = 'safe' | 'reconcile' | 'never';

/**
 * What a successful call of a side-effecting capability changes, which decides when a run that made it is
 * complete (docs/architecture.md#the-goal-report):
 * `download` — done when the download is imported into the library (submitted is not imported);
 * `organize` — done when the organize finished (queued is not finished);
 * `subscription` — done when the subscription exists, read back (it never waits for future releases);
 * `setting` — done when a read confirms the new value;
 * `schedule` — done when the schedule exists, read back (never a promise that it will run well);
 * `cancel` — done when the call succeeded; what it removed (a download) is the intended outcome, not a failure;
 * `other` — done when the call succeeded (`pending` waits).
 * The read-back of `subscription`, `setting` and `schedule` is the capability's read-only verifier.
 * @public
 */
export type EffectKind = 'download' | 'organize' | 'subscription' | 'setting' | 'schedule' | 'cancel' | 'other';

/** Every {@link EffectKind}, in the order the docs list them. @public */
export const EFFECT_KINDS: readonly EffectKind[] = Object.freeze([
  'download',
  'organize',
  'subscription',
  'setting',
  'schedule',
  'cancel',
  'other',
]);

/** True for effect kinds whose completion is confirmed by reading the effect back (the capability's verifier). @public */
export function needsReadBack(effect: EffectKind): boolean {
  return effect === 'subscription' || effect === 'setting' || effect === 'schedule';
}

/** True for kinds that need authorization records and a ledger entry. @public */
export function isSideEffecting(kind: CapabilityKind): boolean {
  return kind === 'propose' || kind === 'approve' || kind === 'execute';
}

/**
 * What a call touches, derived from its input by the capability's `target` function; the
 * authorizer checks grant scopes and approvals against it.
 * @public
 */
export interface InvocationTarget {
  /** Plan type the call executes (e.g. `download`); with `planId`, approvals bind to this plan. */
  planType?: string;
  /** Plan id the call executes. */
  planId?: string;
  /** Media entity touched (else taken from the plan). */
  mediaEntityId?: string;
  /** Media kind touched, e.g. `movie` (else taken from the plan). */
  mediaKind?: string;
  /** Bytes the call moves, counted against a grant's byte budget (else taken from the plan). */
  bytes?: number;
  /** The plan steps the call executes (ids of the plan payload's `steps`); absent: the whole plan. A partial approval covers only its approved steps. */
  steps?: string[];
}

/**
 * A capability as listed (no handler).
 * @public
 */
export interface CapabilityDescriptor {
  /** Dotted id, e.g. `download.submit`; the tool name models see is derived from it. */
  id: string;
  /** Contract version (a positive integer; part of the idempotency key). */
  version: number;
  /** Short title for people. */
  title: string;
  /** What the capability does and what its input means, as the model reads it. */
  description: string;
  /** `read`, `preview`, `propose`, `approve` or `execute` (docs/architecture.md#capabilities). */
  kind: CapabilityKind;
  /** `safe`, `reconcile` or `never`: what may happen when an outcome is unknown. */
  replay: ReplayPolicy;
  /** Input JSON Schema (validates every invocation). */
  input: TSchema;
  /**
   * The input schema offered to models: `input` when every provider family accepts it unchanged, else
   * its provider-safe rewrite (see `checkProviderSchema`). Always set on descriptors of a registry;
   * when absent (a descriptor built by hand), `capabilityModelTool` derives it from `input`.
   */
  modelInputSchema?: Readonly<Record<string, unknown>>;
  /** Output schema (TypeBox, i.e. JSON Schema); every handler result is validated against it. */
  output: TSchema;
  /** Words `search_tools` matches besides the id, title and description. */
  tags: readonly string[];
  /** Other names people use for it (any language), matched by `search_tools`. */
  aliases: readonly string[];
  /** Policy kind, when any. */
  policy: string | undefined;
  /** Only administrators (or runs acting for one) may invoke it; absent means `false`. */
  adminOnly?: boolean;
  /**
   * What a successful call changes, deciding when a run that made it is complete ({@link EffectKind}); set on
   * `execute` capabilities of a registry (`other` when the definition does not say), absent otherwise.
   */
  effect?: EffectKind;
  /**
   * Dotted input paths never stored or traced in clear (`*` matches any array item or key), as the capability
   * declares them; secret-looking field names are redacted besides. Absent on descriptors built by hand.
   */
  redact?: readonly string[];
  /**
   * Whether the capability's input or output schema declares provenance (`x-media-agent-id`,
   * `x-media-agent-text` or `x-media-agent-provenance` anywhere): `declared` side effects have their arguments
   * checked in runs (`TAINTED_ARGUMENT`), `undeclared` ones keep the behaviour without the check and are listed at
   * `host.start()` (docs/untrusted-text.md). Set on descriptors of a registry, computed at registration; absent on
   * descriptors built by hand (treated as `undeclared`).
   */
  provenance?: 'declared' | 'undeclared';
  /** Derives what a call touches from its input (plan, media entity), when the capability declares it. */
  target: ((input: unknown) => InvocationTarget) | undefined;
  /**
   * The declared inverse (`CapabilityDefinition.inverse`): the capability that undoes a call's effect and its input
   * from the call's recorded output; `host.undo` runs it (docs/approvals.md#undo). Absent when none is declared.
   */
  inverse?: { readonly capability: string; readonly input: (output: unknown) => unknown };
}
