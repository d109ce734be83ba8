// What text written into a personal skill may not contain: instructions aimed at the model that
// reads it later (prompt injection), secret exfiltration, persistence, invisible characters.

/** One pattern of {@link findUnsafeText}: an id and what it matches (case-insensitive, after NFKC). */
export interface UnsafePattern {
  readonly id: string;
  readonly pattern: RegExp;
}

/** At most 8 words between two keywords (bounded, so the patterns cannot backtrack badly). */
const GAP = String.raw`(?:\s+[\p{L}\p{N}_]+){0,8}?\s+`;

/** The patterns, one table (id, regex). */
export const UNSAFE_PATTERNS: readonly UnsafePattern[] = [
  {
    id: 'prompt_injection',
    pattern: new RegExp(
      String.raw`\bignore${GAP}(?:previous|prior|all|above)\b${GAP.slice(0, -3)}\s+instructions\b`,
      'iu',
    ),
  },
  { id: 'prompt_injection', pattern: /\bsystem\s+prompt\s+override\b/iu },
  { id: 'prompt_injection', pattern: new RegExp(String.raw`\bdisregard${GAP}rules\b`, 'iu') },
  { id: 'prompt_injection', pattern: /\bact\s+as\s+if\s+you\s+have\s+no\s+restrictions\b/iu },
  { id: 'prompt_injection', pattern: /\bdo\s+not\s+tell\s+the\s+user\b/iu },
  { id: 'prompt_injection', pattern: /<!--[^>]{0,200}\b(?:override|secret|hidden)\b/iu },
  {
    id: 'secret_exfiltration',
    pattern: /\b(?:curl|wget)\b[^\n]{0,200}\$\{?[A-Z_]*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)/u,
  },
  {
    id: 'secret_exfiltration',
    pattern: /\bcat\s+[^\n]{0,80}(?:\.env\b|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc)/iu,
  },
  {
    id: 'context_exfiltration',
    pattern: /\b(?:include|print|share|send)\s+(?:the\s+)?(?:conversation|chat\s+history|full\s+context)\b/iu,
  },
  { id: 'persistence', pattern: /\bauthorized_keys\b/iu },
];

const INVISIBLE = /[\u200B-\u200D\u2060\u2062-\u2064\uFEFF\u202A-\u202E\u2066-\u2069]/u;

/**
 * The first unsafe finding in `text` (its first 65 536 characters), or undefined: an invisible or
 * bidirectional control character (`invisible_unicode_U+XXXX`, on the raw text), else the id of the
 * first {@link UNSAFE_PATTERNS} entry matching the NFKC-normalised text (which folds full-width
 * look-alikes).
 */
export function findUnsafeText(text: string): string | undefined {
  const window = text.slice(0, 65_536);
  // A BOM at the very start of a file is tolerated (SKILL.md may carry one).
  const hidden = INVISIBLE.exec(window.replace(/^\uFEFF/, ''));
  if (hidden) return `invisible_unicode_U+${hidden[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  const normal = window.normalize('NFKC');
  return UNSAFE_PATTERNS.find((p) => p.pattern.test(normal))?.id;
}
