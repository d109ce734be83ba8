// Repeated long tool results replaced by a reference to the first.
import type { ModelMessage, ToolResultMessage } from '../../models/types';
import { COMPACTION_DEFAULTS } from './compaction-settings';
import { messageText, toolResultStatus } from './message-text';

/**
 * Replaces a tool result whose text is identical to an earlier tool result of at least `minChars`
 * characters by a short reference to the first.
 *
 * @remarks
 * Pure and 1:1: returns a new array of the same length; the replaced message keeps its role, call id,
 * name and status, and its content becomes JSON `{ status, note, sameAsCallId }`. Apply it to each
 * outbound request, after compaction: a result whose first occurrence was compacted away is then the
 * first again and goes out in full. Results with images are never replaced.
 *
 * @param messages - the conversation
 * @param minChars - shortest text replaced, in characters (default 512)
 * @returns the conversation with repeats replaced
 * @public
 */
export function dedupeRepeatedResults(
  messages: readonly ModelMessage[],
  minChars: number = COMPACTION_DEFAULTS.dedupeMinChars,
): ModelMessage[] {
  const first = new Map<string, ToolResultMessage>();
  return messages.map((m) => {
    if (m.role !== 'tool') return m;
    if (typeof m.content !== 'string' && m.content.some((p) => p.type !== 'text')) return m;
    const text = messageText(m.content);
    if (text.length < minChars) return m;
    const earlier = first.get(text);
    if (!earlier) {
      first.set(text, m);
      return m;
    }
    const replaced: ToolResultMessage = {
      ...m,
      content: JSON.stringify({
        status: toolResultStatus(m),
        note: `identical to the earlier result of ${earlier.name} (call ${earlier.toolCallId}) above; the call did run again, its result is not repeated here`,
        sameAsCallId: earlier.toolCallId,
      }),
    };
    return replaced;
  });
}
