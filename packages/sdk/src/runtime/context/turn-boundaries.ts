// Where a conversation may be cut without separating a tool call from its result.
import type { ModelMessage } from '../../models/types';

/**
 * Indices where the conversation may be cut: `i` (strictly between 0 and n) such that `messages[i]` is not a tool
 * result and no tool call before `i` is answered at or after `i` — so a tool call is never separated
 * from its result. In practice: before a user message, or before an assistant message once every
 * earlier call has its result.
 * @param messages - the conversation (without the system prompt)
 * @returns the boundaries, ascending
 * @public
 */
export function turnBoundaries(messages: readonly ModelMessage[]): number[] {
  const answeredAt = new Map<string, number>();
  messages.forEach((m, i) => {
    if (m.role === 'tool' && !answeredAt.has(m.toolCallId)) answeredAt.set(m.toolCallId, i);
  });
  const out: number[] = [];
  let openUntil = 0; // the last index at which a call made so far is answered
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (i > 0 && m.role !== 'tool' && openUntil < i) out.push(i);
    if (m.role === 'assistant') {
      for (const p of m.content)
        if (p.type === 'tool_call') openUntil = Math.max(openUntil, answeredAt.get(p.id) ?? -1);
    }
  }
  return out;
}
