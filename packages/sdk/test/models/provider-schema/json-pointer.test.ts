import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seg } from '../../../src/models/provider-schema/json-pointer';

describe('seg', () => {
  it('writes one RFC 6901 segment', () => {
    expect(seg('a')).toBe('/a');
    expect(seg(3)).toBe('/3');
    expect(seg('')).toBe('/');
    expect(seg('a/b')).toBe('/a~1b');
    expect(seg('m~n')).toBe('/m~0n');
    expect(seg('~1')).toBe('/~01');
  });
  it('decodes back to the key (~1 first, then ~0)', () => {
    fc.assert(
      fc.property(fc.string(), (key) => {
        const s = seg(key);
        expect(s.startsWith('/')).toBe(true);
        expect(s.slice(1).replace(/~1/g, '/').replace(/~0/g, '~')).toBe(key);
        expect(s.slice(1)).not.toContain('/');
      }),
    );
  });
});
