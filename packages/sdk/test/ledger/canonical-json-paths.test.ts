// The JSON pointer a canonical-JSON error names, at the root, inside arrays and objects, nested, and with
// keys that need escaping (`~` and `/`).
import { describe, expect, it } from 'vitest';
import { CanonicalJsonError, canonicalJson } from '../../src/core/canonical-json';

const pathOf = (value: unknown): string => {
  try {
    canonicalJson(value);
  } catch (error) {
    expect(error).toBeInstanceOf(CanonicalJsonError);
    return (error as CanonicalJsonError & { details: { path: string } }).details.path;
  }
  throw new Error('no error');
};

describe('canonicalJson error paths', () => {
  it('names the offending value by its JSON pointer', () => {
    expect(pathOf(Number.NaN)).toBe('');
    expect(pathOf([1, 2, Infinity])).toBe('/2');
    expect(pathOf([1, undefined])).toBe('/1');
    expect(pathOf({ a: [1, { b: [0, 10n] }] })).toBe('/a/1/b/1');
    expect(pathOf({ 'x/y': { 'm~n': () => 1 } })).toBe('/x~1y/m~0n');
    expect(pathOf({ ok: { fine: [1, 2] }, bad: [[[Symbol('s')]]] })).toBe('/bad/0/0/0');
    const cyclic: Record<string, unknown> = { list: [] };
    (cyclic.list as unknown[]).push({ back: cyclic });
    expect(pathOf(cyclic)).toBe('/list/0/back');
    let deep: unknown = 1;
    for (let i = 0; i < 1001; i++) deep = [deep];
    expect(pathOf(deep)).toBe(`/${Array(1000).fill('0').join('/')}`);
  });
});
