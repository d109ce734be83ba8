import { describe, expect, it } from 'vitest';
import type { ModelMessage, UserMessage } from '../../src/models/types';
import {
  isSummaryMessage,
  SUMMARY_HEADING,
  SUMMARY_MARKER,
  summarizedAssistantTurns,
  summaryBody,
  summaryMessage,
} from '../../src/runtime/context/summary-message';

describe('summary message', () => {
  it('is a user message: marker and head, pinned facts, then the summary', () => {
    const m = summaryMessage('  what happened  ', { goal: 'Add Dune' }, 12, 4);
    expect(m.role).toBe('user');
    const text = m.content as string;
    expect(text.startsWith(`${SUMMARY_MARKER} 12 earlier messages (4 assistant turns)`)).toBe(true);
    expect(text.indexOf('### Goal\nAdd Dune')).toBeLessThan(text.indexOf(SUMMARY_HEADING));
    expect(text.endsWith(`${SUMMARY_HEADING}\nwhat happened`)).toBe(true);
    expect(summaryMessage('s', undefined, 1).content).not.toContain('Pinned facts');
  });

  it('is recognized by its marker, only as a user message with text content', () => {
    expect(isSummaryMessage(summaryMessage('s', undefined, 1))).toBe(true);
    expect(isSummaryMessage({ role: 'user', content: 'hello' })).toBe(false);
    expect(isSummaryMessage({ role: 'system', content: `${SUMMARY_MARKER} x` })).toBe(false);
    expect(isSummaryMessage({ role: 'user', content: [{ type: 'text', text: `${SUMMARY_MARKER} x` }] })).toBe(false);
  });

  it('its body drops the pinned block', () => {
    expect(summaryBody(summaryMessage('the body', { goal: 'g' }, 3))).toBe('the body');
    expect(summaryBody({ role: 'user', content: 'no heading' } as UserMessage)).toBe('no heading');
  });

  it('assistant turns count those an earlier summary stood for', () => {
    const messages: ModelMessage[] = [
      summaryMessage('s', undefined, 9, 5),
      { role: 'assistant', content: [] },
      { role: 'user', content: 'u' },
      { role: 'assistant', content: [] },
    ];
    expect(summarizedAssistantTurns(messages)).toBe(7);
    expect(summarizedAssistantTurns([summaryMessage('s', undefined, 9, 5), summaryMessage('t', undefined, 3, 2)])).toBe(
      7,
    );
    expect(summarizedAssistantTurns([])).toBe(0);
  });
});
