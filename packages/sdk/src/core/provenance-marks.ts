// PLACEHOLDER (replaced by wt-core39): schema marks of provenance.

/** Schema keyword of an issued identifier; its value is a namespace. @public */
export const ID_MARK = 'x-media-agent-id';
/** Schema keyword of untrusted output text; value `untrusted`. @public */
export const TEXT_MARK = 'x-media-agent-text';
/** Schema keyword on a root: declared, nothing to mark. @public */
export const PROVENANCE_MARK = 'x-media-agent-provenance';

/** One marked (or free-text) string field. @public */
export type ProvenanceField =
  | { path: readonly string[]; mark: 'id'; namespace: string }
  | { path: readonly string[]; mark: 'untrusted' }
  | { path: readonly string[]; mark: 'free' };

type S = Record<string, unknown>;
const isObj = (v: unknown): v is S => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The marked string fields of a schema. @public */
export function provenanceFields(schema: unknown, role: 'input' | 'output'): ProvenanceField[] {
  const out: ProvenanceField[] = [];
  const walk = (s: unknown, path: string[], depth: number): void => {
    if (!isObj(s) || depth > 32) return;
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (typeof s[ID_MARK] === 'string') out.push({ path, mark: 'id', namespace: s[ID_MARK] as string });
    else if (s[TEXT_MARK] === 'untrusted' && types.includes('string')) out.push({ path, mark: 'untrusted' });
    else if (role === 'input' && types.includes('string') && s.enum === undefined && s.const === undefined)
      out.push({ path, mark: 'free' });
    if (isObj(s.properties)) for (const [k, v] of Object.entries(s.properties)) walk(v, [...path, k], depth + 1);
    if (isObj(s.items)) walk(s.items, [...path, '*'], depth + 1);
    if (isObj(s.additionalProperties)) walk(s.additionalProperties, [...path, '*'], depth + 1);
    if (isObj(s.patternProperties))
      for (const v of Object.values(s.patternProperties)) walk(v, [...path, '*'], depth + 1);
    for (const key of ['anyOf', 'oneOf', 'allOf'])
      if (Array.isArray(s[key])) for (const v of s[key] as unknown[]) walk(v, path, depth + 1);
  };
  walk(schema, [], 0);
  return out;
}

function hasMark(s: unknown, depth: number): boolean {
  if (depth > 64 || typeof s !== 'object' || s === null) return false;
  if (Array.isArray(s)) return s.some((v) => hasMark(v, depth + 1));
  const o = s as S;
  if (ID_MARK in o || TEXT_MARK in o || PROVENANCE_MARK in o) return true;
  return Object.values(o).some((v) => hasMark(v, depth + 1));
}

/** True when either schema carries any mark. @public */
export function isProvenanceDeclared(inputSchema: unknown, outputSchema: unknown): boolean {
  return hasMark(inputSchema, 0) || hasMark(outputSchema, 0);
}

/** Options of an issued-id string. @public */
export function issuedId(namespace: string): { [ID_MARK]: string } {
  return { [ID_MARK]: namespace };
}

/** Options of an untrusted output string. @public */
export const untrustedText: { [TEXT_MARK]: 'untrusted' } = Object.freeze({ [TEXT_MARK]: 'untrusted' as const });
