// Scans text for prompt injection, exfiltration, persistence, secrets and invisible Unicode.
import { latinSkeleton } from '../core/confusables';
import { firstInvisible } from '../core/invisible-chars';
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
  const invisible = firstInvisible(text);
  if (invisible) {
    const hex = invisible.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
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
