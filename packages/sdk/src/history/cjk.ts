// CJK detection and the bigram token stream of the `cjk_unicode61` tokenizer, emulated in JS.

/** Code-point ranges the tokenizer treats as CJK (Hangul, kana, ideographs; not CJK punctuation). */
const CJK_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x11ff], // Hangul Jamo
  [0x3040, 0x309f], // Hiragana
  [0x30a0, 0x30ff], // Katakana
  [0x3130, 0x318f], // Hangul Compatibility Jamo
  [0x31f0, 0x31ff], // Katakana Phonetic Extensions
  [0x3400, 0x4dbf], // CJK Unified Ideographs Extension A
  [0x4e00, 0x9fff], // CJK Unified Ideographs
  [0xa960, 0xa97f], // Hangul Jamo Extended-A
  [0xac00, 0xd7af], // Hangul Syllables
  [0xd7b0, 0xd7ff], // Hangul Jamo Extended-B
  [0xf900, 0xfaff], // CJK Compatibility Ideographs
  [0x20000, 0x2fa1f], // Extensions B–F and Compatibility Supplement
];

/** True when the code point is a CJK letter (see {@link CJK_RANGES}). */
export function isCjkCodePoint(cp: number): boolean {
  for (const [lo, hi] of CJK_RANGES) if (cp >= lo && cp <= hi) return true;
  return false;
}

/** True when the text holds at least one CJK letter. */
export function hasCjk(text: string): boolean {
  for (const ch of text) if (isCjkCodePoint(ch.codePointAt(0) as number)) return true;
  return false;
}

/** The maximal runs of CJK letters in a text, in order. */
export function cjkRuns(text: string): string[] {
  const runs: string[] = [];
  let run = '';
  for (const ch of text) {
    if (isCjkCodePoint(ch.codePointAt(0) as number)) run += ch;
    else if (run) {
      runs.push(run);
      run = '';
    }
  }
  if (run) runs.push(run);
  return runs;
}

/** Number of CJK letters in a text. */
export function cjkCount(text: string): number {
  let n = 0;
  for (const ch of text) if (isCjkCodePoint(ch.codePointAt(0) as number)) n++;
  return n;
}

/** Word characters of unicode61 (letters, digits, marks); everything else separates tokens. */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * The token stream of the bigram tokenizer as space-separated text: each unicode61 token with every
 * maximal CJK run replaced by its overlapping bigrams (a one-letter run stays a unigram) and
 * non-CJK segments unchanged. Indexed with plain unicode61 it gives exact substring matching down to
 * two CJK letters.
 */
export function bigramText(text: string): string {
  const out: string[] = [];
  for (const token of text.match(WORD) ?? []) out.push(...bigramTokens(token));
  return out.join(' ');
}

/** The bigram tokens of one word (see {@link bigramText}). */
export function bigramTokens(word: string): string[] {
  const out: string[] = [];
  let cjk: string[] = [];
  let other = '';
  const flushCjk = () => {
    if (cjk.length === 1) out.push(cjk[0] as string);
    for (let i = 0; i + 1 < cjk.length; i++) out.push(`${cjk[i]}${cjk[i + 1]}`);
    cjk = [];
  };
  for (const ch of word) {
    if (isCjkCodePoint(ch.codePointAt(0) as number)) {
      if (other) out.push(other);
      other = '';
      cjk.push(ch);
    } else {
      flushCjk();
      other += ch;
    }
  }
  flushCjk();
  if (other) out.push(other);
  return out;
}
