// The pure rules of the outbox: splitting text, the plain-text fallback, reply → rows, retry decisions.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isMediaAgentError } from '../../src/core/errors';
import { ChannelError } from '../../src/ports/channel-errors';
import type { ChannelCapabilities } from '../../src/ports/channel';
import { outboxKey, outboxRowsForEdit, outboxRowsForReply } from '../../src/runtime/channels/outbox-rows';
import { outboxBackoffMs, outboxRetryDecision } from '../../src/runtime/channels/outbox-retry';
import { escapeHtml, markdownToPlain } from '../../src/runtime/channels/plain-text';
import { splitText } from '../../src/runtime/channels/split-text';

const caps = (over: Partial<ChannelCapabilities> = {}): ChannelCapabilities => ({
  edit: true,
  buttons: true,
  maxLength: 4096,
  formatting: 'markdown',
  dedupe: 'none',
  ...over,
});

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

describe('splitText', () => {
  it('property: the parts joined are the text, each is 1..maxLength long, and no cut falls inside a surrogate pair', () => {
    const textArb = fc.array(
      fc.oneof(
        fc.constantFrom('\n\n', '\n', ' ', '🎬', '電影', 'é', 'word', '👨‍👩‍👧'),
        fc.string({ maxLength: 12 }),
        fc.string({ unit: 'grapheme', maxLength: 6 }),
      ),
      { maxLength: 80 },
    );
    fc.assert(
      fc.property(textArb, fc.integer({ min: 2, max: 64 }), (pieces, maxLength) => {
        const text = pieces.join('');
        const parts = splitText(text, maxLength);
        expect(parts.join('')).toBe(text);
        for (const part of parts) {
          expect(part.length).toBeGreaterThan(0);
          expect(part.length).toBeLessThanOrEqual(maxLength);
        }
        let at = 0;
        for (const part of parts.slice(0, -1)) {
          at += part.length;
          expect(isHigh(text.charCodeAt(at - 1)) && isLow(text.charCodeAt(at))).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('cuts after a paragraph break, else a line break, else a space, keeping the separator with the part before', () => {
    expect(splitText('first paragraph\n\nsecond one', 20)).toEqual(['first paragraph\n\n', 'second one']);
    expect(splitText('line one here\nline two', 16)).toEqual(['line one here\n', 'line two']);
    expect(splitText('alpha beta gamma delta', 12)).toEqual(['alpha beta ', 'gamma delta']);
    // A paragraph break too early (less than half the window) loses to a later word boundary.
    expect(splitText('a\n\nbbbbbbbb cccc', 12)).toEqual(['a\n\nbbbbbbbb ', 'cccc']);
  });

  it('cuts a word without spaces at maxLength, one unit earlier when that would split a surrogate pair', () => {
    expect(splitText('abcdefgh', 3)).toEqual(['abc', 'def', 'gh']);
    expect(splitText('ab🎬cd', 3)).toEqual(['ab', '🎬c', 'd']);
    expect(splitText('🎬🎬🎬', 2)).toEqual(['🎬', '🎬', '🎬']);
  });

  it('gives no part for an empty text and the text itself when it fits', () => {
    expect(splitText('', 10)).toEqual([]);
    expect(splitText('short', 10)).toEqual(['short']);
    expect(splitText('x'.repeat(10), 10)).toEqual(['x'.repeat(10)]);
  });

  it('refuses a maxLength under 2 or not an integer with OPTIONS_INVALID', () => {
    for (const bad of [1, 0, -5, 2.5, Number.NaN])
      expect(() => splitText('abc', bad)).toThrow(
        expect.objectContaining({ code: 'OPTIONS_INVALID' }) as unknown as Error,
      );
  });
});

describe('markdownToPlain and escapeHtml', () => {
  it('drops emphasis, headings, code marks, quotes and fences; writes links as label (url)', () => {
    expect(markdownToPlain('# Title\n**Dune** is _great_ and *fun*; see [here](https://x.org/a)')).toBe(
      'Title\nDune is great and fun; see here (https://x.org/a)',
    );
    expect(markdownToPlain('```ts\nconst a = 1;\n```\nuse `a`\n> quoted')).toBe('const a = 1;\nuse a\nquoted');
    expect(markdownToPlain('snake_case_name and 2*3*4 stay')).toBe('snake_case_name and 2*3*4 stay');
    expect(markdownToPlain('- item one\n- item two')).toBe('- item one\n- item two');
  });

  it('escapes &, < and >', () => {
    expect(escapeHtml('a < b && c > d')).toBe('a &lt; b &amp;&amp; c &gt; d');
  });
});

describe('outboxRowsForReply', () => {
  const reply = {
    runId: 'run-1',
    stepKey: '17',
    channelId: 'telegram:home',
    chatId: '42',
    kind: 'text' as const,
    createdAt: 1000,
  };

  it('one row per part, keys <runId>:<stepKey>:<part>, reply target on the first part, buttons on the last', () => {
    const buttons = [[{ label: 'Yes', data: 'y' }]];
    const rows = outboxRowsForReply(
      { ...reply, text: 'aaaa bbbb cccc', replyTo: '99', buttons },
      caps({ maxLength: 5 }),
    );
    expect(rows.map((r) => r.payload.text)).toEqual(['aaaa ', 'bbbb ', 'cccc']);
    expect(rows.map((r) => r.idempotencyKey)).toEqual(['run-1:17:0', 'run-1:17:1', 'run-1:17:2']);
    expect(rows.map((r) => r.id)).toEqual(['outbox:run-1:17:0', 'outbox:run-1:17:1', 'outbox:run-1:17:2']);
    expect(rows.map((r) => r.payload.replyTo)).toEqual(['99', undefined, undefined]);
    expect(rows.map((r) => r.payload.buttons)).toEqual([undefined, undefined, buttons]);
    expect(rows.every((r) => r.kind === 'text' && r.runId === 'run-1' && r.createdAt === 1000)).toBe(true);
  });

  it('is deterministic: the same reply gives the same rows (a re-committed step cannot duplicate them)', () => {
    const a = outboxRowsForReply({ ...reply, text: 'x'.repeat(50) }, caps({ maxLength: 7 }));
    const b = outboxRowsForReply({ ...reply, text: 'x'.repeat(50) }, caps({ maxLength: 7 }));
    expect(b).toEqual(a);
    expect(new Set(a.map((r) => r.idempotencyKey)).size).toBe(a.length);
  });

  it('plain formatting gets the text without markup; html gets it escaped; buttons are dropped without buttons', () => {
    const text = '**Dune** <2021>';
    expect(outboxRowsForReply({ ...reply, text }, caps({ formatting: 'plain' }))[0]!.payload.text).toBe('Dune <2021>');
    expect(outboxRowsForReply({ ...reply, text }, caps({ formatting: 'html' }))[0]!.payload.text).toBe(
      'Dune &lt;2021&gt;',
    );
    expect(outboxRowsForReply({ ...reply, text }, caps())[0]!.payload.text).toBe(text);
    const noButtons = outboxRowsForReply(
      { ...reply, kind: 'choice', text: 'Pick', buttons: [[{ label: 'A', data: 'a' }]] },
      caps({ buttons: false }),
    );
    expect(noButtons[0]!.payload.buttons).toBeUndefined();
  });

  it('property (plain): the parts joined are the plain text and each fits maxLength', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.integer({ min: 2, max: 40 }), (text, max) => {
        const rows = outboxRowsForReply({ ...reply, text }, caps({ formatting: 'plain', maxLength: max }));
        expect(rows.map((r) => r.payload.text).join('')).toBe(markdownToPlain(text));
        for (const r of rows) expect(r.payload.text.length).toBeLessThanOrEqual(max);
      }),
      { numRuns: 300 },
    );
  });

  it('an empty text gives no row, unless there are buttons to show', () => {
    expect(outboxRowsForReply({ ...reply, text: '' }, caps())).toEqual([]);
    const rows = outboxRowsForReply({ ...reply, text: '', buttons: [[{ label: 'A', data: 'a' }]] }, caps());
    expect(rows.map((r) => r.payload)).toEqual([{ text: '', buttons: [[{ label: 'A', data: 'a' }]] }]);
    expect(outboxKey(null, 'n1', 0)).toBe('-:n1:0');
  });
});

describe('outboxRowsForEdit', () => {
  it('one edit row with the first part and its target; the rest of a long text as text rows', () => {
    const rows = outboxRowsForEdit(
      {
        runId: 'run-1',
        stepKey: 's9',
        channelId: 'c',
        chatId: '1',
        editOf: 'outbox:run-1:17:0',
        text: 'aaaa bbbb',
        buttons: null,
        createdAt: 5,
      },
      caps({ maxLength: 5 }),
    );
    expect(rows.map((r) => [r.kind, r.payload])).toEqual([
      ['edit', { text: 'aaaa ', editOf: 'outbox:run-1:17:0', buttons: null }],
      ['text', { text: 'bbbb' }],
    ]);
  });
});

describe('outboxRetryDecision', () => {
  const now = 1_000_000;
  it('rate limited: retry after retryAfterMs (1 s when none is given)', () => {
    expect(
      outboxRetryDecision(new ChannelError('CHANNEL_RATE_LIMITED', 'slow', { retryAfterMs: 7000 }), 1, now),
    ).toEqual({ action: 'retry', notBefore: now + 7000, error: 'CHANNEL_RATE_LIMITED: slow' });
    expect(outboxRetryDecision(new ChannelError('CHANNEL_RATE_LIMITED', 'slow'), 3, now)).toMatchObject({
      action: 'retry',
      notBefore: now + 1000,
    });
  });

  it('rejected and too long: fail for good', () => {
    expect(outboxRetryDecision(new ChannelError('CHANNEL_REJECTED', 'chat not found'), 1, now)).toEqual({
      action: 'fail',
      error: 'CHANNEL_REJECTED: chat not found',
    });
    expect(outboxRetryDecision(new ChannelError('CHANNEL_MESSAGE_TOO_LONG', 'too long'), 1, now).action).toBe('fail');
  });

  it('unavailable, and untyped errors: exponential backoff capped at 5 minutes, forever', () => {
    const waits = [1, 2, 3, 4, 9, 10, 1000].map(
      (n) =>
        (outboxRetryDecision(new ChannelError('CHANNEL_UNAVAILABLE', 'down'), n, now) as { notBefore: number })
          .notBefore - now,
    );
    expect(waits).toEqual([1000, 2000, 4000, 8000, 256_000, 300_000, 300_000]);
    expect(outboxRetryDecision(new TypeError('fetch failed'), 1, now)).toEqual({
      action: 'retry',
      notBefore: now + 1000,
      error: 'CHANNEL_UNAVAILABLE: fetch failed',
    });
    expect(outboxBackoffMs(2, 500, 1500)).toBe(1000);
    expect(outboxBackoffMs(5, 500, 1500)).toBe(1500);
    expect(isMediaAgentError(new ChannelError('CHANNEL_UNAVAILABLE', 'x'), 'CHANNEL_UNAVAILABLE')).toBe(true);
  });
});
