// Provenance marks on capability schemas: which fields hold identifiers the host issued, which hold text
// written by strangers (release names, NFO, descriptions, web or plugin text), and which input strings are
// free text. Pure: reads plain JSON-schema objects (TypeBox schemas are such objects).

/**
 * Schema keyword marking an identifier the host issues. Its value is a namespace: `release`, `media`,
 * `media-entity`, `plan`, `download`, `organize`, `task`, `library-path`, … On an output field, the values the
 * host returns are recorded as issued to the run; on an input field of an effect, the value must be one of them
 * (or typed by a person in the run). Goes on a string, integer or number schema.
 * @public
 */
export const ID_MARK = 'x-media-agent-id';

/**
 * Schema keyword marking an output string written by strangers; its value is `'untrusted'`. Such strings are
 * fenced when shown to the model and recorded, so an effect's free-text input that repeats one is refused.
 * @public
 */
export const TEXT_MARK = 'x-media-agent-text';

/**
 * Schema keyword with the value `'declared'` on a schema root: the capability declared its provenance and has
 * nothing to mark (so it is not listed as undeclared).
 * @public
 */
export const PROVENANCE_MARK = 'x-media-agent-provenance';

/**
 * One marked (or free-text) string field of a schema. `path` holds property names, `[k]` for position k of a tuple,
 * `'*'` for array items and
 * record values; the empty path is the schema root.
 * - `id`: a field marked {@link ID_MARK}, with its namespace;
 * - `untrusted`: an output field marked {@link TEXT_MARK};
 * - `free` (input only): an unmarked string without `enum` / `const` and without a `date-time`, `date` or `uuid`
 *   format, or an input string marked {@link TEXT_MARK}.
 * @public
 */
export type ProvenanceField =
  | { path: readonly string[]; mark: 'id'; namespace: string }
  | { path: readonly string[]; mark: 'untrusted' }
  | { path: readonly string[]; mark: 'free' };

/** How deep {@link provenanceFields} follows nested schemas; deeper parts are not listed. */
const MAX_DEPTH = 64;
/** Schema nodes one {@link provenanceFields} call visits at most (a schema sharing sub-schemas stays cheap). */
const MAX_VISITS = 100_000;
/** String formats whose values cannot name a target, so they are not free text. */
const NOT_FREE_FORMATS: ReadonlySet<string> = new Set(['date-time', 'date', 'uuid']);

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isStringSchema = (schema: Schema): boolean =>
  schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'));

/** The field a node is by itself (a marked node or a free string), or undefined. */
function ownField(schema: Schema, role: 'input' | 'output'): ProvenanceField | undefined {
  if (ID_MARK in schema) return { path: [], mark: 'id', namespace: String(schema[ID_MARK]) };
  if (schema[TEXT_MARK] === 'untrusted') return { path: [], mark: role === 'output' ? 'untrusted' : 'free' };
  if (role !== 'input' || !isStringSchema(schema)) return undefined;
  if ('enum' in schema || 'const' in schema) return undefined;
  if (typeof schema.format === 'string' && NOT_FREE_FORMATS.has(schema.format)) return undefined;
  return { path: [], mark: 'free' };
}

/** The path segment of tuple position `k` (`prefixItems[k]`, or `items[k]` in the older form): `[k]`. @internal */
export function tupleSegment(k: number): string {
  return `[${k}]`;
}

/** The sub-schemas of a node, each with the path segment it adds (none for a union or intersection member). */
function children(schema: Schema): Array<[segment: string | undefined, child: unknown]> {
  const out: Array<[string | undefined, unknown]> = [];
  if (isSchema(schema.properties)) for (const [key, child] of Object.entries(schema.properties)) out.push([key, child]);
  for (const key of ['items', 'prefixItems'] as const) {
    const items = schema[key];
    // A tuple: each position its own segment `[k]` (a count at position 0 is not the id at position 1).
    if (Array.isArray(items)) for (const [k, child] of items.entries()) out.push([tupleSegment(k), child]);
    else if (items !== undefined && items !== false) out.push(['*', items]);
  }
  if (isSchema(schema.additionalProperties)) out.push(['*', schema.additionalProperties]);
  if (isSchema(schema.patternProperties))
    for (const child of Object.values(schema.patternProperties)) out.push(['*', child]);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const members = schema[key];
    if (Array.isArray(members)) for (const child of members) out.push([undefined, child]);
  }
  return out;
}

const fieldKey = (field: ProvenanceField): string =>
  JSON.stringify([field.path, field.mark, field.mark === 'id' ? field.namespace : '']);

/**
 * The marked string fields of a schema, in schema order (properties in their declared order, depth first).
 * Walks `properties`, `items` / `prefixItems` (segment `'*'`), `additionalProperties` and `patternProperties`
 * (segment `'*'`), and the members of `anyOf` / `oneOf` / `allOf` at the same path (a TypeBox `Nullable` is
 * `anyOf [T, null]`; a union yields the fields of all its members). A node carrying {@link ID_MARK} or
 * {@link TEXT_MARK} is one field and is not walked further. `$ref` is not followed; nesting deeper than 64
 * levels and cycles are not listed. Duplicates (same path, mark and namespace) are listed once. The schemas of
 * defined capabilities (never changed once defined) are walked once per role; every call gets its own copy.
 * @param schema - a JSON schema (a TypeBox schema is one)
 * @param role - `'input'` also lists free-text strings (`free`); `'output'` lists only marked fields
 * @returns the fields; empty for a schema that is not an object
 * @public
 */
export function provenanceFields(schema: unknown, role: 'input' | 'output'): ProvenanceField[] {
  const fixed = isSchema(schema) && fixedSchemas.has(schema) ? schema : undefined;
  const known = fixed && fieldsOfFixed.get(fixed)?.[role];
  const fields = known ?? walkedFields(schema, role);
  if (fixed && !known) fieldsOfFixed.set(fixed, { ...fieldsOfFixed.get(fixed), [role]: fields });
  return fields.map((field) => ({ ...field, path: [...field.path] }));
}

/** Schemas of defined capabilities: never changed once defined (their validators are compiled once, by identity). */
const fixedSchemas = new WeakSet<object>();
/** The fields of fixed schemas, walked once per role (handed out as copies). */
const fieldsOfFixed = new WeakMap<
  object,
  { input?: readonly ProvenanceField[]; output?: readonly ProvenanceField[] }
>();

/**
 * Marks a schema as fixed: a defined capability's input, output or plan schema, which is never changed once
 * defined. {@link provenanceFields} then walks it once per role and hands out copies of what it found.
 * @param schema - the schema
 * @internal
 */
export function fixProvenanceSchema(schema: unknown): void {
  if (isSchema(schema)) fixedSchemas.add(schema);
}

/** {@link provenanceFields}, walked afresh (the fields are not handed out: callers get copies). */
function walkedFields(schema: unknown, role: 'input' | 'output'): readonly ProvenanceField[] {
  const memo = new Map<Schema, ProvenanceField[]>();
  const onPath = new Set<Schema>();
  let visits = 0;
  // Fields relative to `node`; `truncated` is set when the depth, visit or cycle bound cut part of it.
  const walk = (node: unknown, depth: number): { fields: ProvenanceField[]; truncated: boolean } => {
    if (!isSchema(node)) return { fields: [], truncated: false };
    const known = memo.get(node);
    if (known) return { fields: known, truncated: false };
    if (depth > MAX_DEPTH || onPath.has(node) || ++visits > MAX_VISITS) return { fields: [], truncated: true };
    const own = ownField(node, role);
    if (own) {
      memo.set(node, [own]);
      return { fields: [own], truncated: false };
    }
    onPath.add(node);
    const fields: ProvenanceField[] = [];
    const seen = new Set<string>();
    let truncated = false;
    for (const [segment, child] of children(node)) {
      const sub = walk(child, depth + 1);
      truncated ||= sub.truncated;
      for (const field of sub.fields) {
        const placed = segment === undefined ? field : { ...field, path: [segment, ...field.path] };
        const key = fieldKey(placed);
        if (seen.has(key)) continue;
        seen.add(key);
        fields.push(placed);
      }
    }
    onPath.delete(node);
    if (!truncated) memo.set(node, fields);
    return { fields, truncated };
  };
  return walk(schema, 0).fields;
}

/** True when `schema` carries a provenance keyword anywhere (bounded depth, cycles skipped). */
function hasMark(schema: unknown, depth: number, seen: Set<object>): boolean {
  if (typeof schema !== 'object' || schema === null || depth > MAX_DEPTH || seen.has(schema)) return false;
  seen.add(schema);
  if (Array.isArray(schema)) return schema.some((item) => hasMark(item, depth + 1, seen));
  if (ID_MARK in schema || TEXT_MARK in schema || PROVENANCE_MARK in schema) return true;
  return Object.values(schema).some((value) => hasMark(value, depth + 1, seen));
}

/**
 * True when the input or the output schema carries {@link ID_MARK}, {@link TEXT_MARK} or
 * {@link PROVENANCE_MARK} anywhere (nesting up to 64 levels): the capability declared its provenance. A
 * capability that declared nothing keeps the behaviour of before provenance (its inputs are not checked).
 * @param inputSchema - the capability's input schema
 * @param outputSchema - the capability's output schema
 * @public
 */
export function isProvenanceDeclared(inputSchema: unknown, outputSchema: unknown): boolean {
  return hasMark(inputSchema, 0, new Set()) || hasMark(outputSchema, 0, new Set());
}

/**
 * Schema options marking an identifier the host issues in `namespace` (see {@link ID_MARK}); spread them into
 * a TypeBox options object.
 * @param namespace - what the identifier names, e.g. `'release'`, `'download'`, `'library-path'`
 * @example
 * ```ts
 * import Type from 'typebox';
 * import { issuedId, untrustedText } from '@media-agent/sdk';
 *
 * const Release = Type.Object({
 *   id: Type.String({ ...issuedId('release'), description: 'release id, as the search returned it' }),
 *   title: Type.String({ ...untrustedText, description: 'the release name, written by the uploader' }),
 * });
 * const DownloadInput = Type.Object({ releaseId: Type.String(issuedId('release')) });
 * ```
 * @public
 */
export function issuedId(namespace: string): { [ID_MARK]: string } {
  return { [ID_MARK]: namespace };
}

/**
 * Schema options marking an output string written by strangers (see {@link TEXT_MARK}): release names, NFO
 * text, indexer descriptions, web pages, plugin or MCP output. Spread into a TypeBox options object.
 * @example
 * ```ts
 * import Type from 'typebox';
 * import { untrustedText } from '@media-agent/sdk';
 *
 * const SearchHit = Type.Object({
 *   releaseName: Type.String({ ...untrustedText, description: 'as the indexer lists it' }),
 *   nfo: Type.Optional(Type.String(untrustedText)),
 * });
 * ```
 * @public
 */
export const untrustedText: { readonly [TEXT_MARK]: 'untrusted' } = Object.freeze({ [TEXT_MARK]: 'untrusted' });
