import { createHash } from 'node:crypto';
import { MediaAgentError } from '../errors';

/**
 * Thrown when a value cannot be written as canonical JSON (a non-finite number, a bigint,
 * a function, a symbol, `undefined` inside an array, or a cycle).
 *
 * @public
 */
export class CanonicalJsonError extends MediaAgentError {
  /** @param path - JSON pointer of the offending value; @param reason - what is wrong with it */
  constructor(path: string, reason: string) {
    super('CANONICAL_JSON_INVALID', `cannot canonicalize value at ${path || '/'}: ${reason}`, { path, reason });
  }
}

/**
 * Writes `value` as canonical JSON: the form whose SHA-256 is the argument fingerprint of an
 * idempotency key (DESIGN.md §6; seed 004, 幂等键与操作账本).
 *
 * @remarks
 * Rules (compatible with RFC 8785 JCS for JSON data):
 * - object keys sorted by UTF-16 code units, properties whose value is `undefined` omitted;
 * - no whitespace;
 * - numbers in the shortest round-trip form of ECMAScript (`1.0` → `1`, `1e3` → `1000`,
 *   `-0` → `0`, `1e21` → `1e+21`); `NaN` and `±Infinity` are rejected;
 * - strings escaped as `JSON.stringify` does (no Unicode normalization);
 * - `Date` values are written as their ISO string (what `JSON.stringify` does);
 * - `undefined` inside arrays, functions, symbols, bigints and cycles are rejected.
 *
 * Fixed vectors (tested): `{"b":1,"a":[true,null,"x"]}` → `{"a":[true,null,"x"],"b":1}`;
 * `{"n":1.50,"z":-0,"e":1E3}` → `{"e":1000,"n":1.5,"z":0}`.
 *
 * @param value - any JSON-compatible value
 * @returns the canonical JSON text
 * @throws {@link CanonicalJsonError} for values that have no JSON form
 * @public
 */
export function canonicalJson(value: unknown): string {
  return write(value, '', new Set());
}

function write(value: unknown, path: string, seen: Set<object>): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalJsonError(path, `non-finite number ${value}`);
      return Object.is(value, -0) ? '0' : JSON.stringify(value);
    case 'object': {
      if (value === null) return 'null';
      if (value instanceof Date) return JSON.stringify(value.toISOString());
      if (seen.has(value)) throw new CanonicalJsonError(path, 'cycle');
      seen.add(value);
      try {
        if (Array.isArray(value)) {
          return `[${value
            .map((item, i) => {
              if (item === undefined) throw new CanonicalJsonError(`${path}/${i}`, 'undefined inside an array');
              return write(item, `${path}/${i}`, seen);
            })
            .join(',')}]`;
        }
        const keys = Object.keys(value).sort();
        const parts: string[] = [];
        for (const key of keys) {
          const item = (value as Record<string, unknown>)[key];
          if (item === undefined) continue;
          parts.push(`${JSON.stringify(key)}:${write(item, `${path}/${escapePointer(key)}`, seen)}`);
        }
        return `{${parts.join(',')}}`;
      } finally {
        seen.delete(value);
      }
    }
    default:
      throw new CanonicalJsonError(path, `unsupported type ${typeof value}`);
  }
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * SHA-256 of the canonical JSON of `value`, as 64 lowercase hex characters.
 *
 * @param value - any JSON-compatible value
 * @throws {@link CanonicalJsonError} as {@link canonicalJson}
 * @public
 */
export function canonicalHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
}
