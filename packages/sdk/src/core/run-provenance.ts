// PLACEHOLDER (replaced by wt-core39): what a run was shown, and the taint rule.
import { provenanceFields, type ProvenanceField } from './provenance-marks';
import { MIN_TAINT_MATCH_CHARS, normalizeForMatch, stripInvisible } from './untrusted-text';

/** What one run was shown. JSON-safe. @public */
export interface RunProvenance {
  /** Issued ids per namespace (raw values). */
  ids: Record<string, string[]>;
  /** Untrusted strings shown (normalized). */
  untrusted: string[];
}

/** Nothing shown. @public */
export const EMPTY_RUN_PROVENANCE: RunProvenance = Object.freeze({ ids: {}, untrusted: [] }) as RunProvenance;

/** Caps of a {@link RunProvenance}. @public */
export const RUN_PROVENANCE_LIMITS = Object.freeze({
  idsPerNamespace: 2000,
  untrustedStrings: 1000,
  untrustedChars: 4096,
});

function valuesAt(
  value: unknown,
  path: readonly string[],
  at: string,
  out: Array<{ value: unknown; at: string }>,
): void {
  if (path.length === 0) {
    out.push({ value, at });
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const [head, ...rest] = path;
  if (head === '*') {
    if (Array.isArray(value)) value.forEach((v, i) => valuesAt(v, rest, `${at}[${i}]`, out));
    else for (const [k, v] of Object.entries(value)) valuesAt(v, rest, at ? `${at}.${k}` : k, out);
  } else if (!Array.isArray(value) && Object.hasOwn(value, head!))
    valuesAt((value as Record<string, unknown>)[head!], rest, at ? `${at}.${head}` : head!, out);
}

function strings(field: ProvenanceField, value: unknown): Array<{ value: string; at: string }> {
  const out: Array<{ value: unknown; at: string }> = [];
  valuesAt(value, field.path, '', out);
  return out.filter((v): v is { value: string; at: string } => typeof v.value === 'string');
}

/** Adds what `output` shows. Pure. @public */
export function collectProvenance(outputSchema: unknown, output: unknown, into: RunProvenance): RunProvenance {
  const ids: Record<string, string[]> = { ...into.ids };
  let untrusted = [...into.untrusted];
  for (const field of provenanceFields(outputSchema, 'output')) {
    for (const { value } of strings(field, output)) {
      if (field.mark === 'id') {
        const list = ids[field.namespace] ?? [];
        if (!list.includes(value))
          ids[field.namespace] = [...list, value].slice(-RUN_PROVENANCE_LIMITS.idsPerNamespace);
      } else if (field.mark === 'untrusted') {
        const n = normalizeForMatch(value).slice(0, RUN_PROVENANCE_LIMITS.untrustedChars);
        if (n.length > 0 && !untrusted.includes(n)) untrusted.push(n);
      }
    }
  }
  untrusted = untrusted.slice(-RUN_PROVENANCE_LIMITS.untrustedStrings);
  return { ids, untrusted };
}

/** Why an effect's input is refused. @public */
export interface TaintFinding {
  /** A readable path. */
  field: string;
  /** Why. */
  reason: 'not_issued' | 'untrusted_text';
  /** not_issued: the namespace the field needs. */
  namespace?: string;
  /** untrusted_text: the matched text. */
  excerpt?: string;
}

/** The first taint of `input`, or undefined. Pure. @public */
export function findTaint(
  inputSchema: unknown,
  input: unknown,
  provenance: RunProvenance,
  typed: readonly string[],
): TaintFinding | undefined {
  const typedRaw = typed.join('\n');
  const typedNorm = normalizeForMatch(typedRaw);
  const allIds = new Set(Object.values(provenance.ids).flat());
  for (const field of provenanceFields(inputSchema, 'input')) {
    for (const { value, at } of strings(field, input)) {
      if (field.mark === 'id') {
        if ((provenance.ids[field.namespace] ?? []).includes(value) || (value.length > 0 && typedRaw.includes(value)))
          continue;
        return { field: at, reason: 'not_issued', namespace: field.namespace };
      }
      const n = normalizeForMatch(value);
      if (n.length < MIN_TAINT_MATCH_CHARS || allIds.has(value) || typedNorm.includes(n)) continue;
      const hit = provenance.untrusted.find(
        (u) => u.includes(n) || (u.length >= MIN_TAINT_MATCH_CHARS && n.includes(u)),
      );
      if (hit) return { field: at, reason: 'untrusted_text', excerpt: stripInvisible(hit).slice(0, 120) };
    }
  }
  return undefined;
}

/** The model-facing sentence for a finding. @public */
export function taintMessage(capabilityId: string, finding: TaintFinding): string {
  return finding.reason === 'not_issued'
    ? `${capabilityId} refused: ${finding.field} must be a ${finding.namespace} id that a host read returned to this run (or that a person typed); use an id from a tool result, or ask the person.`
    : `${capabilityId} refused: ${finding.field} contains text from untrusted data shown to this run ("${finding.excerpt ?? ''}"); use ids a host read returned, or ask the person.`;
}
