// mapChildren copies a value only once a child changes: the same result, the same calls in the same order,
// and the value itself when nothing changed, as mapping every child into a new array or object gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapChildren } from '../../src/runtime/images/image-parts';

/** The behaviour it keeps: every child mapped into a new array or plain object, the value when none changed. */
function mapAll(value: object, f: (child: unknown) => unknown): unknown {
  let changed = false;
  if (Array.isArray(value)) {
    const out = value.map((v) => {
      const w = f(v);
      if (w !== v) changed = true;
      return w;
    });
    return changed ? out : value;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const w = f(v);
    if (w !== v) changed = true;
    out[k] = w;
  }
  return changed ? out : value;
}

const child = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.integer(),
  fc.constant(undefined),
  fc.constant(null),
  fc.dictionary(fc.string({ maxLength: 2 }), fc.integer(), { maxKeys: 2 }),
);
const container = fc.oneof(
  fc.array(child, { maxLength: 6 }),
  fc.sparseArray(child, { maxLength: 6 }),
  fc.dictionary(fc.constantFrom('a', 'b', 'c', 'type', '0', '7', 'value'), child, { maxKeys: 5 }),
);

describe('mapChildren', () => {
  it('maps like a full copy, with the same calls in order, and keeps the value when nothing changes', () => {
    fc.assert(
      fc.property(container, fc.func(fc.boolean()), (value, changes) => {
        const run = (impl: typeof mapAll) => {
          const seen: unknown[] = [];
          const out = impl(value, (v) => {
            seen.push(v);
            return changes(v) ? { changed: v } : v;
          });
          return { out, seen };
        };
        const expected = run(mapAll);
        const got = run(mapChildren);
        expect(got.seen).toEqual(expected.seen);
        expect(got.out).toStrictEqual(expected.out);
        expect(got.out === value).toBe(expected.out === value);
        if (Array.isArray(value) && got.out !== value)
          for (let i = 0; i < value.length; i++)
            expect(i in (got.out as unknown[])).toBe(i in (expected.out as unknown[]));
      }),
      { numRuns: 500 },
    );
  });
});
