// CI subset of the SSE parser fuzz targets (the long run is `npm run fuzz`); seed from FUZZ_SEED.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { STREAM_FIXTURES } from './fixtures';
import { createTarget, fuzzSeed, propertyOf, type AnyFuzzTarget } from './properties';

const seed = fuzzSeed();
const targets: AnyFuzzTarget[] = [];
afterAll(async () => {
  for (const t of targets) await t.close?.();
});

describe(`SSE parser fuzzing (FUZZ_SEED=${seed})`, () => {
  it('every recorded stream parses to its recorded events however it is chunked, whatever its line endings, BOM and comments', async () => {
    const target = await createTarget('sse-fixtures');
    targets.push(target);
    await fc.assert(propertyOf(target), { seed, numRuns: 300 });
    const seen = STREAM_FIXTURES.filter((f) => target.stats.has(`fixture:${f.name}`)).map((f) => f.name);
    expect(seen).toEqual(STREAM_FIXTURES.map((f) => f.name));
  });

  it('random SSE-like bytes parse, however chunked, to what the WHATWG rules give for the whole stream', async () => {
    const target = await createTarget('sse-grammar');
    targets.push(target);
    await fc.assert(propertyOf(target), { seed, numRuns: 500 });
  });
});
