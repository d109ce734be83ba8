import type { Actor } from '../core/actor';

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
 * What `invoke` returns. Denials, handler failures and unknown outcomes are results, not exceptions,
 * so the model sees them as tool results.
 * @public
 */
export interface InvocationResult<O = unknown> {
  /** Outcome. */
  status: InvocationStatus;
  /** Output (`succeeded`) or receipt (`pending`). */
  output?: O;
  /** Why it failed, was denied or is unknown: stable `code` and message. */
  error?: { code: string; message: string };
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
