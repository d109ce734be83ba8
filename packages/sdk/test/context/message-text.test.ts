import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messageText, toolResultStatus, truncateText } from '../../src/runtime/context/message-text';
import type { ToolResultMessage } from '../../src/models/types';

const result = (
  content: ToolResultMessage['content'],
  status: ToolResultMessage['status'] = 'ok',
): ToolResultMessage => ({
  role: 'tool',
  toolCallId: 'c1',
  name: 't',
  status,
  content,
});

describe('message text', () => {
  it('renders parts as text', () => {
    expect(messageText('plain')).toBe('plain');
    expect(
      messageText([
        { type: 'text', text: 'a' },
        { type: 'image', mediaType: 'image/png', data: 'xx' },
        { type: 'thinking', thinking: 'hidden' } as never,
        { type: 'tool_call', id: '1', name: 'media.search', input: {} } as never,
        { type: 'text', text: 'b' },
      ]),
    ).toBe('a[image][tool call media.search]b');
  });

  it('truncates with a marker, never splitting a surrogate pair', () => {
    expect(truncateText('short', 5)).toBe('short');
    expect(truncateText('abcdef', 3)).toBe('abc… [truncated, 3 more characters]');
    expect(truncateText('a😀b', 2)).toBe('a… [truncated, 3 more characters]');
  });

  it('a truncated text starts with a whole-code-point prefix of the original', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.nat(40), (s, max) => {
        const out = truncateText(s, max);
        if (s.length <= max) {
          expect(out).toBe(s);
          return;
        }
        const kept = out.slice(0, out.indexOf('… [truncated'));
        expect(s.startsWith(kept)).toBe(true);
        expect(kept.length).toBeLessThanOrEqual(max);
        expect(Array.from(kept).join('')).toBe(kept);
        expect(out).toContain(`${s.length - kept.length} more characters`);
      }),
    );
  });

  it('a tool result’s status is its JSON status field, else the message status', () => {
    expect(toolResultStatus(result('{"status":"unknown","output":1}'))).toBe('unknown');
    expect(toolResultStatus(result('{"status":3}', 'error'))).toBe('error');
    expect(toolResultStatus(result('not json', 'unknown'))).toBe('unknown');
    expect(toolResultStatus(result([{ type: 'text', text: '{"status":"pending"}' }]))).toBe('pending');
  });
});
