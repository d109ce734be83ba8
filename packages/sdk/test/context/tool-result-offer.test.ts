import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexCodePoints } from '../../src/runtime/context/text-units';
import { fitsInline, previewOf, tooLargeResult } from '../../src/runtime/context/tool-result-offer';

const utf8 = (s: string) => new TextEncoder().encode(s).length;

describe('tool-result offer rules', () => {
  it('a text is inline up to previewBytes UTF-8 bytes', () => {
    expect(fitsInline('a'.repeat(64), 64)).toBe(true);
    expect(fitsInline('a'.repeat(65), 64)).toBe(false);
    // 22 CJK characters: short in UTF-16 units, 66 bytes
    expect(fitsInline('界'.repeat(21), 64)).toBe(true);
    expect(fitsInline('界'.repeat(22), 64)).toBe(false);
  });

  it('agrees with the UTF-8 length for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), fc.integer({ min: 1, max: 120 }), (text, preview) => {
        expect(fitsInline(text, preview)).toBe(utf8(text) <= preview);
      }),
    );
  });

  it('a too-large result names its size and the limit and tells the model to narrow the query', () => {
    const r = tooLargeResult('media.search', 2_000_000, 1_048_576);
    expect(r).toMatchObject({ kind: 'too_large', totalBytes: 2_000_000, maxResultBytes: 1_048_576 });
    expect(r.message).toContain('1.9 MiB (2000000 bytes), over the 1 MiB limit');
    expect(r.message).toContain('Narrow the query');
  });

  it('the preview is a prefix of whole code points whose escaped form fits the bytes', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }),
        fc.integer({ min: 2, max: 64 }),
        (text, bytes) => {
          const index = indexCodePoints(text);
          const { preview, nextOffset } = previewOf(text, index, bytes);
          expect(text.startsWith(preview)).toBe(true);
          expect([...preview]).toHaveLength(nextOffset);
          expect(utf8(JSON.stringify(preview))).toBeLessThanOrEqual(bytes);
        },
      ),
    );
  });

  it('escaping counts: quotes and backslashes take two bytes each in the preview', () => {
    const text = '"'.repeat(20);
    expect(previewOf(text, indexCodePoints(text), 12)).toEqual({ preview: '"'.repeat(5), nextOffset: 5 });
  });
});
