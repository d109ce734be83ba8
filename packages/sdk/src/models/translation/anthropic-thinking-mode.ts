// Whether an Anthropic request may enable thinking: with thinking on, the assistant message before the last
// tool results must start with a thinking block (400 "Expected `thinking` or `redacted_thinking`, but found
// `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block …
// To avoid this requirement, disable `thinking`": anomalyco/opencode#3077, OpenRouterTeam/ai-sdk-provider#162).
// A tool loop another family (or another Claude model) began has no such block to send.

type WireMessage = { role: 'user' | 'assistant'; content: Array<Record<string, unknown>> };

/**
 * Whether thinking may be enabled on an Anthropic Messages request whose `messages` are `wire`.
 *
 * @remarks
 * False when the request continues a tool loop (its last message is a user message with `tool_result` blocks)
 * and the assistant message before it does not start with a `thinking` or `redacted_thinking` block: the
 * loop's turn came from another provider family or model, whose thinking was dropped. The request then goes
 * without `thinking` (as the API advises); the next turn, answered by Claude itself, thinks again. True
 * otherwise. Pure.
 *
 * @param wire - the request's `messages`, as encoded
 * @returns true when `thinking` may be sent
 * @internal
 */
export function anthropicThinkingAllowed(wire: readonly WireMessage[]): boolean {
  const last = wire[wire.length - 1];
  if (last?.role !== 'user' || !last.content.some((b) => b.type === 'tool_result')) return true;
  const assistant = wire[wire.length - 2];
  if (assistant?.role !== 'assistant') return true;
  const first = assistant.content[0]?.type;
  return first === 'thinking' || first === 'redacted_thinking';
}
