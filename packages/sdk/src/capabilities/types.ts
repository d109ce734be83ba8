import type { Static, TSchema } from 'typebox';
import type { Actor } from '../authorization/actor';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { LedgerEntry, PlanRecord } from '../storage/records';

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
 * Marks a handler result as `pending`: an asynchronous job was accepted but is not done
 *. Create it with `ctx.pending(output)`.
 * @public
 */
export interface PendingOutcome<O> {
  /** Brand. */
  readonly __pending: true;
  /** The receipt, validated against the output schema. */
  readonly output: O;
}

/**
 * Services a handler receives. Handlers run only through the invocation path.
 * @public
 */
export interface HandlerContext {
  /** Id of this invocation. */
  invocationId: string;
  /** Idempotency key (for `propose`/`approve`/`execute`); pass it to the host so a re-run does not repeat the effect. */
  idempotencyKey: string | undefined;
  /** Who invokes. */
  actor: Actor;
  /** Run id, when called from a run. */
  runId: string | undefined;
  /** Task id, when called from a background task. */
  taskId: string | undefined;
  /** Tool-call or request id, when given. */
  callId: string | undefined;
  /** The plan the call executes, when its target names one. */
  plan: PlanRecord | undefined;
  /** Aborts when the caller gives up; a side effect interrupted by it is recorded as `unknown`. */
  signal: AbortSignal;
  /** Time source. */
  clock: Clock;
  /** Logger (never give it secrets). */
  logger: Logger;
  /** Wraps a receipt as a {@link PendingOutcome}. */
  pending<O>(output: O): PendingOutcome<O>;
}

/**
 * What a verifier concluded about a call whose outcome was unknown.
 * `succeeded` the effect happened (its output is recorded); `failed` it verifiably did not happen
 * (the call may then run again); `unknown` still cannot tell.
 * @public
 */
export type VerifierOutcome<O> =
  | { status: 'succeeded'; output: O }
  | { status: 'failed'; reason: string }
  | { status: 'unknown'; reason: string };

/**
 * Invokes a `read` or `preview` capability through the invocation path on behalf of a verifier.
 * @throws `VerifierNotReadOnlyError` (`VERIFIER_NOT_READ_ONLY`) for any other kind
 * @public
 */
export type ReadInvoker = (capabilityId: string, input: unknown) => Promise<unknown>;

/**
 * A read-only verifier: the only way a ledger entry leaves `unknown`. It receives the input of the repeated call and may only read.
 * @public
 */
export type Verifier<I = unknown, O = unknown> = (args: {
  input: I;
  entry: LedgerEntry;
  read: ReadInvoker;
  signal: AbortSignal;
}) => Promise<VerifierOutcome<O>>;

/**
 * The definition a plugin author writes; input and output types are inferred from the TypeBox schemas.
 * @public
 */
export interface CapabilityDefinition<I extends TSchema = TSchema, O extends TSchema = TSchema> {
  /** Stable id: lowercase dotted words, e.g. `download.submit`, `plugin.Foo.bar` (letters, digits, `_`, `-`, `.`; ≤ 128 chars). */
  id: string;
  /** Positive integer; part of the idempotency key, bump it when the input's meaning changes. */
  version: number;
  /** Short human title. */
  title: string;
  /** What it does, for people and for the model. */
  description: string;
  /** Kind (decides authorization and ledger use). */
  kind: CapabilityKind;
  /** Replay policy (meaningful for side-effecting kinds). */
  replay: ReplayPolicy;
  /** TypeBox schema of the input. */
  input: I;
  /** TypeBox schema of the output. */
  output: O;
  /** Search tags. */
  tags?: string[];
  /** Other names, any language (e.g. `整理` for organize). */
  aliases?: string[];
  /** Dotted input paths never stored in clear (`*` matches any array item or key); names like token/password/apikey/cookie are always redacted. */
  redact?: string[];
  /** Policy kind whose `policy.<kind>` grants cover this capability, e.g. `acquisition`. */
  policy?: string;
  // `NoInfer`: `I` and `O` come from `input` and `output` only. Inferring them from the callbacks too
  // makes the compiler expand typebox's `Static` conditional type generically, which costs a consumer
  // tens of seconds of type-checking per program.
  /** Derives what the call touches from its validated input. */
  target?: (input: NoInfer<Static<I>>) => InvocationTarget;
  /** Read-only verifier for calls whose outcome is unknown. */
  verify?: Verifier<NoInfer<Static<I>>, NoInfer<Static<O>>>;
  /** The handler; returns the output, or `ctx.pending(receipt)` for accepted async jobs. Throw `OutcomeUnknownError` when the effect may have happened but the outcome is not known. */
  handler: (input: NoInfer<Static<I>>, ctx: HandlerContext) => Promise<NoInfer<Static<O>> | PendingOutcome<NoInfer<Static<O>>>>;
}

// `out`: declared rather than measured. Measuring it makes the compiler relate typebox's `Static`
// conditional types structurally, which costs every consumer that passes a capability where a
// `Capability<any, any>` is expected (e.g. `capabilities.register`) tens of seconds of type-checking.
// The measured variance is the same (covariant in both).
/**
 * A defined capability: the frozen definition, as returned by `defineCapability`, plus the input
 * schema as model providers are offered it.
 * @public
 */
export interface Capability<out I extends TSchema = TSchema, out O extends TSchema = TSchema> extends Readonly<CapabilityDefinition<I, O>> {
  /**
   * The input schema sent to models (Anthropic, OpenAI, Gemini accept it), set by `defineCapability`:
   * `input` itself when every provider accepts it as is, else the deep-frozen rewrite of
   * `checkProviderSchema` (e.g. a root union of objects as one object). The handler's input is still
   * validated against `input`, never against this. Absent only on capabilities not made by `defineCapability`
   * (the registry then computes it).
   */
  readonly modelInputSchema?: Readonly<Record<string, unknown>>;
}

/**
 * A capability as listed (no handler).
 * @public
 */
export interface CapabilityDescriptor {
  /** Id. */
  id: string;
  /** Version. */
  version: number;
  /** Title. */
  title: string;
  /** Description. */
  description: string;
  /** Kind. */
  kind: CapabilityKind;
  /** Replay policy. */
  replay: ReplayPolicy;
  /** Input JSON Schema (validates every invocation). */
  input: TSchema;
  /**
   * The input schema offered to models: `input` when every provider family accepts it unchanged, else
   * its provider-safe rewrite (see `checkProviderSchema`). Always set on descriptors of a registry;
   * when absent (a descriptor built by hand), `capabilityModelTool` derives it from `input`.
   */
  modelInputSchema?: Readonly<Record<string, unknown>>;
  /** Output JSON Schema. */
  output: TSchema;
  /** Tags. */
  tags: readonly string[];
  /** Aliases. */
  aliases: readonly string[];
  /** Policy kind, when any. */
  policy: string | undefined;
  /** Derives what a call touches from its input (plan, media entity), when the capability declares it. */
  target: ((input: unknown) => InvocationTarget) | undefined;
}
