import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../../src/models/types';
import { fallbackDigest } from '../../src/runtime/context/fallback-digest';
import { summaryMessage } from '../../src/runtime/context/summary-message';
import { toolTurn } from './context-fixtures';

describe('fallback digest', () => {
  it('lists the user messages, each call with its status, and the texts that ended turns', () => {
    const messages: ModelMessage[] = [
      summaryMessage('earlier things', { goal: 'g' }, 4),
      { role: 'user', content: 'Find Dune' },
      ...toolTurn(0, 1, 10, 'unknown'),
      { role: 'assistant', content: [{ type: 'text', text: ' Done. ' }] },
    ];
    expect(fallbackDigest(messages, 'MODEL_TIMEOUT: slow').split('\n')).toEqual([
      'Digest of 5 earlier messages (no model summary: MODEL_TIMEOUT: slow).',
      'Earlier summary: earlier things',
      'User: Find Dune',
      'Tool media.search {"query":"title 0-0"} → unknown',
      'Assistant: Done.',
    ]);
  });

  it('says when a call has no result, and leaves out the text of turns that called tools', () => {
    const [assistant] = toolTurn(1, 1);
    const digest = fallbackDigest([assistant!], 'x');
    expect(digest).toContain('→ no result recorded');
    expect(digest).not.toContain('Step 1');
  });

  it('stays within maxChars, counting what it left out', () => {
    const messages: ModelMessage[] = Array.from({ length: 50 }, (_, i) => ({ role: 'user', content: `message ${i}` }));
    const digest = fallbackDigest(messages, 'x', 200);
    expect(digest.length).toBeLessThanOrEqual(200 + '… and 99 more entries'.length);
    expect(digest).toMatch(/… and \d+ more entries$/);
    expect(fallbackDigest(messages, 'x')).not.toContain('more entries');
  });

  it('truncates long parts', () => {
    const digest = fallbackDigest([{ role: 'user', content: 'x'.repeat(1000) }], 'r'.repeat(500));
    expect(digest).toContain('[truncated, 700 more characters]');
    expect(digest).toContain('[truncated, 300 more characters]');
  });
});
