// An MCP client's own idempotency key for a tools/call, carried in the request's `_meta`: a client that
// lost a response and retries with the same key gets the recorded result instead of a second effect.
import { MediaAgentError } from '../core/errors';
import { compactScopeKey } from '../core/scope-key';

/** The `_meta` field of `tools/call` that carries the client's idempotency key. @public */
export const MCP_IDEMPOTENCY_KEY_META = 'media-agent/idempotency-key';

const KEY = /^[A-Za-z0-9._:~-]{1,128}$/;

/** The longest task id the invocation path takes (a longer scope is hashed). */
const MAX_TASK_ID = 200;

/**
 * The invocation scope of a `tools/call` from its `_meta`: with a client key, the call belongs to the task
 * `scopeKey('mcp', actor, key)` (each part length-prefixed, e.g. `3:mcp,11:apikey:home,6:kids:1,`; hashed to
 * `sha256:<64 hex>` beyond 200 characters, see `compactScopeKey`) with call id `<key>`, so a retry with the
 * same key and arguments returns the recorded result (`replayed`), the same key with other arguments is refused
 * (`LEDGER_CALL_ID_CONFLICT`), and two actors' keys never meet — also when actor ids and keys hold `:`
 * (`apikey:home` with key `kids:1` and `apikey:home:kids` with key `1` are two tasks). Without a key, each call
 * is its own intent (nothing is merged).
 * @param meta - the request's `_meta` (anything)
 * @param actor - the authenticated actor
 * @returns the task and call id to invoke with, or an empty object without a key
 * @throws `MCP_IDEMPOTENCY_KEY_INVALID` ({@link MediaAgentError}) for a key that is not 1–128 characters of
 *   `A–Z a–z 0–9 . _ : ~ -`
 * @public
 */
export function mcpCallScope(meta: unknown, actor: string): { taskId?: string; callId?: string } {
  const key =
    meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>)[MCP_IDEMPOTENCY_KEY_META] : undefined;
  if (key === undefined) return {};
  if (typeof key !== 'string' || !KEY.test(key))
    throw new MediaAgentError(
      'MCP_IDEMPOTENCY_KEY_INVALID',
      `_meta["${MCP_IDEMPOTENCY_KEY_META}"] must be 1–128 characters of A–Z a–z 0–9 . _ : ~ -; nothing was run`,
      { field: MCP_IDEMPOTENCY_KEY_META },
    );
  return { taskId: compactScopeKey(MAX_TASK_ID, 'mcp', actor, key), callId: key };
}

/**
 * The task id the same call had before scopes were length-prefixed (`mcp:<actor>:<key>`), when it fitted the
 * invocation path's 200 characters: only to find a call recorded before an upgrade (its record must name the
 * same actor, since this form is ambiguous).
 * @internal
 */
export function legacyMcpTaskId(actor: string, callId: string): string | undefined {
  const taskId = `mcp:${actor}:${callId}`;
  return taskId.length <= MAX_TASK_ID ? taskId : undefined;
}
