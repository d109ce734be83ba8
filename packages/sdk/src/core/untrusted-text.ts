// Text written by strangers, made comparable: invisible code points removed, compatibility forms and
// look-alike letters folded, case and punctuation ignored, so a value copied out of a release name matches
// it however the release name was spelled.
import { latinSkeleton } from './confusables';
import { removeInvisible } from './invisible-chars';

/**
 * `text` without bidi controls, zero-width characters and other default-ignorable code points (joiners,
 * the soft hyphen, fillers, variation selectors, tag characters), and without control characters other than
 * tab, line feed and carriage return. Such code points render as nothing yet can hide words from a reader
 * or a pattern, or reorder what a person sees.
 * @param text - the text as written
 * @returns the text without them (the same string when it holds none)
 * @public
 */
export function stripInvisible(text: string): string {
  return removeInvisible(text);
}

const MARKS = /\p{M}+/gu;
const NOT_WORD = /[^\p{L}\p{N}]+/gu;

/**
 * The form of `text` used for matching, never for showing: {@link stripInvisible}; compatibility forms
 * folded (NFKD, so full-width `Ｄｕｎｅ` is `Dune`), combining marks dropped (`é` is `e`), then recomposed
 * (NFKC); Cyrillic and Greek letters that look like Latin ones replaced by those (a small subset of the
 * confusables of Unicode Technical Standard #39, https://www.unicode.org/reports/tr39/ : Cyrillic
 * `а е о р с у х і ј ѕ`, Greek `ο ν ρ α ε ι κ τ υ χ` and capitals such as `А В Е К М Н О Р С Т Х`); lower
 * case; every run of characters that are not letters or digits replaced by one space; trimmed.
 * @param text - the text as written
 * @returns the normalized text, e.g. `'dune 2024 2160p'` for `'Dune.2024.2160p'`
 * @example
 * ```ts
 * normalizeForMatch('Dune.2024.2160p'); // 'dune 2024 2160p'
 * normalizeForMatch('/mеdia/tv'); // 'media tv' (the `е` was Cyrillic)
 * ```
 * @public
 */
export function normalizeForMatch(text: string): string {
  const folded = stripInvisible(text).normalize('NFKD').replace(MARKS, '').normalize('NFKC');
  // Capitals first (Greek `Ν` looks like `N`, its small form `ν` like `v`), then the small forms case folding made.
  const latin = latinSkeleton(latinSkeleton(folded).toLowerCase());
  return latin.replace(NOT_WORD, ' ').trim();
}

/**
 * Shortest normalized text (in characters) that counts as a match between an effect's free-text input and
 * untrusted text shown to the run; shorter values are never tainted by untrusted text. 8 characters: longer
 * than a year or a resolution, as long as a short path such as `/media/tv` (`media tv`).
 * @public
 */
export const MIN_TAINT_MATCH_CHARS = 8;
