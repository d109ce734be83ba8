// CI subset of the stream translator fuzz targets (the long run is `npm run fuzz`); seed from FUZZ_SEED.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixturesOf } from './fixtures';
import { createTarget, fuzzSeed, propertyOf } from './properties';

const seed = fuzzSeed();

describe(`stream translator fuzzing (FUZZ_SEED=${seed})`, () => {
  for (const format of ['openai', 'anthropic'] as const) {
    it(`${format}: chunked, truncated or corrupted recorded streams only throw ProviderErrors, never yield an ok tool call with bad arguments, and chunking alone changes nothing`, async () => {
      const target = await createTarget(`translate-${format}`);
      await fc.assert(propertyOf(target), { seed, numRuns: 400 });
      const seen = fixturesOf(format)
        .filter((f) => target.stats.has(`fixture:${f.name}`))
        .map((f) => f.name);
      expect(seen).toEqual(fixturesOf(format).map((f) => f.name));
      for (const kind of ['none', 'truncate', 'bytes', 'events'])
        expect(target.stats.get(`mutation:${kind}`) ?? 0).toBeGreaterThan(0);
    });
  }
});
