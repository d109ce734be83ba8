import { canonicalHash } from '../core/canonical-json';

/**
 * What an idempotency key is derived from.
 *
 * @public
 */
export interface IdempotencyKeyParts {
  /** Capability id, e.g. `download.submit`. */
  capabilityId: string;
  /** Capability version (a positive integer). */
  version: number;
  /** The run or task that owns the intent (`runId`, else `taskId`, else a per-request scope). */
  scopeId: string;
  /** The validated input of the call. */
  input: unknown;
}

/**
 * Derives the idempotency key of a side-effecting call:
 * `<capabilityId>:v<version>:<runId|taskId>:<sha256 of canonical JSON input>`
 * (`id:v版本:<agentRunId|taskId>:sha256(规范化输入)`).
 *
 * @remarks
 * Two calls of one capability version in one run with canonically equal inputs share a key,
 * so a repeated or parallel call by the model is one execution identity.
 *
 * @returns the key and the argument hash (64 hex chars)
 * @throws {@link CanonicalJsonError} when the input has no canonical JSON form
 * @public
 */
export function deriveIdempotencyKey(parts: IdempotencyKeyParts): { key: string; argsHash: string } {
  const argsHash = canonicalHash(parts.input);
  return { key: `${parts.capabilityId}:v${parts.version}:${parts.scopeId}:${argsHash}`, argsHash };
}

/**
 * The scope part of an idempotency key: the run id, else the task id, else `request:<invocationId>`
 * (a direct call outside any run or task is its own intent and never merges with another).
 *
 * @public
 */
export function idempotencyScope(
  context: { runId?: string | undefined; taskId?: string | undefined },
  invocationId: string,
): string {
  return context.runId ?? context.taskId ?? `request:${invocationId}`;
}
