/**
 * Splitting a long reply into messages a channel accepts.
 * @packageDocumentation
 */
import { MediaAgentError } from '../../core/errors';

/** Boundaries tried in order: a paragraph break, a line break, a space. */
const BOUNDARIES = ['\n\n', '\n', ' '] as const;

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/**
 * Where to cut `text` (longer than `maxLength`) so the first part is at most `maxLength` code units: after the
 * last paragraph break, else line break, else space of the first `maxLength` units — the first of those that keeps
 * at least half the window, else the latest boundary found — else at `maxLength`, moved back one unit when that
 * would split a surrogate pair. Always between 1 and `maxLength`.
 */
function cutAt(text: string, maxLength: number): number {
  const window = text.slice(0, maxLength);
  let latest = 0;
  for (const boundary of BOUNDARIES) {
    const at = window.lastIndexOf(boundary);
    if (at < 0) continue;
    const cut = at + boundary.length;
    if (cut >= maxLength / 2) return cut;
    latest = Math.max(latest, cut);
  }
  if (latest > 0) return latest;
  return isHighSurrogate(text.charCodeAt(maxLength - 1)) && isLowSurrogate(text.charCodeAt(maxLength))
    ? maxLength - 1
    : maxLength;
}

/**
 * Splits `text` into parts of at most `maxLength` UTF-16 code units each, cutting at paragraph, line or word
 * boundaries where it can (the separator stays at the end of the part before the cut) and never inside a
 * surrogate pair. The parts, joined, are exactly `text`; none is empty; an empty text gives no part.
 *
 * @param text - the text
 * @param maxLength - the channel's `maxLength` (an integer ≥ 2, so a surrogate pair always fits)
 * @returns the parts, in order
 * @throws `MediaAgentError` `OPTIONS_INVALID` when `maxLength` is not an integer ≥ 2
 * @example
 * ```ts
 * splitText('first paragraph\n\nsecond one', 20); // ['first paragraph\n\n', 'second one']
 * ```
 * @public
 */
export function splitText(text: string, maxLength: number): string[] {
  if (!Number.isSafeInteger(maxLength) || maxLength < 2)
    throw new MediaAgentError('OPTIONS_INVALID', `a channel's maxLength must be an integer >= 2, got ${maxLength}`);
  const parts: string[] = [];
  let rest = text;
  while (rest.length > maxLength) {
    const cut = cutAt(rest, maxLength);
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest.length > 0) parts.push(rest);
  return parts;
}
