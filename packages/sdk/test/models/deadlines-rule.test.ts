// The pure rule of a request's deadlines (src/models/call-deadlines.ts): which phase is next and when it falls.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FIRST_CONTENT_TIMEOUT_MS,
  DEFAULT_TOTAL_TIMEOUT_MS,
  isContentEvent,
  nextDeadline,
  resolveDeadlines,
} from '../../src/models/call-deadlines';
import type { ModelEvent } from '../../src/models/types';

describe('nextDeadline', () => {
  const d = { firstContentMs: 300, totalMs: 900 };

  it('before content: first content, counted from the send', () => {
    expect(nextDeadline(d, 1000, false)).toEqual({ phase: 'first_content', at: 1300, timeoutMs: 300 });
  });

  it('after content: total, still counted from the send', () => {
    expect(nextDeadline(d, 1000, true)).toEqual({ phase: 'total', at: 1900, timeoutMs: 900 });
  });

  it('a total shorter than first content falls first, even before content', () => {
    expect(nextDeadline({ firstContentMs: 900, totalMs: 300 }, 0, false)).toEqual({
      phase: 'total',
      at: 300,
      timeoutMs: 300,
    });
  });

  it('a tie names first content (the more precise cause)', () => {
    expect(nextDeadline({ firstContentMs: 500, totalMs: 500 }, 0, false).phase).toBe('first_content');
  });
});

describe('resolveDeadlines', () => {
  it('defaults: 300 s to first content (and to the headers), 120 s idle, 900 s in all, for slow local models', () => {
    expect(resolveDeadlines({})).toEqual({
      firstContentMs: 300_000,
      totalMs: 900_000,
      firstByteMs: 300_000,
      idleMs: 120_000,
    });
    expect([DEFAULT_FIRST_CONTENT_TIMEOUT_MS, DEFAULT_TOTAL_TIMEOUT_MS]).toEqual([300_000, 900_000]);
  });

  it('keeps the given values', () => {
    expect(resolveDeadlines({ firstContentTimeoutMs: 5, totalTimeoutMs: 7 })).toEqual({
      firstContentMs: 5,
      totalMs: 7,
      firstByteMs: 5,
      idleMs: 120_000,
    });
  });
});

describe('isContentEvent', () => {
  const content: ModelEvent[] = [
    { type: 'text_delta', text: 'a' },
    { type: 'thinking_delta', thinking: 'b' } as ModelEvent,
    { type: 'tool_call_start', id: 't', name: 'x' },
    { type: 'tool_call_delta', id: 't', argumentsDelta: '{' },
  ];
  const other: ModelEvent[] = [
    { type: 'usage', usage: { inputTokens: 1, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    { type: 'warning', warning: { code: 'W', message: 'w' } },
    { type: 'done', stopReason: 'end_turn' },
  ];
  it('text, thinking and tool calls are content; usage, warnings and done are not', () => {
    expect(content.map(isContentEvent)).toEqual([true, true, true, true]);
    expect(other.map(isContentEvent)).toEqual([false, false, false]);
  });
});
