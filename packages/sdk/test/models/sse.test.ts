import { describe, expect, it } from 'vitest';
import { SseParser, type SseEvent } from '../../src/models/sse';

function parse(...chunks: Array<string | Uint8Array>): SseEvent[] {
  const p = new SseParser();
  const out: SseEvent[] = [];
  for (const c of chunks) out.push(...p.feed(typeof c === 'string' ? Buffer.from(c, 'utf8') : c));
  out.push(...p.end());
  return out;
}

describe('SseParser (WHATWG event stream rules)', () => {
  it('dispatches an event at a blank line with the event name and data', () => {
    expect(parse('event: ping\ndata: {"a":1}\n\n')).toEqual([{ event: 'ping', data: '{"a":1}', id: '' }]);
  });

  it('names an event without an event field "message"', () => {
    expect(parse('data: x\n\n')[0]?.event).toBe('message');
  });

  it('joins several data lines of one event with a newline', () => {
    expect(parse('data: a\ndata: b\n\n')[0]?.data).toBe('a\nb');
  });

  it('accepts CRLF, LF and lone CR line endings', () => {
    expect(parse('data: a\r\n\r\ndata: b\n\ndata: c\r\rdata: d\r\n\n').map((e) => e.data)).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
  });

  it('treats a CRLF split across two chunks as one line ending', () => {
    expect(parse('data: a\r', '\n\r', '\ndata: b\n\n').map((e) => e.data)).toEqual(['a', 'b']);
  });

  it('parses the same events when the bytes are split at every possible position, including inside UTF-8 sequences', () => {
    const wire =
      'event: content_block_delta\ndata: {"text":"925 ÷ 5 = 185 — 沙丘"}\n\n: comment\n\nevent: message_stop\ndata: {}\n\n';
    const bytes = Buffer.from(wire, 'utf8');
    const whole = parse(bytes);
    for (let i = 1; i < bytes.length; i++) expect(parse(bytes.subarray(0, i), bytes.subarray(i))).toEqual(whole);
    expect(parse(...[...bytes].map((b) => Uint8Array.of(b)))).toEqual(whole);
  });

  it('ignores comment lines starting with a colon', () => {
    expect(parse(': keep-alive\n\ndata: x\n\n').map((e) => e.data)).toEqual(['x']);
  });

  it('removes exactly one space after the colon', () => {
    expect(parse('data:  two\n\ndata:none\n\n').map((e) => e.data)).toEqual([' two', 'none']);
  });

  it('does not dispatch an event that has no data line', () => {
    expect(parse('event: ping\n\n')).toEqual([]);
  });

  it('treats a line without a colon as a field with an empty value', () => {
    expect(parse('data\n\n')).toEqual([{ event: 'message', data: '', id: '' }]);
  });

  it('drops a leading byte-order mark', () => {
    expect(parse('\uFEFFdata: x\n\n')[0]?.data).toBe('x');
  });

  it('keeps the last event id and ignores ids containing NUL', () => {
    expect(parse('id: 7\ndata: a\n\nid: 8\0\ndata: b\n\n').map((e) => e.id)).toEqual(['7', '7']);
  });

  it('reads retry only when it is all digits', () => {
    expect(parse('retry: 250\ndata: a\n\nretry: x\ndata: b\n\n').map((e) => e.retry)).toEqual([250, undefined]);
  });

  it('dispatches a final event that the stream ended without a blank line', () => {
    expect(parse('data: [DONE]').map((e) => e.data)).toEqual(['[DONE]']);
  });
});
