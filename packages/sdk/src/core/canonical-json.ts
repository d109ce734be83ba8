import { hash } from 'node:crypto';
import { MediaAgentError } from './errors';

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
 * idempotency key.
 *
 * @remarks
 * Rules (compatible with RFC 8785 JCS for JSON data):
 * - object keys sorted by UTF-16 code units, properties whose value is `undefined` omitted;
 * - no whitespace;
 * - numbers in the shortest round-trip form of ECMAScript (`1.0` → `1`, `1e3` → `1000`,
 *   `-0` → `0`, `1e21` → `1e+21`); `NaN` and `±Infinity` are rejected;
 * - strings escaped as `JSON.stringify` does (no Unicode normalization);
 * - `Date` values are written as their ISO string (what `JSON.stringify` does);
 * - `undefined` inside arrays, functions, symbols, bigints and cycles are rejected, and so is nesting deeper than
 *   1 000 levels.
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
  // The common case, written without the bookkeeping that only an error needs (the path, the cycle check); a
  // value the fast writer refuses is written again by the checking one, which throws the error naming its path.
  try {
    return writeFast(value, 0);
  } catch {
    return write(value, undefined, undefined, new Set());
  }
}

/** What {@link writeFast} throws for a value it does not write (the checking writer then says why). */
const REFUSED = Symbol('canonical JSON: refused');

/**
 * {@link write} for a value it accepts, the same text, at `depth` containers deep: no path nodes, no set of open
 * containers (a cycle ends at the depth limit), no `try`. Throws {@link REFUSED} (or what a `Date` throws) for
 * everything {@link write} rejects.
 */
function writeFast(value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      // A finite number's string is its shortest round-trip form, `-0` included (`'0'`).
      if (!Number.isFinite(value)) throw REFUSED;
      return String(value);
    case 'object': {
      if (value === null) return 'null';
      if (value instanceof Date) return JSON.stringify(value.toISOString());
      if (depth >= MAX_CANONICAL_DEPTH) throw REFUSED;
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          if (item === undefined) throw REFUSED;
          if (i > 0) out += ',';
          out += writeFast(item, depth + 1);
        }
        return `${out}]`;
      }
      const keys = Object.keys(value);
      sortKeys(keys);
      let out = '{';
      let first = true;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined) continue;
        if (first) first = false;
        else out += ',';
        out += JSON.stringify(key);
        out += ':';
        out += writeFast(item, depth + 1);
      }
      return `${out}}`;
    }
    default:
      throw REFUSED;
  }
}

/** Keys at most this many are sorted by insertion (no work array, unlike `Array.prototype.sort`). */
const INSERTION_SORT_MAX = 32;

/**
 * Sorts `keys` in place by UTF-16 code units: the order of `keys.sort()`, without its work array for the few
 * keys an object usually has.
 * @internal
 */
export function sortKeys(keys: string[]): void {
  const n = keys.length;
  if (n > INSERTION_SORT_MAX) {
    keys.sort();
    return;
  }
  for (let i = 1; i < n; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
}

/** Where a container sits, built into a JSON pointer only when an error names it. */
interface PathNode {
  readonly parent: PathNode | undefined;
  readonly segment: string | number;
}

/** The JSON pointer of the value at `segment` of the container at `parent` (the root: both undefined). */
function pointer(parent: PathNode | undefined, segment: string | number | undefined): string {
  const segments: string[] = [];
  if (segment !== undefined) segments.push(escapePointer(String(segment)));
  for (let n = parent; n; n = n.parent) segments.push(escapePointer(String(n.segment)));
  return segments.length === 0 ? '' : `/${segments.reverse().join('/')}`;
}

/** Deepest nesting canonical JSON is written for (deeper would overflow the stack of the writer). */
const MAX_CANONICAL_DEPTH = 1000;

/**
 * Writes `value`, the item at `segment` of the container at `parent` (a path node is made once per
 * container written, not per item).
 */
function write(
  value: unknown,
  parent: PathNode | undefined,
  segment: string | number | undefined,
  seen: Set<object>,
): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalJsonError(pointer(parent, segment), `non-finite number ${value}`);
      return Object.is(value, -0) ? '0' : JSON.stringify(value);
    case 'object': {
      if (value === null) return 'null';
      if (value instanceof Date) return JSON.stringify(value.toISOString());
      if (seen.has(value)) throw new CanonicalJsonError(pointer(parent, segment), 'cycle');
      // `seen` holds the objects being written, one per level: the depth, at no cost.
      if (seen.size >= MAX_CANONICAL_DEPTH)
        throw new CanonicalJsonError(pointer(parent, segment), `nested deeper than ${MAX_CANONICAL_DEPTH} levels`);
      seen.add(value);
      const path: PathNode | undefined = segment === undefined ? parent : { parent, segment };
      try {
        if (Array.isArray(value)) {
          let out = '[';
          for (let i = 0; i < value.length; i++) {
            const item: unknown = value[i];
            if (item === undefined) throw new CanonicalJsonError(pointer(path, i), 'undefined inside an array');
            if (i > 0) out += ',';
            out += write(item, path, i, seen);
          }
          return `${out}]`;
        }
        const keys = Object.keys(value).sort();
        let out = '{';
        let first = true;
        for (const key of keys) {
          const item = (value as Record<string, unknown>)[key];
          if (item === undefined) continue;
          if (!first) out += ',';
          first = false;
          out += `${JSON.stringify(key)}:${write(item, path, key, seen)}`;
        }
        return `${out}}`;
      } finally {
        seen.delete(value);
      }
    }
    default:
      throw new CanonicalJsonError(pointer(parent, segment), `unsupported type ${typeof value}`);
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
  // One-shot hashing (no Hash object per call): the same digest of the UTF-8 text, at a fraction of the cost.
  return hash('sha256', canonicalJson(value), 'hex');
}
