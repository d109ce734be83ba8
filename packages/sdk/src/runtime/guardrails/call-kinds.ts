// Which calls the loop guard treats as writes, as read-only, and as failures.
import type { GuardCall, GuardOutcome } from './types';

/**
 * True for a call that changes something: kind `propose`, `approve` or `execute`.
 * @param call - the call
 * @internal
 */
export function isWriteCall(call: Pick<GuardCall, 'kind'>): boolean {
  return call.kind === 'propose' || call.kind === 'approve' || call.kind === 'execute';
}

/**
 * True for a call whose result the same-result rule watches: kind `read` or `preview`, or an
 * `internal` tool listed in `readOnlyTools`.
 * @param call - the call
 * @param readOnlyTools - `internal` tools treated as read-only
 * @internal
 */
export function isReadOnlyCall(call: Pick<GuardCall, 'kind' | 'tool'>, readOnlyTools: readonly string[]): boolean {
  return (
    call.kind === 'read' || call.kind === 'preview' || (call.kind === 'internal' && readOnlyTools.includes(call.tool))
  );
}

/**
 * True for an outcome the failure rules count: `failed` or `denied`.
 * @param outcome - the outcome of a call that ran
 * @internal
 */
export function isFailedOutcome(outcome: Pick<GuardOutcome, 'status'>): boolean {
  return outcome.status === 'failed' || outcome.status === 'denied';
}
