// The loop's rules for replies cut by the output limit and for context-overflow retries.
import { describe, expect, it } from 'vitest';
import type { ToolCallPart } from '../../src/models/types';
import { contextOverflowed, MAX_OVERFLOW_RETRIES, overflowRetryDue } from '../../src/runtime/loop/overflow-retry';
import {
  DEFAULT_MAX_TRUNCATED_TURNS,
  isTruncatedReply,
  truncatedCallFailures,
  truncatedTurnsExhausted,
} from '../../src/models/truncated-reply';

const call = (id: string, name: string): ToolCallPart => ({ type: 'tool_call', id, name, input: {} });

describe('truncated replies', () => {
  it('only a max_tokens stop is a cut reply', () => {
    expect(isTruncatedReply('max_tokens')).toBe(true);
    for (const r of ['end_turn', 'tool_use', 'refusal', 'aborted', 'error', undefined] as const)
      expect(isTruncatedReply(r)).toBe(false);
  });

  it('every call of a cut reply fails TOOL_CALL_TRUNCATED, asking for the call again', () => {
    const failures = truncatedCallFailures([call('c_0', 'download.submit'), call('c_1', 'library.scan')]);
    expect([...failures.keys()]).toEqual(['c_0', 'c_1']);
    for (const f of failures.values()) {
      expect(f.code).toBe('TOOL_CALL_TRUNCATED');
      expect(f.message).toMatch(/not run.*output token limit.*again/);
    }
    expect(failures.get('c_1')!.message).toContain('library.scan');
  });

  it('the run ends at the bound of cut replies in a row (3 by default), never at 0', () => {
    expect(DEFAULT_MAX_TRUNCATED_TURNS).toBe(3);
    expect([0, 1, 2].map((n) => truncatedTurnsExhausted(n))).toEqual([false, false, false]);
    expect(truncatedTurnsExhausted(3)).toBe(true);
    expect(truncatedTurnsExhausted(1, 1)).toBe(true);
    expect(truncatedTurnsExhausted(0, 0)).toBe(false); // a bound below 1 is read as 1
  });
});

describe('context overflow retries', () => {
  const overflow = { code: 'PROVIDER_CONTEXT_OVERFLOW' };
  it('an overflow before any output is retried; after output, aborted, or another error it is not', () => {
    expect(contextOverflowed({ aborted: false, message: { content: [] }, error: overflow })).toBe(true);
    expect(contextOverflowed({ aborted: false, message: { content: [{}] }, error: overflow })).toBe(false);
    expect(contextOverflowed({ aborted: true, message: { content: [] }, error: overflow })).toBe(false);
    expect(contextOverflowed({ aborted: false, message: { content: [] }, error: { code: 'PROVIDER_HTTP' } })).toBe(
      false,
    );
    expect(contextOverflowed({ aborted: false, message: { content: [] } })).toBe(false);
  });

  it('at most two compactions per turn, and none when compaction is off', () => {
    expect(MAX_OVERFLOW_RETRIES).toBe(2);
    expect([0, 1, 2].map((n) => overflowRetryDue(n, true))).toEqual([true, true, false]);
    expect(overflowRetryDue(0, false)).toBe(false);
    expect(overflowRetryDue(0, true, 0)).toBe(false);
  });
});
