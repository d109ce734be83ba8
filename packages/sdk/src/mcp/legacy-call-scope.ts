// Calls an MCP client made before idempotency scopes were length-prefixed: a retry that arrives after the
// upgrade finds its recorded result under the old task id, when that record is the same actor's.
import type { Actor } from '../core/actor';
import { type CapabilityDescriptor, isSideEffecting } from '../core/capability-descriptor';
import { deriveIdempotencyKey } from '../ledger/idempotency-key';
import type { InvocationLedger } from '../ledger/invocation-ledger';
import { legacyMcpTaskId } from './client-idempotency';

/**
 * The scope a keyed `tools/call` is invoked with: `scope` ({@link mcpCallScope}), or the old task id
 * `mcp:<actor>:<key>` when the ledger holds this very call (same capability version, arguments and call id)
 * recorded under it by the same actor. The old form is ambiguous (`apikey:home` + `kids:1` and
 * `apikey:home:kids` + `1` give one task id), so a record made by another actor is never used: that caller
 * runs under the new scope as a new intent.
 * @param ledger - the host's ledger (read only)
 * @returns `scope`, or the same call id under the old task id
 */
export async function withRecordedLegacyScope(
  ledger: Pick<InvocationLedger, 'get'>,
  descriptor: Pick<CapabilityDescriptor, 'id' | 'version' | 'kind'>,
  input: unknown,
  actor: Actor,
  scope: { taskId?: string; callId?: string },
): Promise<{ taskId?: string; callId?: string }> {
  if (scope.taskId === undefined || scope.callId === undefined || !isSideEffecting(descriptor.kind)) return scope;
  const legacy = legacyMcpTaskId(actor, scope.callId);
  if (legacy === undefined) return scope;
  let key: string;
  try {
    key = deriveIdempotencyKey({
      capabilityId: descriptor.id,
      version: descriptor.version,
      scopeId: legacy,
      input,
    }).key;
  } catch {
    return scope; // no canonical form: the invocation path refuses the input itself
  }
  const entry = await ledger.get(key).catch(() => undefined);
  return entry && entry.actor === actor && entry.scopeId === legacy && entry.callId === scope.callId
    ? { taskId: legacy, callId: scope.callId }
    : scope;
}
