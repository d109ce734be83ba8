// Scans text for prompt injection, exfiltration, persistence, secrets and invisible Unicode.
import { latinSkeleton } from './confusables';
import { hasHardCodedSecret, THREAT_PATTERNS, type ThreatScope } from './threat-patterns';

/** The first threat found in a text. @public */
export interface ThreatFinding {
  /** Pattern id, e.g. `prompt_injection` or `invisible_unicode_U+200B`. */
  id: string;
  /** Its category. */
  category: string;
}

/** Only this many characters of a text are scanned; a longer text is a finding of its own. @public */
export const THREAT_SCAN_WINDOW = 65_536;

/**
 * Code points that render as nothing (or reorder text) yet reach the model: C0 control characters other
 * than tab and line breaks (NUL included), DEL, zero-width and joiner
 * characters, bidirectional controls and marks, the soft hyphen and other default-ignorable format
 * characters (each can split a word so no pattern sees it), fillers, and tag characters (which spell
 * hidden ASCII); and a run of two or more variation selectors (hidden bytes: real text never stacks
 * them; one selector, as in an emoji's presentation or a CJK variant, is fine).
 */
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this looks for
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\u00AD\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFEFF\uFFA0\uFFF9-\uFFFB\u{1BCA0}-\u{1BCA3}\u{1D173}-\u{1D17A}\u{E0000}-\u{E007F}]|\u034F|\u17B4|\u17B5|(?:[\uFE00-\uFE0F]|[\u{E0100}-\u{E01EF}]){2,}/u;
/** An emoji subdivision flag (🏴 + 3–6 tag letters or digits + cancel tag): the one use of tag characters allowed. */
const FLAG_TAG_SEQUENCE = /\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{3,6}\u{E007F}/gu;
const ORDER: Record<ThreatScope, number> = { all: 0, context: 1, strict: 2 };

/**
 * Scans a text: invisible, default-ignorable or bidirectional code points on the raw text — tag
 * characters outside an emoji subdivision flag, a run of variation selectors — (`invisible_unicode_U+XXXX`),
 * then, after NFKC normalisation (which folds full-width look-alikes), every pattern of
 * {@link THREAT_PATTERNS} whose scope the scan includes (also on the text's Latin skeleton, so Cyrillic
 * or Greek homoglyph spellings match), and the hard-coded secret rule (strict).
 * A text longer than {@link THREAT_SCAN_WINDOW} is a finding (`oversized_text`).
 * @param text - the text as written
 * @param scope - how strict (memory uses `strict`)
 * @returns the first finding, or undefined when the text is clean
 * @public
 */
export function scanThreats(text: string, scope: ThreatScope = 'strict'): ThreatFinding | undefined {
  if (text.length > THREAT_SCAN_WINDOW) return { id: 'oversized_text', category: 'oversized' };
  const invisible = INVISIBLE.exec(text.replace(FLAG_TAG_SEQUENCE, ''));
  if (invisible) {
    const hex = invisible[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return { id: `invisible_unicode_U+${hex}`, category: 'invisible_unicode' };
  }
  const normal = text.normalize('NFKC');
  // Homoglyphs: the patterns also run on the Latin skeleton of the text (Cyrillic and Greek look-alikes).
  const skeleton = latinSkeleton(normal);
  for (const p of THREAT_PATTERNS)
    if (ORDER[p.scope] <= ORDER[scope] && (p.regex.test(normal) || (skeleton !== normal && p.regex.test(skeleton))))
      return { id: p.id, category: p.category };
  if (ORDER[scope] >= ORDER.strict && hasHardCodedSecret(normal))
    return { id: 'hardcoded_secret', category: 'hardcoded_secret' };
  return undefined;
}
