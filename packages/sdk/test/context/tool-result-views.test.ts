import { describe, expect, it } from 'vitest';
import {
  formatStoredToolResult,
  storedToolResultView,
  toolResultPageView,
} from '../../src/runtime/context/tool-result-views';
import type { StoredToolResult } from '../../src/runtime/context/tool-result-offer';

const stored: StoredToolResult = {
  kind: 'stored',
  resultId: 'tr_1',
  tool: 'media.search',
  preview: 'abc',
  nextOffset: 3,
  totalChars: 10,
  totalBytes: 10,
  expiresAt: 900_000,
  ttlMs: 900_000,
};

describe('tool-result views', () => {
  it('a stored result shows its metadata before the preview and how to continue', () => {
    const view = storedToolResultView(stored);
    expect(Object.keys(view)).toEqual([
      'truncated',
      'result_id',
      'total_chars',
      'next_offset',
      'how_to_continue',
      'preview',
    ]);
    expect(view).toMatchObject({ truncated: true, result_id: 'tr_1', total_chars: 10, next_offset: 3, preview: 'abc' });
    expect(view.how_to_continue).toContain('call read_tool_result with {"result_id": "tr_1", "offset": 3}');
    expect(view.how_to_continue).toContain('expires 15 minutes after the call');
    expect(JSON.parse(formatStoredToolResult(stored))).toEqual(view);
  });

  it('a page says where it is and whether more follows', () => {
    const middle = toolResultPageView('tr_1', { text: 'def', offset: 3, nextOffset: 6, totalChars: 10 });
    expect(middle).toEqual({
      result_id: 'tr_1',
      offset: 3,
      next_offset: 6,
      total_chars: 10,
      note: 'characters 3–6 of 10; call read_tool_result with offset 6 for more.',
      text: 'def',
    });
    const last = toolResultPageView('tr_1', { text: 'ghij', offset: 6, nextOffset: null, totalChars: 10 });
    expect(last.note).toBe('characters 6–10 of 10; this is the end of the result.');
    expect(last.next_offset).toBeNull();
  });
});
