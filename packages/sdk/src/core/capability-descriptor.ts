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
   * Dotted input paths never stored or traced in clear (`*` matches any array item or key), as the capability
   * declares them; secret-looking field names are redacted besides. Absent on descriptors built by hand.
   */
  redact?: readonly string[];
  /** Derives what a call touches from its input (plan, media entity), when the capability declares it. */
  target: ((input: unknown) => InvocationTarget) | undefined;
}
