// Keys built from parts that come from different callers (an actor and the key it chose, a scope and a call
// id): each part is length-prefixed, so no choice of parts can imitate another tuple's key.
import { createHash } from 'node:crypto';

/**
 * Encodes a tuple of strings as one key, unambiguously: each part as the netstring `<length>:<part>,`
 * (length in UTF-16 code units, decimal), the parts one after another. `scopeKey('mcp', 'apikey:home', 'kids:1')`
 * is `3:mcp,11:apikey:home,6:kids:1,`.
 *
 * @remarks
 * The encoding is injective: distinct tuples (other parts, other order or another number of parts) never give
 * equal keys, whatever characters the parts hold (separators, digits, commas, NUL), because the key can be read
 * back into exactly one tuple. Joining parts with a separator (`${a}:${b}`) is not: `('apikey:home', 'kids:1')`
 * and `('apikey:home:kids', '1')` both give `apikey:home:kids:1`. The form is stable (stored keys use it) and
 * always starts with a digit, so it never equals a key of an older `prefix:…` form.
 *
 * @param parts - the tuple, in order (no part is trimmed or normalized; an empty part is a part)
 * @returns the key (empty for no parts)
 * @public
 */
export function scopeKey(...parts: readonly string[]): string {
  let out = '';
  for (const part of parts) out += `${part.length}:${part},`;
  return out;
}

/**
 * The prefix of a {@link compactScopeKey} that was hashed because the readable form was too long.
 * @public
 */
export const HASHED_SCOPE_KEY_PREFIX = 'sha256:';

/**
 * {@link scopeKey} bounded in length, for fields with a size limit (a task id is at most 200 characters):
 * the readable key when it fits in `maxLength`, else `sha256:` and the SHA-256 (64 hex) of the readable key.
 *
 * @remarks
 * Still unambiguous: a readable key always starts with a digit and a hashed one with `s`, so a short tuple can
 * never be chosen to equal the hashed key of a long one (a hash is never passed through as if it were a part);
 * two hashed keys are equal only for equal tuples (up to a SHA-256 collision).
 *
 * @param maxLength - the longest key kept readable (at least 71, the length of a hashed key)
 * @param parts - the tuple, in order
 * @returns a key of at most `max(maxLength, 71)` characters
 * @public
 */
export function compactScopeKey(maxLength: number, ...parts: readonly string[]): string {
  const readable = scopeKey(...parts);
  if (readable.length <= maxLength) return readable;
  return `${HASHED_SCOPE_KEY_PREFIX}${createHash('sha256').update(readable, 'utf8').digest('hex')}`;
}

/**
 * Reads a {@link scopeKey} back into its parts.
 * @returns the parts, or undefined when `key` is not a readable scope key
 * @public
 */
export function parseScopeKey(key: string): string[] | undefined {
  const parts: string[] = [];
  let at = 0;
  while (at < key.length) {
    const colon = key.indexOf(':', at);
    const digits = colon < 0 ? '' : key.slice(at, colon);
    if (!/^(0|[1-9]\d{0,15})$/.test(digits)) return undefined;
    const end = colon + 1 + Number(digits);
    if (end >= key.length || key[end] !== ',') return undefined;
    parts.push(key.slice(colon + 1, end));
    at = end + 1;
  }
  return parts;
}
