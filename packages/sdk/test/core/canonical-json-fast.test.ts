import { describe, expect, it } from 'vitest';
import { canonicalJson, CanonicalJsonError, sortKeys } from '../../src/core/canonical-json';

describe('sortKeys', () => {
  it('sorts like Array.prototype.sort, by UTF-16 code units, short lists and long ones', () => {
    const samples = [
      [],
      ['a'],
      ['b', 'a'],
      ['z', 'A', 'é', '沙丘', '\u{1F600}', '\uffff', 'a', ''],
      ['kind', 'mediaId', 'mediaSource', 'title', 'year', 'id', 'items', 'total'],
      Array.from({ length: 40 }, (_, i) => `k${(i * 7919) % 101}`),
      Array.from({ length: 33 }, (_, i) => String.fromCharCode(0xffff - i * 911)),
    ];
    for (const keys of samples) {
      const sorted = [...keys];
      sortKeys(sorted);
      expect(sorted).toEqual([...keys].sort());
    }
  });
});

describe('canonicalJson (fast writer and checking writer)', () => {
  it('writes nested data, dates and numbers as the rules say', () => {
    const when = new Date(Date.UTC(2024, 0, 2, 3, 4, 5));
    expect(canonicalJson({ z: [{ b: -0, a: 1e21 }, 'x\n', null, false], a: { when, skip: undefined } })).toBe(
      '{"a":{"when":"2024-01-02T03:04:05.000Z"},"z":[{"a":1e+21,"b":0},"x\\n",null,false]}',
    );
  });

  it('still names the path of a value it cannot write', () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = { back: cycle };
    expect(() => canonicalJson(cycle)).toThrow(CanonicalJsonError);
    expect(() => canonicalJson(cycle)).toThrow('/self/back');
    expect(() => canonicalJson({ a: [1, { n: Number.NaN }] })).toThrow('/a/1/n');
    expect(() => canonicalJson({ a: [1, undefined] })).toThrow('/a/1');
    expect(() => canonicalJson({ f: () => 1 })).toThrow('/f');
    expect(() => canonicalJson(new Date(Number.NaN))).toThrow(RangeError);
  });

  it('refuses nesting deeper than 1 000 levels, and writes 1 000', () => {
    const nest = (levels: number) => {
      let v: unknown = 1;
      for (let i = 0; i < levels; i++) v = [v];
      return v;
    };
    expect(canonicalJson(nest(1000))).toBe(`${'['.repeat(1000)}1${']'.repeat(1000)}`);
    expect(() => canonicalJson(nest(1001))).toThrow('nested deeper than 1000 levels');
  });
});
