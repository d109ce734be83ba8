import { describe, expect, it } from 'vitest';
import { canonicalHash, canonicalJson, CanonicalJsonError } from '../../src/storage';
import { deriveIdempotencyKey, idempotencyScope } from '../../src/ledger/idempotency-key';

describe('canonical JSON (DESIGN.md §6)', () => {
  it('sorts keys recursively and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], c: { z: 1, y: { b: 2, a: 1 } } })).toBe(
      '{"a":[true,null,"x"],"b":1,"c":{"y":{"a":1,"b":2},"z":1}}',
    );
  });

  it('normalizes numbers to the shortest round-trip form', () => {
    expect(canonicalJson({ n: 1.5, z: -0, e: 1e3, big: 1e21, small: 1e-7, int: 10.0 })).toBe(
      '{"big":1e+21,"e":1000,"int":10,"n":1.5,"small":1e-7,"z":0}',
    );
  });

  it('gives equal text for equal data written differently', () => {
    expect(canonicalJson(JSON.parse('{"n":1.50,"z":-0,"e":1E3}'))).toBe('{"e":1000,"n":1.5,"z":0}');
    expect(canonicalJson({ a: 1, b: { c: [1, 2] } })).toBe(canonicalJson({ b: { c: [1, 2] }, a: 1 }));
  });

  it('sorts keys by UTF-16 code units and keeps non-ASCII text as is', () => {
    expect(canonicalJson({ é: 1, z: 2, A: 3, 沙丘: 4, '\u{1F600}': 5 })).toBe(
      '{"A":3,"z":2,"é":1,"沙丘":4,"\u{1F600}":5}',
    );
    expect(canonicalJson('line\n"quoted"\u0001')).toBe('"line\\n\\"quoted\\"\\u0001"');
  });

  it('omits undefined properties', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  it('rejects values that have no JSON form with a typed error naming the path', () => {
    expect(() => canonicalJson({ a: [1, Number.NaN] })).toThrow(CanonicalJsonError);
    expect(() => canonicalJson({ a: { b: Infinity } })).toThrow(/\/a\/b/);
    expect(() => canonicalJson([undefined])).toThrow(/undefined inside an array/);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(CanonicalJsonError);
    expect(() => canonicalJson(10n)).toThrow(CanonicalJsonError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    try {
      canonicalJson(cyclic);
      expect.unreachable();
    } catch (e) {
      expect((e as CanonicalJsonError).code).toBe('CANONICAL_JSON_INVALID');
    }
  });

  it('hashes with SHA-256 over the canonical UTF-8 text (fixed vectors)', () => {
    expect(canonicalHash({})).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
    expect(canonicalHash({ b: 1, a: 2 })).toBe(canonicalHash({ a: 2, b: 1 }));
    expect(canonicalHash({ query: '沙丘2' })).toBe('3ebb9c0ea57ae590f4a993fee2f73235f4f3d85f1d6b14ec9e4055ac750f3338');
    expect(canonicalHash({ b: 1, a: [true, null, 'x'] })).toBe(
      '54a65415ad370228851a1da4b31b6fd42dc58b19a50d35cae759325f7388ce64',
    );
  });
});

describe('idempotency key (seed 004, 幂等键与操作账本)', () => {
  it('has the form <capabilityId>:v<version>:<runId|taskId>:<sha256 of canonical input>', () => {
    const { key, argsHash } = deriveIdempotencyKey({
      capabilityId: 'download.submit',
      version: 2,
      scopeId: 'run-7',
      input: { planId: 'p1' },
    });
    expect(argsHash).toMatch(/^[0-9a-f]{64}$/);
    expect(key).toBe(`download.submit:v2:run-7:${argsHash}`);
    expect(argsHash).toBe(canonicalHash({ planId: 'p1' }));
  });

  it('is equal for canonically equal inputs and differs by version, scope or input', () => {
    const k = (version: number, scopeId: string, input: unknown) =>
      deriveIdempotencyKey({ capabilityId: 'x.y', version, scopeId, input }).key;
    expect(k(1, 'r', { a: 1, b: 2 })).toBe(k(1, 'r', { b: 2, a: 1.0 }));
    expect(k(1, 'r', { a: 1 })).not.toBe(k(2, 'r', { a: 1 }));
    expect(k(1, 'r', { a: 1 })).not.toBe(k(1, 's', { a: 1 }));
    expect(k(1, 'r', { a: 1 })).not.toBe(k(1, 'r', { a: 2 }));
  });

  it('is scoped by the run, else the task, else the single request', () => {
    expect(idempotencyScope({ runId: 'run-1', taskId: 'task-1' }, 'inv_1')).toBe('run-1');
    expect(idempotencyScope({ taskId: 'task-1' }, 'inv_1')).toBe('task-1');
    expect(idempotencyScope({}, 'inv_1')).toBe('request:inv_1');
  });
});
