import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SANDBOX_DEFAULT_LIBRARY, SANDBOX_TITLES } from '../../src/testing';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The rows of the README's sandbox-titles table, as cells. */
function tableRows(): string[][] {
  const block = /<!-- sandbox-titles:start[^>]*-->\n([\s\S]*?)<!-- sandbox-titles:end -->/.exec(readme)?.[1];
  if (!block) throw new Error('the sdk README has no sandbox-titles table');
  return block
    .trim()
    .split('\n')
    .slice(2) // header and separator
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
}

describe('the sandbox catalog is documented in one place', () => {
  it('the sdk README table lists exactly SANDBOX_TITLES, in order, with their kinds, years, ids, other titles and the starting library', () => {
    const rows = tableRows();
    expect(rows.map((r) => r[0])).toEqual(SANDBOX_TITLES.map((t) => t.title));
    SANDBOX_TITLES.forEach((t, i) => {
      const [, kind, year, tmdb, names, ids, inLibrary] = rows[i]!;
      expect({ kind, year, tmdb }).toEqual({ kind: t.kind, year: String(t.year), tmdb: t.mediaId });
      const otherTitles = [
        ...new Set([t.originalTitle, t.localizedTitle].filter((n): n is string => !!n && n !== t.title)),
      ];
      expect(names ? names.split(' / ') : []).toEqual(otherTitles);
      const otherIds = [
        t.externalIds.douban && `douban:${t.externalIds.douban}`,
        t.externalIds.imdb && `imdb:${t.externalIds.imdb}`,
      ].filter(Boolean);
      expect(ids ? ids.split(', ') : []).toEqual(otherIds);
      expect(inLibrary === 'yes').toBe(SANDBOX_DEFAULT_LIBRARY.includes(`tmdb:${t.mediaId}`));
    });
  });
});
