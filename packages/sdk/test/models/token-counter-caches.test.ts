// The counter's caches (per encoding; short texts in a map of their own) give tiktoken's own counts,
// for every model switch and every text length, first time and again.
import fc from 'fast-check';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { encodingForModel, TiktokenCounter } from '../../src/models/token-counter';

const tiktoken = createRequire(import.meta.url)('tiktoken') as typeof import('tiktoken');

describe('TiktokenCounter caches', () => {
  it('a text counted again, for another model, or after other texts, counts what tiktoken counts', () => {
    const c = new TiktokenCounter({ cacheSize: 8, minCachedLength: 12 });
    const encoders = new Map(
      (['o200k_base', 'cl100k_base'] as const).map((name) => [name, tiktoken.get_encoding(name)]),
    );
    const models = ['gpt-4o', 'gpt-4', undefined, 'claude-sonnet-4-5', 'o3'];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ maxLength: 40 }), fc.constantFrom(...models)), { minLength: 1, maxLength: 12 }),
        (counts) => {
          for (const [text, model] of [...counts, ...counts]) {
            const expected = text === '' ? 0 : encoders.get(encodingForModel(model))!.encode_ordinary(text).length;
            expect(c.count(text, model)).toBe(expected);
          }
        },
      ),
      { numRuns: 200 },
    );
    for (const e of encoders.values()) e.free();
    c.dispose();
  });

  it('short texts are kept out of the LRU cache and its statistics', () => {
    const c = new TiktokenCounter();
    for (let i = 0; i < 3; i++) expect(c.count('catalog.lookup', 'gpt-4o')).toBe(c.count('catalog.lookup', 'gpt-4o'));
    expect(c.stats).toEqual({ hits: 0, misses: 0 });
    expect(c.count('a text long enough for the LRU cache, counted twice', 'gpt-4o')).toBeGreaterThan(0);
    c.count('a text long enough for the LRU cache, counted twice', 'gpt-4o');
    expect(c.stats).toEqual({ hits: 1, misses: 1 });
    c.dispose();
  });
});
