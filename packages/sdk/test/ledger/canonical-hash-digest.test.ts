// canonicalHash hashes in one shot: the digest is the SHA-256 of the canonical JSON's UTF-8 bytes, as
// a Hash object computes it, for any JSON value (lone surrogates included).
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalHash, canonicalJson } from '../../src/storage';

describe('canonicalHash digest', () => {
  it('is the SHA-256 (hex) of the canonical JSON text encoded as UTF-8', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.string({ unit: 'binary', maxLength: 20 }), (value, odd) => {
        for (const v of [value, { odd, value }]) {
          const expected = createHash('sha256').update(canonicalJson(v), 'utf8').digest('hex');
          expect(canonicalHash(v)).toBe(expected);
        }
      }),
      { numRuns: 300 },
    );
  });
});
