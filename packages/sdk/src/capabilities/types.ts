import type { Static, TSchema } from 'typebox';
import type { Actor } from '../core/actor';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { CapabilityKind, EffectKind, InvocationTarget, ReplayPolicy } from '../core/capability-descriptor';
import type { LedgerEntry, PlanRecord } from '../core/records';
import type { Impact } from '../core/impact';

/**
 * Marks a handler result as `pending`: an asynchronous job was accepted but is not done
 *. Create it with `ctx.pending(output)`.
 * @public
 */
export interface PendingOutcome<O> {
  /** Marks the object as made by `ctx.pending(output)`; always `true`. */
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
  /** Who invokes: `user:<id>`, `apikey:<id>`, `agent:<runId>` or `system:<name>`. */
  actor: Actor;
  /** Run id, when called from a run. */
  runId: string | undefined;
  /** Task id, when called from a background task. */
  taskId: string | undefined;
  /** Tool-call or request id, when given. */
  callId: string | undefined;
  /** The plan the call executes, when its target names one. */
  plan: PlanRecord | undefined;
  /**
   * Aborts when the caller gives up, or at the call's deadline (the capability's `timeoutMs`, else the host's
   * `capabilityTimeoutMs`; the reason is then a `CapabilityTimeoutError`, code `CAPABILITY_TIMEOUT`). Pass it
   * on to the work the handler waits for. The invocation ends when it aborts, whether the handler stops or not
   * (a side effect is recorded as `unknown`, a read fails); whatever the handler returns afterwards is not
   * recorded.
   */
  signal: AbortSignal;
  /** The host's time source; use it instead of `Date.now()` so tests control time. */
  clock: Clock;
  /** Logger (never give it secrets). */
  logger: Logger;
  /** Wraps a receipt as a {@link PendingOutcome}. */
  pending<O>(output: O): PendingOutcome<O>;
  /**
   * Tells the caller how far the call has got, while it runs. Over MCP, when the client sent
   * `_meta.progressToken`, each update becomes a `notifications/progress` (docs/architecture.md#mcp);
   * for any other caller (a run, a direct `host.invoke`) it does nothing.
   *
   * Progress only grows: an update whose `progress` is not a finite number greater than the last one sent
   * (or whose `total` is not a finite number) is dropped. Never throws, and a caller that went away does not
   * fail the call.
   * @example
   * ```ts
   * for (const [i, file] of files.entries()) {
   *   ctx.progress({ progress: i, total: files.length, message: `moving ${file}` });
   *   await move(file);
   * }
   * ```
   */
  progress(update: ProgressUpdate): void;
  /**
   * A log message for the caller, not for the host's log (that is {@link HandlerContext.logger}). Over MCP it
   * becomes a `notifications/message` (levels `debug`, `info`, `warning`, `error`; `logger` is the capability
   * id) unless the client asked for a higher level with `logging/setLevel`; for any other caller it does
   * nothing. Write nothing here the caller may not read (no secrets, no host internals). Never throws.
   * @param level - `debug`, `info`, `warn` or `error`
   * @param message - the text
   * @param data - structured facts, sent with the text (JSON values)
   */
  logToCaller(level: CallerLogLevel, message: string, data?: Record<string, unknown>): void;
}

/**
 * One progress report of a running call (see {@link HandlerContext.progress}).
 * @public
 */
export interface ProgressUpdate {
  /** How far the call has got, in any unit; greater than the previous update's. */
  progress: number;
  /** The value `progress` reaches when done, when known. */
  total?: number;
  /** What is happening now, for people. */
  message?: string;
}

/** Levels of {@link HandlerContext.logToCaller}, in increasing severity. @public */
export type CallerLogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * What a caller of the invocation path hears while the handler runs (its progress and caller log), given
 * as `InvocationContext.listener`. The MCP server passes one per `tools/call`; runs pass none. A listener
 * that throws is ignored.
 * @public
 */
export interface InvocationListener {
  /** A progress update, already checked to grow. */
  progress?(update: ProgressUpdate): void;
  /** A caller log message. */
  log?(level: CallerLogLevel, message: string, data?: Record<string, unknown>): void;
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
  /** Short title for people, e.g. `Submit a planned download`. */
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
  /** Words `search_tools` matches besides the id, title and description. */
  tags?: string[];
  /** Other names, any language (e.g. `整理` for organize). */
  aliases?: string[];
  /** Dotted input paths never stored in clear (`*` matches any array item or key); names like token/password/apikey/cookie are always redacted. */
  redact?: string[];
  /** Policy kind whose `policy.<kind>` grants cover this capability, e.g. `acquisition`. */
  policy?: string;
  /**
   * Only administrators reach it (default `false`): a call by an ordinary user, or by a run acting for
   * one, is denied with `AUTH_ADMIN_ONLY` before the handler, whatever its kind, approvals or grants.
   */
  adminOnly?: boolean;
  /**
   * For `execute` capabilities: what a successful call changes, which decides when a run that made it is
   * complete (default `other`: done when the call succeeded). `download` waits for the import, `organize` for
   * the organize to finish; `subscription`, `setting` and `schedule` are done only when `verify` reads the
   * effect back. See docs/architecture.md#the-goal-report.
   */
  effect?: EffectKind;
  /**
   * The handler's deadline, in ms (a positive finite number; checked by `defineCapability`, else
   * `CAPABILITY_DEFINITION_INVALID`). Default: the host's `capabilityTimeoutMs` (120 000 ms). At the deadline
   * the handler's `signal` aborts with a `CapabilityTimeoutError` and the invocation ends, whether the handler
   * stops or not: a `read` or `preview` (or a `replay: 'safe'` call) fails with `CAPABILITY_TIMEOUT`; any other
   * side-effecting call is settled `unknown` (code `CAPABILITY_TIMEOUT`) and is never run again blindly: the next
   * call with the same idempotency key goes to its verifier (`replay: 'never'`) or runs the handler again with that
   * key (`replay: 'reconcile'`). What the handler returns later is not recorded.
   */
  timeoutMs?: number;
  // `NoInfer`: `I` and `O` come from `input` and `output` only. Inferring them from the callbacks too
  // makes the compiler expand typebox's `Static` conditional type generically, which costs a consumer
  // tens of seconds of type-checking per program.
  /** Derives what the call touches from its validated input. */
  target?: (input: NoInfer<Static<I>>) => InvocationTarget;
  /** Read-only verifier for calls whose outcome is unknown. */
  verify?: Verifier<NoInfer<Static<I>>, NoInfer<Static<O>>>;
  /**
   * What a call would do, in real units (bytes, files, free space, reversibility; see {@link Impact}), computed from
   * its validated input without running the handler. Only for side-effecting kinds. It is a read: it runs without
   * authorization and never touches the ledger, with the host's `impactTimeoutMs` deadline (default 3 000 ms) on
   * `ctx.signal`. An impact that throws, times out or returns something that is not an `Impact` makes the impact
   * "unknown" (the call and its approval still work). Shown on approvals, in dry runs and to the model
   * (docs/approvals.md#impact).
   */
  impact?: (input: NoInfer<Static<I>>, ctx: ImpactContext) => Promise<Impact> | Impact;
  /**
   * How a successful call is undone: `host.undo` invokes `capability` (through the invocation path, under its own
   * authorization) with `input(output)`, where `output` is this call's recorded output
   * (docs/approvals.md#undo). Only for side-effecting kinds.
   */
  inverse?: CapabilityInverse<NoInfer<Static<O>>>;
  /**
   * For capabilities that execute a plan: the schema of the plan payloads they execute. An approver's edit of the
   * plan is validated against it before it can be approved (without it, approvals of its plans cannot be edited:
   * `APPROVAL_EDIT_UNSUPPORTED`).
   */
  planPayload?: TSchema;
  /**
   * One intent, one job (docs/intents.md): calls of this capability on one media entity belong to effect class
   * `effectClass` (lowercase dotted words, ≤ 64 chars, e.g. `download`, `organize`). While a run (or a caller
   * outside runs) holds that class on the entity, a call by anyone else does not run: it fails with
   * `INTENT_IN_PROGRESS` and the holder's job in `joined`. The entity is the call's `target(input).mediaEntityId`,
   * or the `mediaEntityId` of the plan its target names; a call with neither takes no intent. Only for
   * side-effecting kinds (`CAPABILITY_DEFINITION_INVALID` otherwise).
   */
  intent?: CapabilityIntent;
  /** The handler; returns the output, or `ctx.pending(receipt)` for accepted async jobs. Throw `OutcomeUnknownError` when the effect may have happened but the outcome is not known. */
  handler: (
    input: NoInfer<Static<I>>,
    ctx: HandlerContext,
  ) => Promise<NoInfer<Static<O>> | PendingOutcome<NoInfer<Static<O>>>>;
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
export interface Capability<out I extends TSchema = TSchema, out O extends TSchema = TSchema>
  extends Readonly<CapabilityDefinition<I, O>> {
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
 * The intent class a capability declares (see `CapabilityDefinition.intent`, docs/intents.md).
 * @public
 */
export interface CapabilityIntent {
  /** The effect class, e.g. `download` (`download.plan`, `download.submit`) or `organize`. */
  readonly effectClass: string;
}

/**
 * What an `impact` function receives besides the input.
 * @public
 */
export interface ImpactContext {
  /** Who would make the call. */
  actor: Actor;
  /** Run id, when the call comes from a run. */
  runId: string | undefined;
  /** The plan the call would execute, when its target names one. */
  plan: PlanRecord | undefined;
  /** Aborts at the impact's deadline (the host's `impactTimeoutMs`). */
  signal: AbortSignal;
  /** The host's time source. */
  clock: Clock;
  /** Logger (never give it secrets). */
  logger: Logger;
}

/**
 * The declared inverse of a capability (see `CapabilityDefinition.inverse`).
 * @example
 * ```ts
 * inverse: { capability: 'organize.revert', input: (output) => ({ organizeId: output.organize.id }) }
 * ```
 * @public
 */
export interface CapabilityInverse<O = unknown> {
  /** Id of the capability that undoes the effect (a side-effecting capability, registered on the same host). */
  capability: string;
  /** Its input, from the recorded output of the call being undone. */
  input: (output: O) => unknown;
}
