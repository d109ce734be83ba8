/**
 * One JSON pointer segment (RFC 6901): `/` followed by the key with `~` and `/` escaped.
 * @param key - a property name or array index
 * @returns the segment, e.g. `/a~1b` for `a/b`
 * @internal
 */
export function seg(key: string | number): string {
  return `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}
