// Code points that render as nothing (or reorder text) yet reach a model: the one classification the
// memory threat scan reports and the untrusted-text helpers remove.

/**
 * One invisible code point as the threat scan reports it: C0 control characters other than tab and line
 * breaks (NUL included), DEL, zero-width and joiner characters, bidirectional controls and marks, the soft
 * hyphen and other default-ignorable format characters (each can split a word so no pattern sees it),
 * fillers, interlinear annotation controls, musical formatting controls and tag characters (which spell
 * hidden ASCII); and a run of two or more variation selectors (hidden bytes: real text never stacks them;
 * one selector, as in an emoji's presentation or a CJK variant, is fine).
 */
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this looks for
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\u00AD\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFEFF\uFFA0\uFFF9-\uFFFB\u{1BCA0}-\u{1BCA3}\u{1D173}-\u{1D17A}\u{E0000}-\u{E007F}]|\u034F|\u17B4|\u17B5|(?:[\uFE00-\uFE0F]|[\u{E0100}-\u{E01EF}]){2,}/u;

/** An emoji subdivision flag (🏴 + 3–6 tag letters or digits + cancel tag): the one use of tag characters allowed. */
const FLAG_TAG_SEQUENCE = /\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{3,6}\u{E007F}/gu;

/**
 * Everything {@link firstInvisible} reports and more, for removal: every default-ignorable code point
 * (Unicode property `Default_Ignorable_Code_Point`, which holds the zero-width characters, joiners, bidi
 * controls and marks, the soft hyphen, fillers, every variation selector and the tag characters), every
 * control character (C0, DEL and C1) other than tab, line feed and carriage return, and the interlinear
 * annotation controls U+FFF9–U+FFFB.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
const REMOVABLE = /(?![\t\n\r])[\p{Default_Ignorable_Code_Point}\p{Cc}\uFFF9-\uFFFB]/gu;

/**
 * The first invisible code point of `text` (or run of variation selectors), as the threat scan reports it;
 * tag characters inside an emoji subdivision flag do not count.
 * @param text - the text as written
 * @returns the matched code point(s), or undefined when the text holds none
 * @internal
 */
export function firstInvisible(text: string): string | undefined {
  return INVISIBLE.exec(text.replace(FLAG_TAG_SEQUENCE, ''))?.[0];
}

/**
 * `text` without any invisible code point: every default-ignorable code point (zero-width characters,
 * joiners, bidi controls and marks, soft hyphen, fillers, variation selectors, tag characters), and every
 * control character except tab, line feed and carriage return. Removes a superset of what
 * {@link firstInvisible} reports.
 * @param text - the text as written
 * @returns the text without them (the same string when it holds none)
 * @internal
 */
export function removeInvisible(text: string): string {
  return text.replace(REMOVABLE, '');
}
