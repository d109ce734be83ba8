import type { ImpactReport } from '../core/impact';
import type { Actor } from '../core/actor';
import type { RunProvenance } from '../core/run-provenance';
import type { InvocationListener } from './types';
import type { IntentJoin } from './intent-join';

/**
 * What a run was shown and what people typed in it, as the invocation path asks for it when it checks the
 * arguments of a run's side effect (docs/untrusted-text.md). The run loop passes one with every call it makes.
 * @public
 */
export interface InvocationProvenance {
  /** What this run was shown: the ids host reads returned, per namespace, and the untrusted strings (normalized). */
  shown(): RunProvenance;
  /** What people typed in this run, raw: its goal and the messages a person (`user:…`) added to it. */
  typed(): readonly string[];
}

/**
 * An effect a run's lineage already performed (docs/forks.md#the-duplicate-rule): a ledger entry of the run a fork
 * was made from, or of an ancestor of it. The invocation path refuses a fork's call of a `replay: 'never'`
 * capability that repeats one (same capability id and argument hash) whose outcome may have taken place.
 * @public
 */
export interface PriorEffect {
  /** Its ledger (idempotency) key. */
  key: string;
  /** The capability invoked. */
  capabilityId: string;
  /** SHA-256 of its canonical input (the ledger's `argsHash`). */
  argsHash: string;
  /** Its ledger state when the fork was made. */
  outcome: 'succeeded' | 'pending' | 'unknown' | 'failed' | 'running';
  /** The run that performed it. */
  runId: string;
}

/**
 * Who calls and on whose behalf. Web handlers, model tool calls, background jobs and
 * subagents all pass one of these to `CapabilityRegistry.invoke`.
 * @public
 */
export interface InvocationContext {
  /** The caller. */
  actor: Actor;
  /** The run the call belongs to (scopes the idempotency key). */
  runId?: string;
  /** The background task the call belongs to (scopes the idempotency key when there is no run). */
  taskId?: string;
  /** Model tool-call id or host request id: reusing it with other arguments is refused. */
  callId?: string;
  /** Pointer to an approval record (never proof by itself: the record decides). */
  approvalId?: string;
  /** Aborts the call; a side effect interrupted by it is recorded as `unknown`. */
  signal?: AbortSignal;
  /** Hears the handler's `ctx.progress` and `ctx.logToCaller` while it runs (e.g. the MCP server, per call). */
  listener?: InvocationListener;
  /**
   * A dry run: validate, authorize and compute the impact, never run the handler, never claim the ledger, never
   * consume an approval or charge a grant. The result has status `dry_run` ({@link InvocationDryRun}).
   */
  dryRun?: boolean;
  /**
   * What the run making the call was shown and what people typed in it. With it, a `propose`/`approve`/`execute`
   * call of a capability whose schemas declare provenance is checked after input validation and before
   * authorization (dry runs too): an id field must hold an id a host read returned to the run, or one a person
   * typed; a free-text field must not hold untrusted text the run was shown. A finding is a `denied` result with
   * `TAINTED_ARGUMENT`, audited as `capability.tainted`; nothing else runs. Absent (a person's own call through
   * `host.invoke` or HTTP): not checked, a person typed the arguments (docs/untrusted-text.md).
   */
  provenance?: InvocationProvenance;
  /**
   * The effects the calling run's lineage already performed, when the run is a fork (the run loop passes them from
   * the fork's runtime state; absent for every other caller, at no cost). A `replay: 'never'` capability called with
   * the same capability id and argument hash as one of them whose outcome is `succeeded`, `pending`, `unknown` or
   * `running` is `denied` with `FORK_DUPLICATE_EFFECT` after authorization allowed it — unless the verdict's basis is
   * a person's `approval` of the plan — audited as `capability.denied`; nothing is claimed (docs/forks.md).
   */
  priorEffects?: readonly PriorEffect[];
  /**
   * The runs of the calling fork's lineage, nearest first (with `priorEffects`). For a `replay: 'never'` call the
   * invocation path also reads their ledger entries in the claim's transaction, so an effect the original performed
   * after the fork was made is a duplicate too. Absent for every other caller.
   */
  lineageRunIds?: readonly string[];
}

/**
 * Outcome of one invocation:
 * `succeeded` (output present), `failed` (did not take effect; error present), `pending` (an async job
 * was accepted, not done; output is the receipt), `unknown` (the effect may have happened; verify before
 * retrying), `denied` (authorization refused; nothing ran). A dry run (`dryRun: true`) answers an
 * {@link InvocationDryRun} instead.
 * @public
 */
export type InvocationStatus = 'succeeded' | 'failed' | 'pending' | 'unknown' | 'denied';

/**
 * What every {@link InvocationResult} carries, whatever its status.
 * @public
 */
export interface InvocationResultBase {
  /** Id of this invocation (also in the audit row). */
  invocationId: string;
  /** Idempotency key, for side-effecting kinds. */
  idempotencyKey?: string;
  /** True when the result was read from the ledger instead of running the handler. */
  replayed?: boolean;
  /** Approval that authorized the call. */
  approvalId?: string;
  /** Grant that authorized the call. */
  grantId?: string;
}

/**
 * The call took effect: `output` is the handler's output.
 * @public
 */
export interface InvocationSucceeded<O = unknown> extends InvocationResultBase {
  /** Outcome. */
  status: 'succeeded';
  /** The handler's output. */
  output: O;
  /** Never set on success. */
  error?: undefined;
}

/**
 * An async job was accepted, not done: `output` is the receipt.
 * @public
 */
export interface InvocationPending<O = unknown> extends InvocationResultBase {
  /** Outcome. */
  status: 'pending';
  /** The receipt the handler returned. */
  output: O;
  /** Never set while pending. */
  error?: undefined;
}

/**
 * The call did not produce an output: `failed` (it did not take effect), `denied` (authorization refused; nothing
 * ran) or `unknown` (the effect may have happened; verify before retrying). `error` says why.
 * @public
 */
export interface InvocationUnsuccessful extends InvocationResultBase {
  /** Outcome. */
  status: 'failed' | 'denied' | 'unknown';
  /** Never set: there is no output. */
  output?: undefined;
  /** Why it failed, was denied or is unknown: stable `code` and message. */
  error: { code: string; message: string };
  /**
   * Set when the call joined a job already in progress (`failed` with `INTENT_IN_PROGRESS`): who holds it, its
   * plan and how far it is. Nothing ran and no second job was created (docs/intents.md).
   */
  joined?: IntentJoin;
}

/**
 * What a dry run (`dryRun: true`) returns: the impact and the authorization verdict, with nothing run, claimed or
 * consumed. `verdict.allowed` says whether the call would be authorized now; when it would not, `verdict.code` and
 * `verdict.reason` say why and `verdict.approvalRequired` whether an approval would authorize it.
 * @public
 */
export interface InvocationDryRun {
  /** Id of this dry run (also in its audit row). */
  invocationId: string;
  /** Outcome. */
  status: 'dry_run';
  /** What the call would do (`unknown` when the capability declares no impact or it failed). */
  impact: ImpactReport;
  /** Whether the call would be authorized now, and on what basis or why not. */
  verdict: DryRunVerdict;
  /** Never set: nothing ran. */
  output?: undefined;
  /** Never set: a dry run of a valid input does not fail. */
  error?: undefined;
}

/** The authorization part of an {@link InvocationDryRun}. @public */
export interface DryRunVerdict {
  /** Whether the call would be authorized now. */
  allowed: boolean;
  /** How it would be authorized (`not_required`, `human`, `approval`, `grant`), when allowed. */
  basis?: 'not_required' | 'human' | 'approval' | 'grant';
  /** The denial code, when not allowed. */
  code?: string;
  /** Why not, when not allowed. */
  reason?: string;
  /** True when the call executes a plan, so an approval of that plan would authorize it. */
  approvalRequired?: boolean;
  /**
   * The job the call would join now (with `allowed: false` and code `INTENT_IN_PROGRESS`): another run or person
   * holds its intent (docs/intents.md). A dry run acquires nothing.
   */
  joined?: IntentJoin;
}

/**
 * What `invoke` returns. Denials, handler failures and unknown outcomes are results, not exceptions,
 * so the model sees them as tool results. A union discriminated by `status`: after
 * `if (result.status === 'succeeded')` the `output` is typed `O`; after a check for `failed`, `denied` or
 * `unknown` the `error` is present.
 * @example
 * ```ts
 * const result = await host.invoke(searchTitles, { query: 'Dune' }, { actor: 'user:alice' });
 * if (result.status === 'succeeded') console.log(result.output); // typed by the capability's output schema
 * else if (result.status !== 'pending') console.log(result.error.code);
 * ```
 * @public
 */
export type InvocationResult<O = unknown> = InvocationSucceeded<O> | InvocationPending<O> | InvocationUnsuccessful;
