// The model call that summarizes compacted turns.
import type { ModelMessage, UserMessage } from '../../models/types';
import { COMPACTION_DEFAULTS } from './compaction-settings';
import { messageText, truncateText } from './message-text';
import { isSummaryMessage, summaryBody } from './summary-message';

/**
 * The system prompt of a summarization call (used by {@link summaryRequestMessages}).
 * @public
 */
export const COMPACTION_SUMMARY_PROMPT =
  'You compact the history of an agent run. Summarize the transcript below for the agent that continues the run: what the user asked, what was done (tool calls and their outcomes: succeeded, pending, unknown, failed, denied), what was learned (ids, titles, paths, numbers), and what remains. Keep ids and numbers exact. Say plainly which outcomes are unknown or pending: never present them as done. Do not invent. Be concise; plain text.';

/**
 * The messages of a summarization model call for `messages`: a system prompt and one user message
 * holding a plain-text transcript (tool calls and results rendered as text, so the call needs no
 * tools and carries no tool-call pairing rules). Long parts are truncated for the summarizer.
 * @param messages - the messages to summarize
 * @param partChars - ceiling per part in characters (default 4000)
 * @returns messages for `ModelProvider.stream`
 * @public
 */
export function summaryRequestMessages(
  messages: readonly ModelMessage[],
  partChars: number = COMPACTION_DEFAULTS.summarizerPartChars,
): ModelMessage[] {
  const lines: string[] = [];
  for (const m of messages) {
    if (isSummaryMessage(m)) lines.push(`[earlier summary]\n${truncateText(summaryBody(m as UserMessage), partChars)}`);
    else if (m.role === 'system') lines.push(`[system note]\n${truncateText(m.content, partChars)}`);
    else if (m.role === 'user') lines.push(`[user]\n${truncateText(messageText(m.content), partChars)}`);
    else if (m.role === 'tool')
      lines.push(`[tool result ${m.name} ${m.toolCallId}]\n${truncateText(messageText(m.content), partChars)}`);
    else
      for (const p of m.content) {
        if (p.type === 'text' && p.text.trim()) lines.push(`[assistant]\n${truncateText(p.text, partChars)}`);
        else if (p.type === 'tool_call')
          lines.push(`[tool call ${p.name} ${p.id}]\n${truncateText(JSON.stringify(p.input ?? {}), partChars)}`);
      }
  }
  return [
    { role: 'system', content: COMPACTION_SUMMARY_PROMPT },
    { role: 'user', content: `Transcript to summarize:\n\n${lines.join('\n\n')}` },
  ];
}
