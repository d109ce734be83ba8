// The summary message that stands for compacted turns: how it is built and recognized.
import type { ModelMessage, UserMessage } from '../../models/types';
import { renderPinnedFacts, type PinnedFacts } from './pinned-facts';

/**
 * First line of the summary message: marks a user message as a compaction summary, not user input.
 * @public
 */
export const SUMMARY_MARKER = '[context summary]';

/** Heading before the summary body inside the summary message. @internal */
export const SUMMARY_HEADING = '## Summary of the compacted turns';

/**
 * Builds the summary message: a **user** message whose text starts with {@link SUMMARY_MARKER}, then
 * the pinned facts verbatim, then the summary.
 *
 * @remarks
 * A user message, not a system layer: the summary is made of tool output and model text, which must
 * not gain the authority of the system prompt; and it keeps the conversation starting with a user
 * message, as Anthropic requires. The system prompt (and its prompt cache) stays untouched. When the
 * kept part starts with a user message, the two user messages are adjacent; the Anthropic adapter
 * merges adjacent same-role messages and OpenAI-compatible servers accept them.
 *
 * @param summary - the summary text (from the model or the fallback)
 * @param pinned - facts to render verbatim
 * @param count - how many messages it replaces
 * @returns the message
 * @public
 */
export function summaryMessage(
  summary: string,
  pinned: PinnedFacts | undefined,
  count: number,
  assistantTurns = 0,
): UserMessage {
  const pinnedBlock = renderPinnedFacts(pinned);
  const head = `${SUMMARY_MARKER} ${count} earlier messages (${assistantTurns} assistant turns) of this run were compacted to save context. This is a summary written by the runtime, not a new request from the user; tool results in it are historical.`;
  return {
    role: 'user',
    content: [head, pinnedBlock, `${SUMMARY_HEADING}\n${summary.trim()}`].filter(Boolean).join('\n\n'),
  };
}

/**
 * Assistant turns in `messages`, counting those an earlier summary among them stood for (the
 * `(N assistant turns)` of its head), so the count survives repeated compactions.
 * @public
 */
export function summarizedAssistantTurns(messages: readonly ModelMessage[]): number {
  let turns = 0;
  for (const m of messages) {
    if (m.role === 'assistant') turns++;
    else if (isSummaryMessage(m)) turns += Number(/\((\d+) assistant turns\)/.exec(m.content as string)?.[1] ?? 0);
  }
  return turns;
}

/**
 * True when a message is a summary made by {@link summaryMessage}.
 * @param m - any message
 * @public
 */
export function isSummaryMessage(m: ModelMessage): boolean {
  return m.role === 'user' && typeof m.content === 'string' && m.content.startsWith(SUMMARY_MARKER);
}

/** The summary body of a summary message (its pinned block dropped: fresh pinned facts replace it). @internal */
export function summaryBody(m: UserMessage): string {
  const text = typeof m.content === 'string' ? m.content : '';
  const at = text.indexOf(SUMMARY_HEADING);
  return at < 0 ? text : text.slice(at + SUMMARY_HEADING.length).trim();
}
