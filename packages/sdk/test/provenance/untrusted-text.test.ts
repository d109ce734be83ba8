// Normalizing text for matching, and removing invisible code points (one set shared with memory's threat scan).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstInvisible } from '../../src/core/invisible-chars';
import { MIN_TAINT_MATCH_CHARS, normalizeForMatch, stripInvisible } from '../../src/core/untrusted-text';
import { scanThreats } from '../../src/memory/threat-scan';

describe('normalizeForMatch', () => {
  it.each([
    ['Dune.2024.2160p', 'dune 2024 2160p'],
    ['dune 2024 2160p', 'dune 2024 2160p'],
    ['  /media/tv/  ', 'media tv'],
    ['Ｄｕｎｅ．２０２４', 'dune 2024'], // full-width (NFKC)
    ['Dunе', 'dune'], // Cyrillic е
    ['аеорсухіјѕ', 'aeopcyxijs'], // Cyrillic look-alikes
    ['ονραε', 'ovpae'], // Greek look-alikes
    ['ΝΑΤΟ', 'nato'], // Greek capitals look like Latin capitals
    ['Amélie_(2001)', 'amelie 2001'], // diacritics dropped, underscore is a separator
    ['del\u200Bete\u202E /me\u00ADdia', 'delete media'], // zero-width, bidi, soft hyphen
    ['ﬁle', 'file'], // ligature (NFKC)
    ['千と千尋の神隠し', '千と千尋の神隠し'],
    ['!!!', ''],
  ])('%j → %j', (text, normal) => {
    expect(normalizeForMatch(text)).toBe(normal);
  });

  it('is idempotent and yields only letters, digits and single inner spaces', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 100 }), (text) => {
        const normal = normalizeForMatch(text);
        expect(normalizeForMatch(normal)).toBe(normal);
        expect(normal).not.toMatch(/^\s|\s$|\s\s/u);
        expect(normal).toBe(normal.toLowerCase());
      }),
      { numRuns: 300 },
    );
  });

  it('the match threshold is 8 characters (`/media/tv` reaches it)', () => {
    expect(MIN_TAINT_MATCH_CHARS).toBe(8);
    expect(normalizeForMatch('/media/tv')).toHaveLength(8);
  });
});

describe('stripInvisible', () => {
  it('removes bidi controls, zero-width, tag characters, soft hyphen, variation selectors, controls; keeps tab and newlines', () => {
    expect(
      stripInvisible('a\u202Eb\u2066c\u2069d\u200Be\u200Cf\u200Dg\uFEFFh\u00ADi\u{E0041}j\uFE0Fk\u0000l\u001Bm\u0085n'),
    ).toBe('abcdefghijklmn');
    expect(stripInvisible('line\r\n\tnext')).toBe('line\r\n\tnext');
    expect(stripInvisible('Dune 2024')).toBe('Dune 2024');
  });

  it('removes every code point the memory threat scan reports as invisible', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        expect(firstInvisible(stripInvisible(text))).toBeUndefined();
      }),
      { numRuns: 500 },
    );
    for (let cp = 0; cp <= 0xffff; cp++) {
      const ch = String.fromCharCode(cp);
      if (firstInvisible(ch) !== undefined) expect(stripInvisible(ch), `U+${cp.toString(16)}`).toBe('');
    }
  });

  it('the threat scan still reports invisible code points (its behaviour is unchanged)', () => {
    expect(scanThreats('hello\u200Bworld')).toEqual({ id: 'invisible_unicode_U+200B', category: 'invisible_unicode' });
    expect(scanThreats('flag \u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}')).toBeUndefined();
    expect(scanThreats('one selector ❤\uFE0F')).toBeUndefined();
    expect(scanThreats('stacked \uFE00\uFE01')).toMatchObject({ category: 'invisible_unicode' });
  });
});
