// Letters of other scripts that look like Latin ones (Cyrillic and Greek homoglyphs): an injection
// spelled with them ("Іgnore аll рrevious іnstructions") reads as English to a model and to a person.
// The pairs are a small subset of the confusables of Unicode Technical Standard #39, "Unicode Security
// Mechanisms" (https://www.unicode.org/reports/tr39/#Confusable_Detection): single letters of Cyrillic
// and Greek whose skeleton is one Latin letter. Full-width and other compatibility forms are not listed:
// NFKC folds them first.

/** Cyrillic and Greek letters and their Latin look-alikes (the common confusables; not exhaustive). */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  // Cyrillic lower case
  а: 'a',
  е: 'e',
  о: 'o',
  р: 'p',
  с: 'c',
  у: 'y',
  х: 'x',
  ѕ: 's',
  і: 'i',
  ј: 'j',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  һ: 'h',
  ӏ: 'l',
  к: 'k',
  в: 'b',
  м: 'm',
  н: 'h',
  т: 't',
  ү: 'y',
  ɡ: 'g',
  // Cyrillic upper case
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  Х: 'X',
  І: 'I',
  Ј: 'J',
  Ѕ: 'S',
  Ү: 'Y',
  Ԁ: 'D',
  Ԛ: 'Q',
  Ԝ: 'W',
  Һ: 'H',
  Ӏ: 'I',
  // Greek
  ο: 'o',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  α: 'a',
  ε: 'e',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
};

const PATTERN = new RegExp(`[${Object.keys(LOOK_ALIKES).join('')}]`, 'gu');

/**
 * `text` with Cyrillic and Greek look-alikes replaced by the Latin letters they imitate, so patterns
 * written in Latin also match a homoglyph spelling. Only for matching: never stored or shown.
 * @param text - NFKC-normalised text
 * @returns the Latin skeleton (the same string when it holds no look-alike)
 * @internal
 */
export function latinSkeleton(text: string): string {
  return text.replace(PATTERN, (c) => LOOK_ALIKES[c] ?? c);
}
