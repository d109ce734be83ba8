// Which final failures of a model call move a fallback chain to its next entry (docs/providers.md#fallback-chains).
// Pure: a function of the error's code, after the provider's own retries are used up.

/**
 * The error codes after which a turn is retried on the next entry of a fallback chain: the provider is busy,
 * down, unreachable, too slow or out of credit, and another provider may answer the same request.
 *
 * @remarks
 * Never in the list: `PROVIDER_HTTP` and `PROVIDER_PROTOCOL` (a 400 validation error or a broken stream: the
 * request itself is wrong, another provider would be sent the same mistake), `PROVIDER_AUTH` (401/403: fix the
 * key) and `PROVIDER_CONTEXT_OVERFLOW` (the runtime compacts the conversation and resends instead).
 * @public
 */
export const FALLBACK_ERROR_CODES: readonly string[] = Object.freeze([
  'PROVIDER_RATE_LIMITED',
  'PROVIDER_UNAVAILABLE',
  'PROVIDER_UNREACHABLE',
  'PROVIDER_TIMEOUT',
  'PROVIDER_OUT_OF_CREDIT',
]);

/**
 * Whether a model call's final failure moves the turn to the next entry of a fallback chain.
 * @param error - the failure the provider's stream reported (after its own retries), or undefined
 * @returns true for the codes of {@link FALLBACK_ERROR_CODES}
 * @public
 */
export function isFallbackWorthy(error: { code?: string } | undefined): boolean {
  return typeof error?.code === 'string' && FALLBACK_ERROR_CODES.includes(error.code);
}

/**
 * Whether an attempt already emitted output: text, reasoning or a tool call (a part of its assistant message).
 * The person may have seen it; another provider's answer would follow it, and no tool of the turn may run.
 * @param turn - the attempt's assembled message
 * @internal
 */
export function emittedOutput(turn: { message: { content: readonly unknown[] } }): boolean {
  return turn.message.content.length > 0;
}

/**
 * Whether a finished model turn moves to the next entry: it failed with a fallback-worthy error, was not
 * aborted (an aborted run stops; it does not change provider), and emitted nothing yet. Once text, reasoning
 * or a tool call was emitted the turn fails with its typed error, as the provider's own retries do
 * (docs/providers.md#retries): a second answer would follow the first one the person already saw.
 * @param turn - the turn's error, whether its signal aborted, and its assembled message
 * @internal
 */
export function turnFallsBack(turn: {
  error?: { code?: string } | undefined;
  aborted: boolean;
  message: { content: readonly unknown[] };
}): boolean {
  return !turn.aborted && !emittedOutput(turn) && isFallbackWorthy(turn.error);
}
