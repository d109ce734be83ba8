import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonical, isObject, JSON_TYPES, show, toJson } from '../../../src/models/provider-schema/json';

describe('isObject', () => {
  it('is true only for plain objects', () => {
    expect(isObject({})).toBe(true);
    expect(isObject({ a: 1 })).toBe(true);
    for (const v of [null, [], 'x', 1, true, undefined]) expect(isObject(v)).toBe(false);
  });
});

describe('show', () => {
  it('writes short JSON as it is', () => {
    expect(show({ a: 1 })).toBe('{"a":1}');
    expect(show('x')).toBe('"x"');
  });
  it('cuts JSON over 80 characters to 77 plus an ellipsis', () => {
    const text = show('y'.repeat(200));
    expect(text).toHaveLength(80);
    expect(text.endsWith('...')).toBe(true);
    expect(show('y'.repeat(78))).toHaveLength(80);
  });
  it('falls back to String for values that are not JSON', () => {
    expect(show(undefined)).toBe('undefined');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(show(cyclic)).toBe('[object Object]');
    expect(show(10n)).toBe('10');
  });
});

describe('canonical', () => {
  it('ignores key order at every level', () => {
    expect(canonical({ b: 1, a: { d: 2, c: [{ z: 1, y: 2 }] } })).toBe('{"a":{"c":[{"y":2,"z":1}],"d":2},"b":1}');
  });
  it('is equal exactly for deep-equal JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const reversed = JSON.parse(JSON.stringify(v), (_k, x: unknown) =>
          isObject(x) ? Object.fromEntries(Object.entries(x).reverse()) : x,
        ) as unknown;
        expect(canonical(reversed)).toBe(canonical(v));
      }),
    );
  });
});

describe('toJson', () => {
  it('copies plain JSON and drops what JSON cannot hold', () => {
    const sym = Symbol('kind');
    const input = { type: 'string', [sym]: 'String', f: () => 1 };
    const out = toJson(input);
    expect(out).toEqual({ ok: true, json: { type: 'string' } });
    if (out.ok) expect(out.json).not.toBe(input);
  });
  it('says why a value is not JSON', () => {
    expect(toJson(undefined)).toEqual({ ok: false, message: 'the schema is not JSON (undefined)' });
    expect(toJson(() => 1)).toEqual({ ok: false, message: 'the schema is not JSON (function)' });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const out = toJson(cyclic);
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.message).toMatch(/^the schema is not JSON: /);
  });
});

describe('JSON_TYPES', () => {
  it('holds the seven JSON Schema type names', () => {
    expect([...JSON_TYPES].sort()).toEqual(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
  });
});
