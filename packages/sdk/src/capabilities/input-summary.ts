import { anySecretShape, patternGate } from '../core/secret-pattern-gates';
import { REDACTED_MARKER } from '../core/secret-redactor';
import { SECRET_TEXT_PATTERNS } from '../core/secret-patterns';

/**
 * Names of input fields that are always redacted, whatever the capability declares
 *. Matched case-insensitively against the key with `_`/`-` removed.
 * @public
 */
export const SENSITIVE_FIELD_PATTERN =
  /token|password|passwd|passphrase|passkey|rsskey|secret|apikey|cookie|authorization|credential|privatekey|session|bearer|jwt|^auth$|^pass$|^pwd$|^key$/i;

/** Replacement written instead of a redacted value. @public */
export const REDACTED = REDACTED_MARKER;

const MAX_STRING = 256;
const MAX_ITEMS = 20;
const MAX_SUMMARY = 4096;

/**
 * The redacted input summary stored in audit rows and ledger entries: the input with every field
 * named in `redact` (dotted paths, `*` for any key or array item) and every field whose name looks
 * sensitive ({@link SENSITIVE_FIELD_PATTERN}) replaced by `[REDACTED]`, strings cut at 256
 * characters, arrays at 20 items, the whole at 4096 characters of JSON.
 *
 * @param input - the validated input
 * @param redact - the capability's `redact` paths
 * @returns JSON text; never contains a redacted value in clear
 * @public
 */
export function summarizeInput(input: unknown, redact: readonly string[] = []): string {
  const paths = redact.map((p) => p.split('.'));
  const json = JSON.stringify(walk(input, [], paths));
  return json.length <= MAX_SUMMARY
    ? json
    : JSON.stringify({ truncated: true, preview: json.slice(0, MAX_SUMMARY - 64) });
}

function matches(path: string[], patterns: string[][]): boolean {
  return patterns.some((p) => p.length === path.length && p.every((seg, i) => seg === '*' || seg === path[i]));
}

/**
 * Replaces secrets inside free text with `[REDACTED]`: the shapes of {@link SECRET_TEXT_PATTERNS} (URL
 * user-info passwords, `name=value` pairs whose name looks sensitive, bearer tokens, key-shaped tokens).
 * Pure. A host's registered secrets are removed besides by its `SecretRedactor` (docs/secrets.md).
 * @param text - any text
 * @returns the text with those values replaced
 * @public
 */
export function redactText(text: string): string {
  // Each pattern's gate skips it when the text lacks its literals (a text with none skips them all).
  if (!anySecretShape(text)) return text;
  let out = text;
  for (const re of SECRET_TEXT_PATTERNS) if (patternGate(re)!(out)) out = out.replace(re, REDACTED);
  return out;
}

/** Field names already judged by {@link sensitiveName} (inputs repeat a handful of names; emptied when full). */
const judgedNames = new Map<string, boolean>();
const JUDGED_NAMES_KEPT = 1024;

const sensitiveName = (name: unknown): boolean => {
  if (typeof name !== 'string') return false;
  let sensitive = judgedNames.get(name);
  if (sensitive === undefined) {
    sensitive = SENSITIVE_FIELD_PATTERN.test(name.replace(/[_-]/g, ''));
    if (judgedNames.size >= JUDGED_NAMES_KEPT) judgedNames.clear();
    judgedNames.set(name, sensitive);
  }
  return sensitive;
};

function walk(value: unknown, path: string[], patterns: string[][]): unknown {
  if (path.length > 0 && matches(path, patterns)) return REDACTED;
  if (typeof value === 'string') {
    const clean = redactText(value);
    return clean.length > MAX_STRING ? `${clean.slice(0, MAX_STRING)}…(+${clean.length - MAX_STRING} chars)` : clean;
  }
  if (Array.isArray(value)) {
    // ["password", "hunter2"]: a sensitive name followed by its value.
    // Indexed reads, not slice/map: an array with an own `constructor` property breaks species lookups.
    const items: unknown[] = [];
    for (let i = 0; i < Math.min(value.length, MAX_ITEMS); i++) {
      const v: unknown = value[i];
      items.push(
        i > 0 && sensitiveName(value[i - 1]) && typeof v !== 'object'
          ? REDACTED
          : walk(v, [...path, String(i)], patterns),
      );
    }
    if (value.length > MAX_ITEMS) items.push(`…(+${value.length - MAX_ITEMS} items)`);
    return items;
  }
  if (value !== null && typeof value === 'object') {
    // {key: 'password', value: 'hunter2'} / {name: 'token', value: …}: the value of a sensitive pair.
    const record = value as Record<string, unknown>;
    const pairName = record.key ?? record.name;
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of Object.entries(value)) {
      const secret = sensitiveName(k) || (k === 'value' && sensitiveName(pairName));
      // defineProperty keeps keys such as __proto__ as plain data.
      Object.defineProperty(out, k, {
        value: secret ? REDACTED : walk(v, [...path, k], patterns),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}
