// Typographic characters folded to ASCII, with a map back to the original positions.

const FOLD: Readonly<Record<string, string>> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201A': "'",
  '\u201B': "'",
  '\u2032': "'",
  '\u201C': '"',
  '\u201D': '"',
  '\u201E': '"',
  '\u201F': '"',
  '\u2033': '"',
  '\u2014': '--',
  '\u2013': '-',
  '\u2212': '-',
  '\u2026': '...',
};

const SPACE = /^\p{Zs}$/u;

/** A string folded by {@link foldTypography}, with where each folded character came from. */
export interface FoldedText {
  /** The folded text. */
  readonly text: string;
  /** For each UTF-16 index of `text`, the index in the original string of the character it came from. */
  readonly origin: readonly number[];
  /** For each UTF-16 index of the original string, the index in `text` where its folding starts. */
  readonly forward: readonly number[];
}

/** The ASCII stand-in of one typographic character, or undefined when it stays as it is. */
export function foldChar(ch: string): string | undefined {
  const mapped = FOLD[ch];
  if (mapped !== undefined) return mapped;
  return ch !== ' ' && SPACE.test(ch) ? ' ' : undefined;
}

/**
 * Folds typographic characters to ASCII: smart single and double quotes (and primes) to `'` and `"`,
 * an em dash to `--`, an en dash and the minus sign to `-`, an ellipsis to `...`, and every Unicode
 * space separator (no-break space, the ideographic space U+3000 …) to a plain space. One character may
 * become several; the result keeps a map back to the original positions.
 */
export function foldTypography(input: string): FoldedText {
  let text = '';
  const origin: number[] = [];
  const forward: number[] = [];
  for (let i = 0; i < input.length; i++) {
    const ch = input[i]!;
    forward.push(text.length);
    const mapped = foldChar(ch) ?? ch;
    for (let k = 0; k < mapped.length; k++) origin.push(i);
    text += mapped;
  }
  forward.push(text.length);
  return { text, origin, forward };
}
