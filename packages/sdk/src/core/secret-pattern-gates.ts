// Cheap pre-checks for the SDK's secret shapes: each pattern of SECRET_TEXT_PATTERNS can only match a
// text that contains its required literal(s), so a text without them skips the pattern's regex.
import { SECRET_TEXT_PATTERNS } from './secret-patterns';

/** A test that is true for every text the pattern can match (and may be true for others). @internal */
export type PatternGate = (text: string) => boolean;

const has =
  (...literals: string[]): PatternGate =>
  (text) =>
    literals.every((l) => text.includes(l));

/**
 * Per pattern of {@link SECRET_TEXT_PATTERNS}, in the same order, the literals every match needs
 * (in the match itself or in its look-behind / look-ahead context).
 */
const GATES: readonly PatternGate[] = [
  has('://', '@'), // URL user-info password: `scheme://user:PASSWORD@`
  has('='), // `name=value`
  has('"', ':'), // `"name": "value"`
  (text) => /bearer/i.test(text), // `Bearer TOKEN`
  has('sk-'),
  has('xai-'),
  has('gsk_'),
  has('AIza'),
  has('gh', '_'),
  has('github_pat_'),
  has('xox', '-'),
  has('eyJ', '.'),
];

/** Every gate's first literal (or a character of it): `://`, `=`, `"`, `bearer`, `-`, `_`, `AIza`, `eyJ`. */
const ANY_LITERAL = /[=":_-]|bearer|AIza|eyJ/i;

const byPattern = new Map<RegExp, PatternGate>(SECRET_TEXT_PATTERNS.map((p, i) => [p, GATES[i]!]));

/**
 * The gate of one of the SDK's secret patterns, or `undefined` for any other pattern (a host's own
 * pattern is always run).
 * @param pattern - a pattern
 * @returns its gate, or `undefined`
 * @internal
 */
export function patternGate(pattern: RegExp): PatternGate | undefined {
  return byPattern.get(pattern);
}

/**
 * True when a text holds a literal of at least one SDK pattern (so some gate may pass); false means no
 * SDK pattern can match it. One regex test instead of twelve.
 * @internal
 */
export const anySecretShape: PatternGate = (text) => ANY_LITERAL.test(text);
