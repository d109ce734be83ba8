// Plain text of model messages, for summaries and digests.
import type { ModelMessage, ToolResultMessage } from '../../models/types';

/**
 * Text of a message's content: text parts as they are, `[image]` for an image, `[tool call <name>]` for a call,
 * nothing for thinking.
 * @param content - the content
 * @internal
 */
export function messageText(content: ModelMessage['content']): string {
  if (typeof content === 'string') return content;
  return content
    .map((p) =>
      p.type === 'text'
        ? p.text
        : p.type === 'image'
          ? '[image]'
          : p.type === 'thinking'
            ? ''
            : `[tool call ${p.name}]`,
    )
    .join('');
}

/**
 * Cuts `s` to `max` characters (code points kept whole) with an explicit marker.
 * @param s - the text
 * @param max - most characters kept (one fewer when the last would split a surrogate pair)
 * @internal
 */
export function truncateText(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${s.slice(0, end)}… [truncated, ${s.length - end} more characters]`;
}

/**
 * The status a tool result reports: the `status` field of its JSON, else the message status.
 * @param m - the tool result
 * @internal
 */
export function toolResultStatus(m: ToolResultMessage): string {
  const text = messageText(m.content);
  try {
    const body = JSON.parse(text) as { status?: unknown };
    if (typeof body.status === 'string') return body.status;
  } catch {
    /* not JSON */
  }
  return m.status;
}
