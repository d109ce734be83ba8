import type { Actor } from '../core/actor';
import type { InvocationListener } from './types';

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
}

/**
 * Outcome of one invocation:
 * `succeeded` (output present), `failed` (did not take effect; error present), `pending` (an async job
 * was accepted, not done; output is the receipt), `unknown` (the effect may have happened; verify before
 * retrying), `denied` (authorization refused; nothing ran).
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
