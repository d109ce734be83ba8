// The deterministic summary used when the summarizer fails.
import type { ModelMessage, ToolResultMessage, UserMessage } from '../../models/types';
import { messageText, toolResultStatus, truncateText } from './message-text';
import { isSummaryMessage, summaryBody } from './summary-message';

/**
 * The deterministic summary used when the summarizer fails: the user messages, every tool call with
 * its arguments and status, and the assistant texts that ended turns, each truncated.
 * @param messages - the messages being compacted
 * @param reason - why the model summary is not available
 * @param maxChars - ceiling of the digest in characters (default 12,000)
 * @returns the digest text
 * @public
 */
export function fallbackDigest(messages: readonly ModelMessage[], reason: string, maxChars = 12_000): string {
  const results = new Map<string, ToolResultMessage>();
  for (const m of messages) if (m.role === 'tool') results.set(m.toolCallId, m);
  const lines: string[] = [
    `Digest of ${messages.length} earlier messages (no model summary: ${truncateText(reason, 200)}).`,
  ];
  for (const m of messages) {
    if (isSummaryMessage(m)) lines.push(`Earlier summary: ${truncateText(summaryBody(m as UserMessage), 2000)}`);
    else if (m.role === 'user') lines.push(`User: ${truncateText(messageText(m.content), 300)}`);
    else if (m.role === 'assistant') {
      const calls = m.content.filter((p) => p.type === 'tool_call');
      for (const p of calls) {
        const r = results.get(p.id);
        lines.push(
          `Tool ${p.name} ${truncateText(JSON.stringify(p.input ?? {}), 200)} → ${r ? toolResultStatus(r) : 'no result recorded'}`,
        );
      }
      const text = m.content
        .flatMap((p) => (p.type === 'text' ? [p.text] : []))
        .join('')
        .trim();
      if (text && calls.length === 0) lines.push(`Assistant: ${truncateText(text, 400)}`);
    }
  }
  let out = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (out.length + line.length + 1 > maxChars) {
      out += `… and ${lines.length - i} more entries`;
      break;
    }
    out += `${line}\n`;
  }
  return out.trimEnd();
}
