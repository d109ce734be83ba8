// Keys built from parts of different callers: length-prefixed, so no choice of parts imitates another tuple.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactScopeKey, HASHED_SCOPE_KEY_PREFIX, parseScopeKey, scopeKey } from '../../src/core/scope-key';
import { deriveIdempotencyKey } from '../../src/ledger/idempotency-key';

// Parts drawn from the characters that make joined keys ambiguous, so collisions would be found if possible.
const part = fc.string({
  unit: fc.constantFrom('a', 'b', ':', ',', '1', '2', '0', '|', '\u0000', '界'),
  maxLength: 12,
});
const tuple = fc.array(part, { maxLength: 5 });

describe('scopeKey: one key per tuple', () => {
  // supermemoryai/supermemory#1679: `${tag}:${thread}` made (user:123, 456) and (user, 123:456) one cache key.
  // Here the same shape was the MCP idempotency scope `mcp:${actor}:${key}`.
  it('the two callers of an ambiguous join get two keys (supermemoryai/supermemory#1679)', () => {
    expect(`mcp:${'apikey:home'}:${'kids:1'}`).toBe(`mcp:${'apikey:home:kids'}:${'1'}`); // the old join: one key
    const a = scopeKey('mcp', 'apikey:home', 'kids:1');
    const b = scopeKey('mcp', 'apikey:home:kids', '1');
    expect(a).toBe('3:mcp,11:apikey:home,6:kids:1,');
    expect(b).toBe('3:mcp,16:apikey:home:kids,1:1,');
    expect(a).not.toBe(b);
  });

  // django/django#21516: cache-key parts joined by ':' collided; the fix length-prefixes each part (netstrings).
  it('is a netstring per part, stable and readable (django/django#21516)', () => {
    expect(scopeKey()).toBe('');
    expect(scopeKey('')).toBe('0:,');
    expect(scopeKey('a', '')).toBe('1:a,0:,');
    expect(scopeKey('', 'a')).toBe('0:,1:a,');
    expect(scopeKey('a,b')).toBe('3:a,b,');
    expect(scopeKey('界')).toBe('1:界,');
  });

  it('distinct tuples never encode equal, and every key reads back into its tuple (property)', () => {
    fc.assert(
      fc.property(tuple, tuple, (x, y) => {
        fc.pre(JSON.stringify(x) !== JSON.stringify(y));
        expect(scopeKey(...x)).not.toBe(scopeKey(...y));
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(tuple, (x) => {
        expect(parseScopeKey(scopeKey(...x))).toEqual(x);
      }),
      { numRuns: 1000 },
    );
  });

  it('reads nothing that is not a scope key', () => {
    for (const bad of ['mcp:apikey:home:kids:1', '3:mc,', '3:mcp', '01:a,', 'x:a,', '2:a,'])
      expect(parseScopeKey(bad)).toBeUndefined();
  });
});

describe('compactScopeKey: bounded, still one key per tuple', () => {
  it('keeps a short key readable and hashes a long one', () => {
    expect(compactScopeKey(200, 'mcp', 'apikey:home', 'kids:1')).toBe('3:mcp,11:apikey:home,6:kids:1,');
    const long = compactScopeKey(200, 'mcp', `apikey:${'k'.repeat(200)}`, 'x'.repeat(128));
    expect(long).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(compactScopeKey(200, 'mcp', `apikey:${'k'.repeat(200)}`, 'x'.repeat(128))).toBe(long);
  });

  // steemit/wallet#318: short inputs were passed through unhashed, so a caller could submit another's digest
  // as its own input and land on the same key. A readable key starts with a digit, a hashed one never does.
  it('a short tuple can never be chosen to equal the hashed key of a long one (steemit/wallet#318)', () => {
    const victim = compactScopeKey(80, 'mcp', 'apikey:victim', 'v'.repeat(100));
    expect(victim.startsWith(HASHED_SCOPE_KEY_PREFIX)).toBe(true);
    // The digest itself, or the whole hashed key, as a part: encoded, never passed through.
    expect(compactScopeKey(80, victim)).not.toBe(victim);
    expect(compactScopeKey(80, victim.slice(HASHED_SCOPE_KEY_PREFIX.length))).not.toBe(victim);
    fc.assert(
      fc.property(tuple, tuple, fc.integer({ min: 0, max: 40 }), (x, y, max) => {
        fc.pre(JSON.stringify(x) !== JSON.stringify(y));
        expect(compactScopeKey(max, ...x)).not.toBe(compactScopeKey(max, ...y));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the ledger idempotency key is already one key per intent', () => {
  // `<capabilityId>:v<version>:<scope>:<64 hex>`: the capability id has no ':', the version is an integer and the
  // hash has a fixed length at the end, so the scope in the middle is read back exactly; the format stays as it is
  // (recorded keys in existing databases keep matching their retries).
  it('distinct (capability, version, scope, input) give distinct keys (property)', () => {
    const id = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_-]{0,5}(\.[A-Za-z0-9_-]{1,4}){0,2}$/);
    const scope = fc.string({ unit: fc.constantFrom('a', ':', 'v', '1', 'f'), maxLength: 10 });
    const intent = fc.record({
      capabilityId: id,
      version: fc.integer({ min: 1, max: 12 }),
      scopeId: scope,
      input: part,
    });
    fc.assert(
      fc.property(intent, intent, (x, y) => {
        fc.pre(JSON.stringify(x) !== JSON.stringify(y));
        expect(deriveIdempotencyKey(x).key).not.toBe(deriveIdempotencyKey(y).key);
      }),
      { numRuns: 2000 },
    );
  });
});
