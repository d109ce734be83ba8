import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../../src/models/types';
import { COMPACTION_SUMMARY_PROMPT, summaryRequestMessages } from '../../src/runtime/context/summary-request';
import { summaryMessage } from '../../src/runtime/context/summary-message';
import { toolTurn } from './context-fixtures';

describe('summary request', () => {
  it('is the summary prompt and one user message with a plain-text transcript', () => {
    const messages: ModelMessage[] = [
      summaryMessage('before', { goal: 'g' }, 2),
      { role: 'system', content: 'note' },
      { role: 'user', content: 'Find Dune' },
      ...toolTurn(0, 1, 10),
    ];
    const [system, user, ...rest] = summaryRequestMessages(messages);
    expect(rest).toEqual([]);
    expect(system).toEqual({ role: 'system', content: COMPACTION_SUMMARY_PROMPT });
    expect(user?.role).toBe('user');
    const text = user?.content as string;
    expect(
      text.startsWith(
        'Transcript to summarize:\n\n[earlier summary]\nbefore\n\n[system note]\nnote\n\n[user]\nFind Dune',
      ),
    ).toBe(true);
    expect(text).toContain('[assistant]\nStep 0: looking things up.');
    expect(text).toContain('[tool call media.search call_0_0]\n{"query":"title 0-0"}');
    expect(text).toContain('[tool result media.search call_0_0]\n');
    // the earlier summary's pinned block is not passed on (fresh facts replace it)
    expect(text).not.toContain('### Goal');
  });

  it('truncates each part to partChars and skips empty assistant text', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'x'.repeat(50) },
      { role: 'assistant', content: [{ type: 'text', text: '   ' }] },
    ];
    const text = summaryRequestMessages(messages, 10)[1]?.content as string;
    expect(text).toBe('Transcript to summarize:\n\n[user]\nxxxxxxxxxx… [truncated, 40 more characters]');
  });
});
