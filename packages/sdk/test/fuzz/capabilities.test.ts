// CI subset of the capability input fuzz target (the long run is `npm run fuzz`); seed from FUZZ_SEED.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { STANDARD_CAPABILITIES, STANDARD_CAPABILITY_IDS } from '../../src/media/contracts';
import { createTarget, fuzzSeed, propertyOf, VALID_EXAMPLES, type AnyFuzzTarget } from './properties';

const seed = fuzzSeed();
let target: AnyFuzzTarget | undefined;
afterAll(async () => {
  await target?.close?.();
});

describe(`standard capability input fuzzing (FUZZ_SEED=${seed})`, () => {
  it('the valid examples the mutations start from pass their schemas', () => {
    for (const id of STANDARD_CAPABILITY_IDS)
      expect([id, Value.Check(STANDARD_CAPABILITIES[id].input, VALID_EXAMPLES[id])]).toEqual([id, true]);
  });

  it('random inputs through host.invoke never reach a handler unless they pass the schema, and invalid ones fail with INPUT_INVALID / INPUT_TOO_LARGE', async () => {
    target = await createTarget('capability-input');
    await fc.assert(propertyOf(target), { seed, numRuns: 500 });
    expect(target.stats.get('valid input') ?? 0).toBeGreaterThan(0);
    expect(target.stats.get('threw INPUT_INVALID') ?? 0).toBeGreaterThan(0);
  });
});
