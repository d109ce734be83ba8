/**
 * Text measurement helpers for the tool-result store: UTF-8 bytes, Unicode code points and the
 * length a text takes once `JSON.stringify` escapes it. All of them walk the string once and
 * allocate nothing per character.
 *
 * Units used throughout `runtime/context`:
 * - **bytes**: UTF-8 bytes (what `new TextEncoder().encode(text).length` returns; a lone surrogate
 *   counts 3 bytes, as TextEncoder writes U+FFFD for it);
 * - **code points**: Unicode code points (what `Array.from(text).length` returns; a lone surrogate
 *   counts as one);
 * - **JSON characters**: UTF-16 code units of `JSON.stringify(text)`, quotes included.
 */

/** Number of code points between two entries of {@link CodePointIndex.checkpoints}. @public */
export const CODE_POINT_CHECKPOINT_EVERY = 1024;

/**
 * Facts about a text gathered in one pass.
 * @public
 */
export interface CodePointIndex {
  /** UTF-8 bytes of the text. */
  bytes: number;
  /** Unicode code points in the text. */
  codePoints: number;
  /**
   * `checkpoints[k]` is the UTF-16 index of code point `k * CODE_POINT_CHECKPOINT_EVERY`, so a code
   * point offset is turned into a string index by walking at most that many code points.
   */
  checkpoints: number[];
}

/** True when the UTF-16 unit at `i` starts a well-formed surrogate pair. */
function isPairAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff) return false;
  const d = text.charCodeAt(i + 1);
  return d >= 0xdc00 && d <= 0xdfff;
}

/**
 * UTF-8 byte length of `text` (lone surrogates count 3 bytes, as TextEncoder replaces them with U+FFFD).
 * @param text - any string
 * @returns bytes
 * @public
 */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (isPairAt(text, i)) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Measures `text` once: UTF-8 bytes, code points and code-point checkpoints.
 * @param text - any string
 * @returns the {@link CodePointIndex}
 * @public
 */
export function indexCodePoints(text: string): CodePointIndex {
  const checkpoints: number[] = [];
  let bytes = 0;
  let codePoints = 0;
  for (let i = 0; i < text.length; i++) {
    if (codePoints % CODE_POINT_CHECKPOINT_EVERY === 0) checkpoints.push(i);
    codePoints++;
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (isPairAt(text, i)) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return { bytes, codePoints, checkpoints };
}

/**
 * UTF-16 index of code point `offset` in `text`.
 * @param text - the text that `index` was built from
 * @param index - its {@link CodePointIndex}
 * @param offset - a code point offset, `0 ≤ offset ≤ index.codePoints`
 * @returns the UTF-16 index (equal to `text.length` at the end)
 * @public
 */
export function codePointToUnitIndex(text: string, index: CodePointIndex, offset: number): number {
  const k = Math.floor(offset / CODE_POINT_CHECKPOINT_EVERY);
  let i = index.checkpoints[k] ?? text.length;
  for (let n = k * CODE_POINT_CHECKPOINT_EVERY; n < offset && i < text.length; n++) i += isPairAt(text, i) ? 2 : 1;
  return i;
}

/**
 * What the code point starting at UTF-16 index `i` adds once escaped by `JSON.stringify`.
 * @returns `units`: UTF-16 code units of the escaped form, `bytes`: UTF-8 bytes of the escaped form, `width`: UTF-16 units the code point spans in the source (1 or 2)
 */
function escapedAt(text: string, i: number): { units: number; bytes: number; width: number } {
  const c = text.charCodeAt(i);
  if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x0c || c === 0x0a || c === 0x0d || c === 0x09)
    return { units: 2, bytes: 2, width: 1 };
  if (c < 0x20) return { units: 6, bytes: 6, width: 1 };
  if (c < 0x80) return { units: 1, bytes: 1, width: 1 };
  if (c < 0x800) return { units: 1, bytes: 2, width: 1 };
  if (c < 0xd800 || c > 0xdfff) return { units: 1, bytes: 3, width: 1 };
  if (isPairAt(text, i)) return { units: 2, bytes: 4, width: 2 };
  return { units: 6, bytes: 6, width: 1 }; // lone surrogate: JSON.stringify writes \udxxx
}

/**
 * Takes code points of `text` from UTF-16 index `start` while the escaped slice still fits.
 * The count includes the two quotes `JSON.stringify` adds.
 * @param text - the source
 * @param start - UTF-16 index to start at (a code point boundary)
 * @param maxCodePoints - at most this many code points
 * @param budget - the escaped slice's limit, measured in `unit`
 * @param unit - `'units'`: UTF-16 code units of `JSON.stringify(slice)` (its `.length`); `'bytes'`: its UTF-8 bytes
 * @returns `end` (UTF-16 index after the slice) and `codePoints` taken
 * @public
 */
export function takeEscapedPrefix(
  text: string,
  start: number,
  maxCodePoints: number,
  budget: number,
  unit: 'units' | 'bytes',
): { end: number; codePoints: number } {
  let used = 2;
  let i = start;
  let n = 0;
  while (n < maxCodePoints && i < text.length) {
    const e = escapedAt(text, i);
    const add = unit === 'units' ? e.units : e.bytes;
    if (used + add > budget) break;
    used += add;
    i += e.width;
    n++;
  }
  return { end: i, codePoints: n };
}
