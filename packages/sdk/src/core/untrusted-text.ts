// PLACEHOLDER (replaced by wt-core39): invisible characters and matching form of untrusted text.

const INVISIBLE =
  /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFF8]|\uDB40[\uDC00-\uDFFF]/g;

/** Removes bidi controls, zero-width and other default-ignorable code points. @public */
export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}

const CONFUSABLES: Record<string, string> = {
  а: 'a',
  е: 'e',
  о: 'o',
  р: 'p',
  с: 'c',
  у: 'y',
  х: 'x',
  і: 'i',
  ј: 'j',
  ѕ: 's',
  к: 'k',
  м: 'm',
  т: 't',
  н: 'h',
  в: 'b',
  α: 'a',
  ο: 'o',
  ρ: 'p',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  τ: 't',
  υ: 'u',
  χ: 'x',
};

/** The form untrusted text is matched in. @public */
export function normalizeForMatch(text: string): string {
  return stripInvisible(text)
    .normalize('NFKC')
    .toLowerCase()
    .replace(/./gu, (c) => CONFUSABLES[c] ?? c)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Shortest normalized text that counts as a match. @public */
export const MIN_TAINT_MATCH_CHARS = 8;
