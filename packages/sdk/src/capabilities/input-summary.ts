/**
 * Names of input fields that are always redacted, whatever the capability declares
 * (seed 004, 审计: 脱敏后的输入摘要). Matched case-insensitively against the key with `_`/`-` removed.
 * @public
 */
export const SENSITIVE_FIELD_PATTERN = /token|password|passwd|passphrase|secret|apikey|cookie|authorization|credential|privatekey|session/i;

/** Replacement written instead of a redacted value. @public */
export const REDACTED = '[REDACTED]';

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
  return json.length <= MAX_SUMMARY ? json : JSON.stringify({ truncated: true, preview: json.slice(0, MAX_SUMMARY - 64) });
}

function matches(path: string[], patterns: string[][]): boolean {
  return patterns.some((p) => p.length === path.length && p.every((seg, i) => seg === '*' || seg === path[i]));
}

function walk(value: unknown, path: string[], patterns: string[][]): unknown {
  if (path.length > 0 && matches(path, patterns)) return REDACTED;
  if (typeof value === 'string') return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…(+${value.length - MAX_STRING} chars)` : value;
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((v, i) => walk(v, [...path, String(i)], patterns));
    if (value.length > MAX_ITEMS) items.push(`…(+${value.length - MAX_ITEMS} items)`);
    return items;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = SENSITIVE_FIELD_PATTERN.test(k.replace(/[_-]/g, '')) ? REDACTED : walk(v, [...path, k], patterns);
    }
    return out;
  }
  return value;
}
