import type { ModelTool } from './types';

// Capability input schemas as model providers accept them. Every tool goes with every model call,
// so one schema a provider refuses (HTTP 400) breaks every run of the host: each input schema is
// checked once, when the capability is defined, against the rules of each provider family, and
// either rewritten into an accepted form (what the model sees) or refused with a typed error.
//
// Two independent halves, on purpose:
// - `validateProviderSchema(schema, family)`: the rules of one family, as a validator; it never
//   changes a schema;
// - `checkProviderSchema(schema)`: the rewriter, which must produce a schema the validator accepts
//   for every required family (the tests run the validator on its output, so they are not circular).
//
// Sources (public):
// - Anthropic tool use, `input_schema`: https://docs.anthropic.com/en/docs/build-with-claude/tool-use
// - OpenAI function calling and Structured Outputs (strict mode) supported schemas:
//   https://platform.openai.com/docs/guides/function-calling and
//   https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
// - Gemini OpenAI compatibility: https://ai.google.dev/gemini-api/docs/openai, and the Gemini
//   function-declaration `Schema` object (a select subset of OpenAPI 3.0):
//   https://ai.google.dev/api/caching#Schema and https://ai.google.dev/gemini-api/docs/function-calling

/**
 * A JSON Schema as plain JSON (no TypeBox symbols, no functions).
 * @public
 */
export type JsonSchemaObject = { [keyword: string]: unknown };

/**
 * The provider families whose tool-schema rules are checked.
 *
 * - `anthropic`: Messages API `tools[].input_schema`;
 * - `openai`: Chat Completions `tools[].function.parameters` without `strict` (what this SDK sends);
 * - `openai-strict`: the same with `strict: true` (Structured Outputs subset; opt-in, never required here);
 * - `gemini`: Gemini through its OpenAI-compatible endpoint (parameters become a function declaration `Schema`).
 *
 * @public
 */
export type ProviderFamily = 'anthropic' | 'openai' | 'openai-strict' | 'gemini';

/**
 * The families every model-facing capability schema must satisfy (strict mode is opt-in and only
 * reported, see {@link ProviderSchemaCheck.strict}).
 * @public
 */
export const REQUIRED_PROVIDER_FAMILIES: readonly ProviderFamily[] = Object.freeze([
  'anthropic',
  'openai',
  'gemini',
] as const);

/**
 * One rule a schema breaks.
 *
 * @remarks
 * Rules of {@link validateProviderSchema} are prefixed with the family (`anthropic.root-type`,
 * `openai.array-items`, `openai-strict.additional-properties`, `gemini.keyword`, …). Refusals of
 * {@link checkProviderSchema} have no prefix: `ref-recursive`, `ref-unresolved`, `root-not-object`,
 * `schema-invalid`, `schema-too-large`; as a safety net it also reports, with the family prefix, any
 * rule of a required family its rewrite still breaks.
 *
 * @public
 */
export interface ProviderSchemaProblem {
  /** Stable rule name, e.g. `ref-recursive` or `gemini.keyword`. */
  rule: string;
  /** JSON pointer into the schema (the original for refusals, the checked schema for validator problems); `""` is the root. */
  path: string;
  /** What is wrong, for people. */
  message: string;
}

/**
 * One change {@link checkProviderSchema} made so that every family accepts the schema.
 * @public
 */
export interface ProviderSchemaRewrite {
  /** Stable rule name, e.g. `root-union`, `ref-inlined`, `const`, `format`, `additional-properties`. */
  rule: string;
  /** JSON pointer into the original schema (inside an inlined `$defs` entry, that entry's pointer). */
  path: string;
  /** What was changed. */
  message: string;
}

/**
 * Outcome of {@link checkProviderSchema}.
 * @public
 */
export interface ProviderSchemaCheck {
  /**
   * The schema to send to models: a plain-JSON copy of the input when nothing had to change
   * (`rewrites` empty), else the rewritten schema. When `problems` is not empty it is a best effort
   * and must not be relied on (`defineCapability` refuses such a capability).
   */
  schema: JsonSchemaObject;
  /** What was rewritten (empty when the input is accepted as is). */
  rewrites: ProviderSchemaRewrite[];
  /** Why the schema cannot be made acceptable; empty when it can. */
  problems: ProviderSchemaProblem[];
  /**
   * Problems of `schema` under OpenAI strict mode (for information: this SDK sends tools without
   * `strict`, so they never refuse a capability; a strict path would have to build its own schema,
   * e.g. every property required, optional ones nullable, `additionalProperties: false`).
   */
  strict: ProviderSchemaProblem[];
}

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

function isObject(value: unknown): value is JsonSchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON pointer segment (RFC 6901). */
function seg(key: string | number): string {
  return `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

function show(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return String(value);
  }
}

/**
 * Finds what a `$ref` points to inside one document: `#` (the root), `#/…` JSON pointers, and
 * plain names matching a `$id` anywhere in the document or a `$defs`/`definitions` entry of the root
 * (TypeBox `Type.Ref('Node')` inside `Type.Cyclic`).
 */
function resolveRef(root: JsonSchemaObject, ref: string): { node: unknown; path: string } | undefined {
  if (ref === '#') return { node: root, path: '' };
  if (ref.startsWith('#/')) {
    let node: unknown = root;
    const parts = ref
      .slice(2)
      .split('/')
      .map((p) => decodeURIComponent(p).replace(/~1/g, '/').replace(/~0/g, '~'));
    for (const p of parts) {
      if (Array.isArray(node)) node = node[Number(p)];
      else if (isObject(node)) node = node[p];
      else return undefined;
      if (node === undefined) return undefined;
    }
    return { node, path: parts.map(seg).join('') };
  }
  const found = findId(root, ref, '', 0);
  if (found) return found;
  for (const defs of ['$defs', 'definitions'] as const) {
    const d = root[defs];
    if (isObject(d) && d[ref] !== undefined) return { node: d[ref], path: `${seg(defs)}${seg(ref)}` };
  }
  return undefined;
}

function findId(node: unknown, id: string, path: string, depth: number): { node: unknown; path: string } | undefined {
  if (depth > 64) return undefined;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const f = findId(node[i], id, `${path}${seg(i)}`, depth + 1);
      if (f) return f;
    }
    return undefined;
  }
  if (!isObject(node)) return undefined;
  if (node.$id === id) return { node, path };
  for (const [k, v] of Object.entries(node)) {
    if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples' || k === 'example') continue;
    const f = findId(v, id, `${path}${seg(k)}`, depth + 1);
    if (f) return f;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The validator: the rules of each family (never changes a schema)
// ---------------------------------------------------------------------------------------------

/**
 * Keywords of the Gemini function-declaration `Schema` object (https://ai.google.dev/api/caching#Schema).
 * Anything else (`$ref`, `$defs`, `const`, `additionalProperties`, `patternProperties`, `oneOf`,
 * `allOf`, `not`, `exclusiveMinimum`, `multipleOf`, `uniqueItems`, `examples`, …) is refused with
 * "Invalid JSON payload received. Unknown name".
 */
const GEMINI_KEYWORDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);
/** Gemini `Schema.format` values per type. */
const GEMINI_FORMATS: Readonly<Record<string, ReadonlySet<string>>> = {
  string: new Set(['enum', 'date-time']),
  number: new Set(['float', 'double']),
  integer: new Set(['int32', 'int64']),
};
/** Keywords OpenAI strict mode accepts (Structured Outputs "Supported schemas"). */
const STRICT_KEYWORDS = new Set([
  'type',
  'description',
  'title',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);
/** String formats OpenAI strict mode accepts. */
const STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
/** OpenAI strict-mode size limits (Structured Outputs "Objects have limitations on nesting depth and size"). */
const STRICT_LIMITS = {
  properties: 5000,
  depth: 10,
  enumValues: 1000,
  stringLength: 120_000,
  largeEnum: 250,
  largeEnumStringLength: 15_000,
} as const;

type Visit = (node: JsonSchemaObject, path: string, depth: number) => void;

/** Calls `visit` on every subschema object (properties, items, combinators, definitions, …); reports non-schema subschemas. */
function walk(
  node: unknown,
  path: string,
  depth: number,
  visit: Visit,
  bad: (path: string, value: unknown) => void,
): void {
  if (!isObject(node)) {
    bad(path, node);
    return;
  }
  if (depth > 200) return;
  visit(node, path, depth);
  for (const key of ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']) {
    const map = node[key];
    if (map === undefined) continue;
    if (!isObject(map)) bad(`${path}${seg(key)}`, map);
    else for (const [k, v] of Object.entries(map)) walk(v, `${path}${seg(key)}${seg(k)}`, depth + 1, visit, bad);
  }
  for (const key of ['items', 'prefixItems', 'anyOf', 'oneOf', 'allOf']) {
    const v = node[key];
    if (v === undefined) continue;
    if (Array.isArray(v))
      for (const [i, s] of v.entries()) walk(s, `${path}${seg(key)}${seg(i)}`, depth + 1, visit, bad);
    else if (key === 'items') walk(v, `${path}${seg(key)}`, depth + 1, visit, bad);
    else bad(`${path}${seg(key)}`, v);
  }
  for (const key of [
    'additionalProperties',
    'not',
    'if',
    'then',
    'else',
    'contains',
    'propertyNames',
    'unevaluatedProperties',
    'unevaluatedItems',
    'additionalItems',
  ]) {
    const v = node[key];
    if (v !== undefined && typeof v !== 'boolean') walk(v, `${path}${seg(key)}`, depth + 1, visit, bad);
  }
}

/**
 * Checks a tool input schema against the rules of one provider family. Pure; never changes the schema.
 *
 * @remarks
 * Rules per family (each problem's `rule` is `<family>.<rule>`):
 *
 * - every family: the root is a JSON object with `type: "object"` (`root-type`) and no root
 *   `anyOf`/`oneOf`/`allOf` (`root-combinator`; Anthropic: "input_schema does not support oneOf,
 *   allOf, or anyOf at the top level"; OpenAI also refuses a root `enum` or `not`);
 * - `anthropic` (JSON Schema draft 2020-12): `type` is a JSON type name or a list of them (`type`),
 *   `items` is a schema, not a list (`items-array`), `required` is a list of unique strings (`required`),
 *   every `$ref` resolves inside the schema (`ref-unresolved`), subschemas are objects or booleans (`schema-invalid`);
 * - `openai` (function parameters, not strict): `type` as above, every array declares `items`
 *   (`array-items`), every `$ref` resolves (`ref-unresolved`), subschemas are schemas (`schema-invalid`);
 * - `openai-strict` (Structured Outputs): every object has `additionalProperties: false`
 *   (`additional-properties`) and lists every property in `required` (`required`), only the supported
 *   keywords (`keyword`) and string formats (`format`), every subschema has a `type`, `anyOf`, `enum`,
 *   `const` or `$ref` (`type`), at most 5000 properties (`properties-limit`), 10 levels of nesting
 *   (`depth`), 1000 enum values (`enum-limit`), 120,000 characters of property names, definition
 *   names, enum and const values (`string-limit`), 15,000 characters in one enum of more than 250
 *   values (`enum-string-limit`);
 * - `gemini` (function-declaration `Schema`, a subset of OpenAPI 3.0): only the `Schema` fields
 *   (`keyword`: no `$ref`, `$defs`, `const`, `additionalProperties`, `patternProperties`, `oneOf`,
 *   `allOf`, `not`, `exclusiveMinimum`, `multipleOf`, `uniqueItems`, `examples`, …), `type` is one
 *   name, not a list (`type`), and is present unless the schema has `anyOf` (`type-missing`), `enum`
 *   only on `type: "string"` with string values (`enum`), formats `date-time`/`enum` (string),
 *   `float`/`double` (number), `int32`/`int64` (integer) (`format`), every array has an `items`
 *   schema (`array-items`), `required` names declared properties (`required`), subschemas are objects (`schema-invalid`).
 *
 * @param schema - the JSON Schema a provider would receive (plain JSON or a TypeBox schema)
 * @param family - the provider family
 * @returns the problems found, empty when the family accepts the schema
 * @public
 */
export function validateProviderSchema(schema: unknown, family: ProviderFamily): ProviderSchemaProblem[] {
  const problems: ProviderSchemaProblem[] = [];
  const add = (rule: string, path: string, message: string) =>
    problems.push({ rule: `${family}.${rule}`, path, message });
  if (!isObject(schema)) {
    add('root-type', '', `the input schema must be a JSON object with type "object", got ${show(schema)}`);
    return problems;
  }
  if (schema.type !== 'object') add('root-type', '/type', `the root must have type "object", got ${show(schema.type)}`);
  const rootCombinators =
    family === 'openai' || family === 'openai-strict'
      ? ['anyOf', 'oneOf', 'allOf', 'enum', 'not']
      : ['anyOf', 'oneOf', 'allOf'];
  for (const c of rootCombinators)
    if (schema[c] !== undefined)
      add('root-combinator', seg(c), `${c} is not allowed at the root of a tool input schema`);

  const bad = (path: string, value: unknown) => {
    if (family === 'gemini' && typeof value === 'boolean')
      add('schema-invalid', path, `a boolean schema (${value}) is not a Gemini Schema object`);
    else if (typeof value !== 'boolean') add('schema-invalid', path, `expected a schema, got ${show(value)}`);
  };
  const checkRef = (node: JsonSchemaObject, path: string) => {
    if (node.$ref === undefined) return;
    if (typeof node.$ref !== 'string' || !resolveRef(schema, node.$ref))
      add('ref-unresolved', `${path}/$ref`, `$ref ${show(node.$ref)} does not resolve inside the schema`);
  };
  const typeNames = (node: JsonSchemaObject, path: string): string[] | undefined => {
    const t = node.type;
    if (t === undefined) return undefined;
    const list = Array.isArray(t) ? t : [t];
    if (list.length === 0 || !list.every((x) => typeof x === 'string' && JSON_TYPES.has(x))) {
      add(
        'type',
        `${path}/type`,
        `type must be one of ${[...JSON_TYPES].join(', ')} (or a list of them), got ${show(t)}`,
      );
      return undefined;
    }
    return list as string[];
  };

  if (family === 'anthropic' || family === 'openai') {
    walk(
      schema,
      '',
      0,
      (node, path) => {
        const types = typeNames(node, path);
        checkRef(node, path);
        if (family === 'anthropic') {
          if (Array.isArray(node.items))
            add('items-array', `${path}/items`, 'items must be one schema (draft 2020-12 uses prefixItems for tuples)');
          const r = node.required;
          if (
            r !== undefined &&
            !(Array.isArray(r) && r.every((x) => typeof x === 'string') && new Set(r).size === r.length)
          )
            add('required', `${path}/required`, 'required must be a list of unique property names');
        } else if (types?.includes('array') && node.items === undefined)
          add('array-items', path, 'an array schema must declare items');
      },
      bad,
    );
    return problems;
  }

  if (family === 'gemini') {
    walk(
      schema,
      '',
      0,
      (node, path) => {
        for (const k of Object.keys(node))
          if (!GEMINI_KEYWORDS.has(k))
            add('keyword', `${path}${seg(k)}`, `${k} is not a field of the Gemini function-declaration Schema`);
        const t = node.type;
        if (t === undefined) {
          if (node.anyOf === undefined)
            add('type-missing', path, 'type must be specified when the schema has no anyOf');
        } else if (typeof t !== 'string' || !JSON_TYPES.has(t))
          add(
            'type',
            `${path}/type`,
            `type must be one type name (string, number, integer, boolean, array, object, null), got ${show(t)}`,
          );
        if (
          node.enum !== undefined &&
          !(t === 'string' && Array.isArray(node.enum) && node.enum.every((v) => typeof v === 'string'))
        )
          add('enum', `${path}/enum`, 'enum is only allowed on type "string" with string values');
        if (
          node.format !== undefined &&
          !(typeof t === 'string' && typeof node.format === 'string' && GEMINI_FORMATS[t]?.has(node.format))
        )
          add(
            'format',
            `${path}/format`,
            `format ${show(node.format)} is not supported for type ${show(t)} (string: date-time, enum; number: float, double; integer: int32, int64)`,
          );
        if (t === 'array' && !isObject(node.items))
          add('array-items', path, 'an array schema must declare one items schema');
        if (node.required !== undefined) {
          const props = isObject(node.properties) ? node.properties : {};
          if (!Array.isArray(node.required))
            add('required', `${path}/required`, 'required must be a list of property names');
          else
            node.required.forEach((name, i) => {
              if (typeof name !== 'string' || !(name in props))
                add(
                  'required',
                  `${path}/required${seg(i)}`,
                  `required property ${show(name)} is not declared in properties`,
                );
            });
        }
      },
      bad,
    );
    return problems;
  }

  // openai-strict
  let properties = 0;
  let enumValues = 0;
  let stringLength = 0;
  walk(
    schema,
    '',
    0,
    (node, path, depth) => {
      for (const k of Object.keys(node))
        if (!STRICT_KEYWORDS.has(k)) add('keyword', `${path}${seg(k)}`, `${k} is not supported in strict mode`);
      const types = typeNames(node, path);
      checkRef(node, path);
      if (
        node.type === undefined &&
        node.anyOf === undefined &&
        node.enum === undefined &&
        node.const === undefined &&
        node.$ref === undefined
      )
        add('type', path, 'every schema needs a type (or anyOf, enum, const, $ref) in strict mode');
      if (types?.includes('object')) {
        if (node.additionalProperties !== false)
          add('additional-properties', path, 'objects need additionalProperties: false in strict mode');
        const props = isObject(node.properties) ? Object.keys(node.properties) : [];
        const required = new Set(Array.isArray(node.required) ? node.required : []);
        for (const p of props)
          if (!required.has(p))
            add(
              'required',
              `${path}/properties${seg(p)}`,
              `property ${p} must be required in strict mode (make it nullable instead of optional)`,
            );
      }
      if (typeof node.format === 'string' && !STRICT_FORMATS.has(node.format))
        add('format', `${path}/format`, `format ${node.format} is not supported in strict mode`);
      if (isObject(node.properties)) {
        properties += Object.keys(node.properties).length;
        for (const k of Object.keys(node.properties)) stringLength += k.length;
      }
      for (const defs of ['$defs', 'definitions'])
        if (isObject(node[defs])) for (const k of Object.keys(node[defs] as object)) stringLength += k.length;
      if (Array.isArray(node.enum)) {
        enumValues += node.enum.length;
        const length = node.enum.reduce<number>((n, v) => n + (typeof v === 'string' ? v.length : 0), 0);
        stringLength += length;
        if (node.enum.length > STRICT_LIMITS.largeEnum && length > STRICT_LIMITS.largeEnumStringLength)
          add(
            'enum-string-limit',
            `${path}/enum`,
            `an enum of more than ${STRICT_LIMITS.largeEnum} values may total at most ${STRICT_LIMITS.largeEnumStringLength} characters (${length})`,
          );
      }
      if (typeof node.const === 'string') stringLength += node.const.length;
      if (depth > STRICT_LIMITS.depth) add('depth', path, `more than ${STRICT_LIMITS.depth} levels of nesting`);
    },
    bad,
  );
  if (properties > STRICT_LIMITS.properties)
    add('properties-limit', '', `${properties} object properties in total, over ${STRICT_LIMITS.properties}`);
  if (enumValues > STRICT_LIMITS.enumValues)
    add('enum-limit', '', `${enumValues} enum values in total, over ${STRICT_LIMITS.enumValues}`);
  if (stringLength > STRICT_LIMITS.stringLength)
    add('string-limit', '', `${stringLength} characters of names and enum values, over ${STRICT_LIMITS.stringLength}`);
  return dedupe(problems);
}

function dedupe(problems: ProviderSchemaProblem[]): ProviderSchemaProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.rule}\u0000${p.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

// ---------------------------------------------------------------------------------------------
// The rewriter: one schema every required family accepts
// ---------------------------------------------------------------------------------------------

/** Most schema nodes one check expands (inlining `$ref`s can multiply a schema); beyond it the schema is refused. */
const MAX_NODES = 20_000;

interface Ctx {
  root: JsonSchemaObject;
  rewrites: ProviderSchemaRewrite[];
  problems: ProviderSchemaProblem[];
  nodes: number;
}

const ANNOTATION_KEYS = ['title', 'description', 'default', 'example'] as const;
/** Identifiers and containers that carry no constraint of their own once `$ref`s are inlined. */
const META_KEYS = new Set([
  '$id',
  '$schema',
  '$comment',
  '$anchor',
  '$dynamicAnchor',
  '$vocabulary',
  '$defs',
  'definitions',
]);
const COMBINATOR_KEYS = new Set(['anyOf', 'oneOf', 'allOf']);
const STRING_KEYS = [
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
];
const NUMBER_KEYS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'format'];
const ARRAY_KEYS = [
  'items',
  'prefixItems',
  'additionalItems',
  'minItems',
  'maxItems',
  'uniqueItems',
  'contains',
  'minContains',
  'maxContains',
  'unevaluatedItems',
];
const OBJECT_KEYS = [
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'unevaluatedProperties',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
];

/** The keywords the rewriter emits per type (what every required family accepts). */
const OUTPUT_KEYS: Readonly<Record<string, readonly string[]>> = {
  string: ['enum', 'minLength', 'maxLength', 'pattern', 'format'],
  number: ['minimum', 'maximum'],
  integer: ['minimum', 'maximum'],
  array: ['items', 'minItems', 'maxItems'],
  object: ['properties', 'required', 'minProperties', 'maxProperties'],
};

/** A value of any JSON type, in the form every family accepts (Gemini needs a type or anyOf on every schema). */
function anyValue(): JsonSchemaObject {
  const scalars = () => [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'object' },
    { type: 'null' },
  ];
  return { anyOf: [...scalars(), { type: 'array', items: { anyOf: scalars() } }] };
}

function note(ctx: Ctx, rule: string, path: string, message: string): void {
  ctx.rewrites.push({ rule, path, message });
}

function refuse(ctx: Ctx, rule: string, path: string, message: string): void {
  ctx.problems.push({ rule, path, message });
}

/** Appends notes to a description (`"Title (format: email)"`). */
function describe(description: unknown, notes: readonly string[]): string | undefined {
  const base = typeof description === 'string' && description.trim() ? description.trim() : '';
  if (notes.length === 0) return base || undefined;
  const text = notes.join('; ');
  return base ? `${base} (${text})` : `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function annotations(node: JsonSchemaObject, notes: readonly string[] = []): JsonSchemaObject {
  const out: JsonSchemaObject = {};
  if (typeof node.title === 'string') out.title = node.title;
  const d = describe(node.description, notes);
  if (d !== undefined) out.description = d;
  if (node.default !== undefined) out.default = node.default;
  if (node.example !== undefined) out.example = node.example;
  return out;
}

function withAnnotations(schema: JsonSchemaObject, ann: JsonSchemaObject): JsonSchemaObject {
  const out: JsonSchemaObject = { ...schema };
  for (const key of ANNOTATION_KEYS) {
    if (ann[key] === undefined) continue;
    if (key === 'description' && typeof out.description === 'string' && out.description !== ann.description)
      out.description = `${ann.description as string} ${out.description}`;
    else out[key] = ann[key];
  }
  return out;
}

/** A short human summary of a converted schema, for descriptions ("string", "integer", "object", "one of a, b"). */
function summary(schema: JsonSchemaObject): string {
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => show(v)).join(', ')}`;
  if (typeof schema.type === 'string')
    return schema.type === 'array' && isObject(schema.items) ? `array of ${summary(schema.items)}` : schema.type;
  if (Array.isArray(schema.anyOf)) {
    const parts = schema.anyOf.filter(isObject).map(summary);
    return parts.length > 5 ? 'any JSON value' : parts.join(' or ');
  }
  return 'any JSON value';
}

/**
 * Rewrites one schema node (and its subschemas) into the portable form. Never throws; problems
 * that cannot be rewritten are recorded and replaced by {@link anyValue} so the walk goes on.
 */
function convert(ctx: Ctx, input: unknown, path: string, stack: readonly object[]): JsonSchemaObject {
  if (++ctx.nodes > MAX_NODES) {
    if (!ctx.problems.some((p) => p.rule === 'schema-too-large'))
      refuse(
        ctx,
        'schema-too-large',
        path,
        `the schema expands to more than ${MAX_NODES} nodes (inlined $refs included)`,
      );
    return anyValue();
  }
  if (input === true) {
    note(ctx, 'any-value', path, 'the schema true (any value) is written as an anyOf of every JSON type');
    return anyValue();
  }
  if (!isObject(input)) {
    refuse(
      ctx,
      'schema-invalid',
      path,
      input === false ? 'the schema false accepts nothing' : `expected a schema object, got ${show(input)}`,
    );
    return anyValue();
  }
  if (input.$ref !== undefined) {
    const ref = input.$ref;
    const target = typeof ref === 'string' ? resolveRef(ctx.root, ref) : undefined;
    if (!target || !(isObject(target.node) || typeof target.node === 'boolean')) {
      refuse(ctx, 'ref-unresolved', `${path}/$ref`, `$ref ${show(ref)} does not resolve inside the schema`);
      return anyValue();
    }
    if (typeof target.node === 'object' && stack.includes(target.node)) {
      refuse(
        ctx,
        'ref-recursive',
        `${path}/$ref`,
        `$ref ${show(ref)} refers back to ${target.path || 'the root'}: a recursive schema cannot be inlined, and Gemini accepts no $ref`,
      );
      return anyValue();
    }
    note(
      ctx,
      'ref-inlined',
      `${path}/$ref`,
      `$ref ${show(ref)} inlined from ${target.path || 'the root'} (Gemini accepts no $ref/$defs)`,
    );
    const { $ref: _ref, ...siblings } = input;
    for (const k of Object.keys(siblings)) if (META_KEYS.has(k)) delete siblings[k];
    const merged = typeof target.node === 'boolean' ? target.node : { ...target.node, ...siblings };
    return convert(ctx, merged, target.path, typeof target.node === 'object' ? [...stack, target.node] : stack);
  }
  const inner = [...stack, input];
  const dropped = Object.keys(input).filter(
    (k) => META_KEYS.has(k) || k === '$dynamicRef' || k === '$recursiveRef' || k === '$recursiveAnchor',
  );
  for (const k of dropped) {
    if (k === '$dynamicRef' || k === '$recursiveRef')
      refuse(ctx, 'ref-recursive', `${path}${seg(k)}`, `${k} (a recursive reference) cannot be inlined`);
    else
      note(
        ctx,
        'meta-dropped',
        `${path}${seg(k)}`,
        `${k} removed (Gemini accepts no ${k}; $defs are inlined where referenced)`,
      );
  }

  const hasAnyOf = Array.isArray(input.anyOf) || Array.isArray(input.oneOf);
  const hasAllOf = Array.isArray(input.allOf);
  for (const k of ['anyOf', 'oneOf', 'allOf'])
    if (input[k] !== undefined && !Array.isArray(input[k]))
      refuse(ctx, 'schema-invalid', `${path}${seg(k)}`, `${k} must be a list of schemas`);
  const notes: string[] = [];
  let base = convertBase(ctx, input, path, inner, notes);
  if (hasAllOf) {
    note(ctx, 'all-of', `${path}/allOf`, 'allOf merged into one schema (Gemini accepts no allOf)');
    for (const [i, b] of (input.allOf as unknown[]).entries()) {
      const cb = convert(ctx, b, `${path}/allOf${seg(i)}`, inner);
      base = base ? mergeSchemas(ctx, base, cb, `${path}/allOf${seg(i)}`) : cb;
    }
  }
  let out: JsonSchemaObject;
  if (hasAnyOf) {
    const branches: JsonSchemaObject[] = [];
    for (const key of ['anyOf', 'oneOf'] as const) {
      const list = input[key];
      if (!Array.isArray(list)) continue;
      if (key === 'oneOf')
        note(
          ctx,
          'one-of',
          `${path}/oneOf`,
          'oneOf written as anyOf (Gemini and OpenAI strict mode accept no oneOf; the original schema still requires exactly one)',
        );
      for (const [i, b] of list.entries()) branches.push(convert(ctx, b, `${path}${seg(key)}${seg(i)}`, inner));
    }
    const constraints = base ? stripAnnotations(base) : undefined;
    const combined =
      constraints && Object.keys(constraints).length > 0
        ? branches.map((b) => mergeSchemas(ctx, b, constraints, path))
        : branches;
    out = simplifyAnyOf(ctx, combined, path);
    if (base) out = withAnnotations(out, annotations(base));
  } else if (base) out = base;
  else {
    note(
      ctx,
      'any-value',
      path,
      'a schema without a type (any value) written as an anyOf of every JSON type (Gemini needs a type or anyOf on every schema)',
    );
    out = anyValue();
  }
  out = withAnnotations(out, annotations(input, notes));
  if (input.nullable === true) {
    note(ctx, 'nullable', `${path}/nullable`, 'nullable: true (OpenAPI 3.0) written as anyOf with type null');
    if (!acceptsNull(out)) {
      const ann = annotations(out);
      out = withAnnotations({ anyOf: [stripAnnotations(out), { type: 'null' }] }, ann);
    }
  } else if (input.nullable !== undefined)
    note(ctx, 'nullable', `${path}/nullable`, `nullable: ${show(input.nullable)} removed`);
  return out;
}

function acceptsNull(s: JsonSchemaObject): boolean {
  return s.type === 'null' || (Array.isArray(s.anyOf) && s.anyOf.some((b) => isObject(b) && acceptsNull(b)));
}

function stripAnnotations(s: JsonSchemaObject): JsonSchemaObject {
  const out = { ...s };
  for (const k of ANNOTATION_KEYS) delete out[k];
  return out;
}

/**
 * The node without its combinators: type, type-specific keywords, enum/const. `undefined` when the
 * node constrains nothing by itself (only annotations and/or combinators).
 */
function convertBase(
  ctx: Ctx,
  node: JsonSchemaObject,
  path: string,
  stack: readonly object[],
  notes: string[],
): JsonSchemaObject | undefined {
  const handled = new Set<string>([
    ...ANNOTATION_KEYS,
    ...META_KEYS,
    ...COMBINATOR_KEYS,
    'nullable',
    '$dynamicRef',
    '$recursiveRef',
    '$recursiveAnchor',
  ]);
  if (node.examples !== undefined) {
    handled.add('examples');
    note(ctx, 'keyword-dropped', `${path}/examples`, 'examples removed (Gemini accepts only one example)');
  }
  let result: JsonSchemaObject | undefined;
  if (node.const !== undefined || node.enum !== undefined) {
    handled.add('const').add('enum').add('type');
    result = convertEnum(ctx, node, path, notes);
  } else {
    let types: string[] | undefined;
    if (node.type !== undefined) {
      handled.add('type');
      const list = Array.isArray(node.type) ? node.type : [node.type];
      if (list.length === 0 || !list.every((t) => typeof t === 'string' && JSON_TYPES.has(t))) {
        refuse(
          ctx,
          'schema-invalid',
          `${path}/type`,
          `type ${show(node.type)} is not a JSON type (${[...JSON_TYPES].join(', ')})`,
        );
        return anyValue();
      }
      types = [...new Set(list as string[])];
    } else {
      const has = (keys: readonly string[]) => keys.some((k) => node[k] !== undefined && k !== 'format');
      const inferred = has(OBJECT_KEYS)
        ? 'object'
        : has(ARRAY_KEYS)
          ? 'array'
          : has(STRING_KEYS)
            ? 'string'
            : has(NUMBER_KEYS)
              ? 'number'
              : undefined;
      if (inferred) {
        types = [inferred];
        note(
          ctx,
          'type-inferred',
          path,
          `type ${inferred} added (inferred from the keywords; Gemini needs a type on every schema)`,
        );
      }
    }
    if (types) {
      const ts = types;
      for (const t of ts) for (const k of keysOf(t)) handled.add(k);
      if (ts.length === 1) result = convertTyped(ctx, node, ts[0]!, path, stack, notes);
      else {
        note(
          ctx,
          'type-list',
          `${path}/type`,
          `type ${show(node.type)} written as anyOf (Gemini accepts one type per schema)`,
        );
        result = { anyOf: ts.map((t) => convertTyped(ctx, node, t, path, stack, [])) };
      }
    }
  }
  const unknown = Object.keys(node).filter((k) => !handled.has(k));
  for (const k of unknown) {
    // keywords of another type than the schema's (e.g. minLength on an integer) mean nothing; others are unsupported
    note(
      ctx,
      'keyword-dropped',
      `${path}${seg(k)}`,
      `${k} removed (not accepted by every provider; the original schema still applies it)`,
    );
  }
  return result;
}

function keysOf(type: string): readonly string[] {
  switch (type) {
    case 'string':
      return STRING_KEYS;
    case 'number':
    case 'integer':
      return NUMBER_KEYS;
    case 'array':
      return ARRAY_KEYS;
    case 'object':
      return OBJECT_KEYS;
    default:
      return [];
  }
}

function convertTyped(
  ctx: Ctx,
  node: JsonSchemaObject,
  type: string,
  path: string,
  stack: readonly object[],
  notes: string[],
): JsonSchemaObject {
  const out: JsonSchemaObject = { type };
  const num = (k: string) => (typeof node[k] === 'number' ? (node[k] as number) : undefined);
  const int = (k: string) => {
    const v = num(k);
    return v !== undefined && Number.isInteger(v) && v >= 0 ? v : undefined;
  };
  const dropped = (k: string, why: string) =>
    note(ctx, 'keyword-dropped', `${path}${seg(k)}`, `${k} removed (${why}; the original schema still applies it)`);
  if (type === 'string') {
    for (const k of ['minLength', 'maxLength'] as const) {
      const v = int(k);
      if (v !== undefined) out[k] = v;
      else if (node[k] !== undefined) dropped(k, 'not a non-negative integer');
    }
    if (typeof node.pattern === 'string') out.pattern = node.pattern;
    else if (node.pattern !== undefined) dropped('pattern', 'not a string');
    if (node.format !== undefined) {
      if (node.format === 'date-time') out.format = 'date-time';
      else {
        notes.push(`format: ${String(node.format)}`);
        note(
          ctx,
          'format',
          `${path}/format`,
          `format ${show(node.format)} moved into the description (Gemini accepts only date-time and enum; OpenAI strict mode a few others)`,
        );
      }
    }
    for (const k of ['contentEncoding', 'contentMediaType'])
      if (node[k] !== undefined) {
        notes.push(`${k}: ${String(node[k])}`);
        note(ctx, 'keyword-dropped', `${path}${seg(k)}`, `${k} moved into the description`);
      }
    if (node.contentSchema !== undefined) dropped('contentSchema', 'not accepted by every provider');
  } else if (type === 'number' || type === 'integer') {
    for (const k of ['minimum', 'maximum'] as const) {
      const v = num(k);
      if (v !== undefined) out[k] = v;
      else if (node[k] !== undefined) dropped(k, 'not a number');
    }
    for (const [k, bound, word] of [
      ['exclusiveMinimum', 'minimum', 'greater than'],
      ['exclusiveMaximum', 'maximum', 'less than'],
    ] as const) {
      const v = node[k];
      if (v === undefined) continue;
      if (typeof v === 'number') {
        const current = out[bound] as number | undefined;
        if (current === undefined || (bound === 'minimum' ? v >= current : v <= current)) out[bound] = v;
        notes.push(`${word} ${v}`);
        note(
          ctx,
          'exclusive-bound',
          `${path}${seg(k)}`,
          `${k} ${v} written as ${bound} with the bound in the description (Gemini accepts no ${k})`,
        );
      } else if (v === true && out[bound] !== undefined) {
        notes.push(`${word} ${String(out[bound])}`);
        note(ctx, 'exclusive-bound', `${path}${seg(k)}`, `${k}: true (draft 4) moved into the description`);
      } else dropped(k, 'not a number');
    }
    if (typeof node.multipleOf === 'number') {
      notes.push(`a multiple of ${node.multipleOf}`);
      note(
        ctx,
        'keyword-dropped',
        `${path}/multipleOf`,
        'multipleOf moved into the description (Gemini accepts no multipleOf)',
      );
    } else if (node.multipleOf !== undefined) dropped('multipleOf', 'not a number');
    if (node.format !== undefined) {
      notes.push(`format: ${String(node.format)}`);
      note(
        ctx,
        'format',
        `${path}/format`,
        `format ${show(node.format)} moved into the description (numeric formats differ between providers)`,
      );
    }
  } else if (type === 'array') {
    const tuple = Array.isArray(node.prefixItems)
      ? node.prefixItems
      : Array.isArray(node.items)
        ? node.items
        : undefined;
    if (tuple) {
      const key = Array.isArray(node.prefixItems) ? 'prefixItems' : 'items';
      const items = tuple.map((s, i) => convert(ctx, s, `${path}${seg(key)}${seg(i)}`, stack));
      const closed = node.additionalItems === false || (key === 'prefixItems' && node.items === false);
      out.items = items.length === 0 ? anyValue() : simplifyAnyOf(ctx, items, `${path}${seg(key)}`);
      if (closed) out.maxItems = items.length;
      notes.push(`positions: ${items.map((s, i) => `${i + 1}) ${summary(s)}`).join(', ')}`);
      note(
        ctx,
        'tuple',
        `${path}${seg(key)}`,
        'a tuple (items list/prefixItems) written as one items schema with the positions in the description',
      );
    } else if (node.items !== undefined) out.items = convert(ctx, node.items, `${path}/items`, stack);
    else {
      out.items = anyValue();
      note(ctx, 'array-items', path, 'items added (OpenAI and Gemini need items on every array)');
    }
    for (const k of ['minItems', 'maxItems'] as const) {
      const v = int(k);
      if (v !== undefined)
        out[k] = k === 'maxItems' && typeof out.maxItems === 'number' ? Math.min(v, out.maxItems) : v;
      else if (node[k] !== undefined) dropped(k, 'not a non-negative integer');
    }
    if (node.uniqueItems === true) {
      notes.push('items are unique');
      note(
        ctx,
        'keyword-dropped',
        `${path}/uniqueItems`,
        'uniqueItems moved into the description (Gemini accepts no uniqueItems)',
      );
    } else if (node.uniqueItems !== undefined) dropped('uniqueItems', 'not accepted by every provider');
    for (const k of ['contains', 'minContains', 'maxContains', 'unevaluatedItems'])
      if (node[k] !== undefined) dropped(k, 'not accepted by every provider');
    if (node.additionalItems !== undefined && !tuple) dropped('additionalItems', 'not accepted by every provider');
    else if (node.additionalItems !== undefined && node.additionalItems !== false)
      dropped('additionalItems', 'not accepted by every provider');
  } else if (type === 'object') {
    if (node.properties !== undefined) {
      if (!isObject(node.properties))
        refuse(ctx, 'schema-invalid', `${path}/properties`, 'properties must be an object of schemas');
      else {
        const props: JsonSchemaObject = {};
        for (const [k, v] of Object.entries(node.properties))
          props[k] = convert(ctx, v, `${path}/properties${seg(k)}`, stack);
        out.properties = props;
      }
    }
    if (node.required !== undefined) {
      if (Array.isArray(node.required) && node.required.every((r) => typeof r === 'string'))
        out.required = [...new Set(node.required as string[])];
      else refuse(ctx, 'schema-invalid', `${path}/required`, 'required must be a list of property names');
    }
    for (const k of ['minProperties', 'maxProperties'] as const) {
      const v = int(k);
      if (v !== undefined) out[k] = v;
      else if (node[k] !== undefined) dropped(k, 'not a non-negative integer');
    }
    const ap = node.additionalProperties;
    if (ap === false)
      note(
        ctx,
        'additional-properties',
        `${path}/additionalProperties`,
        'additionalProperties: false removed (Gemini accepts no additionalProperties; the original schema still refuses other properties)',
      );
    else if (ap === true)
      note(
        ctx,
        'additional-properties',
        `${path}/additionalProperties`,
        'additionalProperties: true removed (the default)',
      );
    else if (ap !== undefined) {
      const values = convert(ctx, ap, `${path}/additionalProperties`, stack);
      notes.push(`${out.properties ? 'other keys' : 'any keys'}, each value ${summary(values)}`);
      note(
        ctx,
        'map',
        `${path}/additionalProperties`,
        'additionalProperties schema moved into the description (Gemini accepts no additionalProperties)',
      );
    }
    if (node.patternProperties !== undefined) {
      if (isObject(node.patternProperties)) {
        const parts = Object.entries(node.patternProperties).map(([pattern, s]) => {
          const values = convert(ctx, s, `${path}/patternProperties${seg(pattern)}`, stack);
          return pattern === '^.*$' || pattern === '.*' || pattern === '^(.*)$'
            ? `any keys, each value ${summary(values)}`
            : `keys matching ${pattern}, each value ${summary(values)}`;
        });
        notes.push(...parts);
      }
      note(
        ctx,
        'map',
        `${path}/patternProperties`,
        'patternProperties moved into the description (Gemini and OpenAI strict mode accept no patternProperties)',
      );
    }
    if (isObject(node.propertyNames) && typeof node.propertyNames.pattern === 'string')
      notes.push(`keys match ${node.propertyNames.pattern}`);
    for (const k of ['propertyNames', 'unevaluatedProperties', 'dependentRequired', 'dependentSchemas', 'dependencies'])
      if (node[k] !== undefined) dropped(k, 'not accepted by every provider');
  }
  return out;
}

/** `enum`/`const` → a string enum, or per-type schemas for other values (Gemini: enum only on strings). */
function convertEnum(ctx: Ctx, node: JsonSchemaObject, path: string, notes: string[]): JsonSchemaObject {
  let values: unknown[];
  if (node.const !== undefined) {
    values = [node.const];
    if (node.enum !== undefined) note(ctx, 'keyword-dropped', `${path}/enum`, 'enum removed next to const');
    note(
      ctx,
      'const',
      `${path}/const`,
      `const ${show(node.const)} written as a one-value enum (Gemini accepts no const)`,
    );
  } else if (Array.isArray(node.enum) && node.enum.length > 0) values = node.enum;
  else {
    refuse(ctx, 'schema-invalid', `${path}/enum`, 'enum must be a non-empty list');
    return anyValue();
  }
  const strings = values.filter((v): v is string => typeof v === 'string');
  const numbers = values.filter((v): v is number => typeof v === 'number');
  const booleans = values.filter((v): v is boolean => typeof v === 'boolean');
  const hasNull = values.some((v) => v === null);
  const others = values.filter((v) => typeof v === 'object' && v !== null);
  const branches: JsonSchemaObject[] = [];
  if (strings.length) branches.push({ type: 'string', enum: [...new Set(strings)] });
  if (numbers.length) {
    const integer = numbers.every(Number.isInteger);
    branches.push({
      type: integer ? 'integer' : 'number',
      minimum: Math.min(...numbers),
      maximum: Math.max(...numbers),
    });
  }
  if (booleans.length) branches.push({ type: 'boolean' });
  if (hasNull) branches.push({ type: 'null' });
  if (others.length)
    branches.push(
      ...[...new Set(others.map((o) => (Array.isArray(o) ? 'array' : 'object')))].map((t) =>
        t === 'array' ? { type: 'array', items: anyValue() } : { type: 'object' },
      ),
    );
  const nonStrings = values.filter((v) => typeof v !== 'string');
  if (nonStrings.length > 0) {
    notes.push(values.length === 1 ? `must be ${show(values[0])}` : `one of ${values.map((v) => show(v)).join(', ')}`);
    note(
      ctx,
      'enum-non-string',
      `${path}${node.const !== undefined ? '/const' : '/enum'}`,
      'non-string enum values moved into the description (Gemini accepts enum only on strings)',
    );
  } else if (
    node.const === undefined &&
    !(node.type === 'string' && strings.length === values.length && new Set(strings).size === strings.length)
  ) {
    note(
      ctx,
      'enum-type',
      `${path}/enum`,
      `enum written as type string with ${new Set(strings).size} distinct values (Gemini needs type "string" on an enum)`,
    );
  }
  return branches.length === 1 ? branches[0]! : { anyOf: branches };
}

/** Flattens nested anyOf, removes duplicates, merges string-enum branches, unwraps a single branch. */
function simplifyAnyOf(ctx: Ctx, branches: readonly JsonSchemaObject[], path: string): JsonSchemaObject {
  const flat: JsonSchemaObject[] = [];
  for (const b of branches) {
    if (Array.isArray(b.anyOf) && Object.keys(b).every((k) => k === 'anyOf' || k === 'description' || k === 'title'))
      flat.push(...(b.anyOf as JsonSchemaObject[]));
    else flat.push(b);
  }
  const seen = new Set<string>();
  const unique = flat.filter((b) => {
    const key = JSON.stringify(b);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const isStringEnum = (b: JsonSchemaObject) =>
    b.type === 'string' &&
    Array.isArray(b.enum) &&
    Object.keys(b).every((k) => k === 'type' || k === 'enum' || k === 'description' || k === 'title');
  const enums = unique.filter(isStringEnum);
  let out = unique;
  if (enums.length > 1) {
    const merged: JsonSchemaObject = { type: 'string', enum: [...new Set(enums.flatMap((b) => b.enum as string[]))] };
    const at = unique.indexOf(enums[0]!);
    out = unique.filter((b) => !isStringEnum(b));
    out.splice(at, 0, merged);
    note(ctx, 'enum-merged', path, 'a union of string literals written as one string enum');
  }
  return out.length === 1 ? out[0]! : { anyOf: out };
}

/** Both constraints at once, as far as one schema can say it (allOf, and anyOf branches with sibling keywords). */
function mergeSchemas(ctx: Ctx, a: JsonSchemaObject, b: JsonSchemaObject, path: string): JsonSchemaObject {
  if (Array.isArray(a.anyOf))
    return { ...stripAnyOf(a), anyOf: (a.anyOf as JsonSchemaObject[]).map((x) => mergeSchemas(ctx, x, b, path)) };
  if (Array.isArray(b.anyOf))
    return { ...stripAnyOf(b), anyOf: (b.anyOf as JsonSchemaObject[]).map((x) => mergeSchemas(ctx, a, x, path)) };
  const out: JsonSchemaObject = { ...a };
  if (a.type !== undefined && b.type !== undefined && a.type !== b.type) {
    if ((a.type === 'integer' && b.type === 'number') || (a.type === 'number' && b.type === 'integer'))
      out.type = 'integer';
    else
      note(
        ctx,
        'all-of-conflict',
        path,
        `types ${show(a.type)} and ${show(b.type)} cannot both hold; kept ${show(a.type)} (the original schema decides)`,
      );
  }
  for (const [k, v] of Object.entries(b)) {
    if (k === 'type' || v === undefined) continue;
    const mine = out[k];
    if (mine === undefined) out[k] = v;
    else if (k === 'properties' && isObject(mine) && isObject(v)) {
      const props: JsonSchemaObject = { ...mine };
      for (const [p, s] of Object.entries(v))
        props[p] =
          isObject(props[p]) && isObject(s)
            ? mergeSchemas(ctx, props[p] as JsonSchemaObject, s, `${path}/properties${seg(p)}`)
            : s;
      out.properties = props;
    } else if (k === 'required' && Array.isArray(mine) && Array.isArray(v))
      out.required = [...new Set([...mine, ...v])];
    else if (k === 'enum' && Array.isArray(mine) && Array.isArray(v)) {
      const both = mine.filter((x) => v.includes(x));
      out.enum = both.length > 0 ? both : mine;
    } else if (k === 'description' && typeof mine === 'string' && typeof v === 'string' && mine !== v)
      out.description = `${mine} ${v}`;
    else if (k === 'items' && isObject(mine) && isObject(v)) out.items = mergeSchemas(ctx, mine, v, `${path}/items`);
    else if (typeof mine === 'number' && typeof v === 'number') {
      if (k.startsWith('min')) out[k] = Math.max(mine, v);
      else if (k.startsWith('max')) out[k] = Math.min(mine, v);
    }
  }
  return pruneForType(out);
}

/** Removes the keywords of other types than the schema's own (left by merging conflicting schemas). */
function pruneForType(s: JsonSchemaObject): JsonSchemaObject {
  if (typeof s.type !== 'string') return s;
  const own = new Set<string>(['type', ...ANNOTATION_KEYS, ...(OUTPUT_KEYS[s.type] ?? [])]);
  for (const k of Object.keys(s)) if (!own.has(k)) delete s[k];
  if (s.format !== undefined && s.format !== 'date-time') delete s.format;
  return s;
}

function stripAnyOf(s: JsonSchemaObject): JsonSchemaObject {
  const { anyOf: _a, ...rest } = s;
  return rest;
}

/** Post-order cleanup every family needs: `required` only names declared properties. */
function finalize(ctx: Ctx, node: JsonSchemaObject, path: string): void {
  pruneForType(node);
  if (node.type === 'object' && node.required !== undefined) {
    const props = isObject(node.properties) ? node.properties : {};
    const required = (node.required as string[]).filter((r) => r in props);
    if (required.length !== (node.required as string[]).length)
      note(
        ctx,
        'required-undeclared',
        `${path}/required`,
        'required names without a declared property removed (Gemini refuses them; the original schema still requires them)',
      );
    if (required.length > 0) node.required = required;
    else delete node.required;
  }
  if (isObject(node.properties))
    for (const [k, v] of Object.entries(node.properties))
      if (isObject(v)) finalize(ctx, v, `${path}/properties${seg(k)}`);
  if (isObject(node.items)) finalize(ctx, node.items, `${path}/items`);
  if (Array.isArray(node.anyOf)) {
    node.anyOf.forEach((b, i) => {
      if (isObject(b)) finalize(ctx, b, `${path}/anyOf${seg(i)}`);
    });
  }
}

/** The root as one object: a union of objects becomes one object whose properties are the union of the branches. */
function rootObject(ctx: Ctx, schema: JsonSchemaObject, original: JsonSchemaObject): JsonSchemaObject {
  if (schema.type === 'object' && schema.anyOf === undefined) return schema;
  if (Array.isArray(schema.anyOf) && schema.type === undefined) {
    const branches = schema.anyOf as JsonSchemaObject[];
    const objects = branches.filter((b) => b.type === 'object' && b.anyOf === undefined);
    const rest = branches.filter((b) => !objects.includes(b));
    if (objects.length === 0) {
      refuse(
        ctx,
        'root-not-object',
        '',
        `tool arguments are always a JSON object, and no alternative of this union is an object (${summary(schema)})`,
      );
      return schema;
    }
    if (rest.length > 0)
      note(
        ctx,
        'root-non-object-branch',
        '',
        `alternatives that are not objects (${rest.map(summary).join(', ')}) removed from the root: tool arguments are always a JSON object`,
      );
    const ann = annotations(schema);
    if (objects.length === 1) return withAnnotations(objects[0]!, ann);
    note(
      ctx,
      'root-union',
      '',
      `a root union of ${objects.length} objects written as one object with the properties of every alternative (Anthropic, OpenAI and Gemini need type "object" at the root, without anyOf); the original union still validates the input`,
    );
    return unionObject(objects, ann);
  }
  if (schema.anyOf === undefined && schema.type === undefined) return { ...schema, type: 'object' };
  refuse(
    ctx,
    'root-not-object',
    original.type !== undefined ? '/type' : '',
    `tool arguments are always a JSON object; an input of type ${summary(schema)} cannot be offered to a model without changing what the handler receives (wrap it: Type.Object({ value: … }))`,
  );
  return schema;
}

function unionObject(objects: readonly JsonSchemaObject[], ann: JsonSchemaObject): JsonSchemaObject {
  const names: string[] = [];
  for (const o of objects)
    for (const k of Object.keys(isObject(o.properties) ? o.properties : {})) if (!names.includes(k)) names.push(k);
  const properties: JsonSchemaObject = {};
  for (const name of names) {
    const variants: JsonSchemaObject[] = [];
    const seen = new Set<string>();
    for (const o of objects) {
      const s = isObject(o.properties) ? o.properties[name] : undefined;
      if (!isObject(s)) continue;
      const key = JSON.stringify(s);
      if (!seen.has(key)) {
        seen.add(key);
        variants.push(s);
      }
    }
    properties[name] = variants.length === 1 ? variants[0]! : { anyOf: variants };
  }
  const requiredIn = (o: JsonSchemaObject) => (Array.isArray(o.required) ? (o.required as string[]) : []);
  const required = names.filter((n) => objects.every((o) => requiredIn(o).includes(n)));
  const alternatives = objects
    .map((o, i) => {
      const props = Object.keys(isObject(o.properties) ? o.properties : {});
      const label =
        typeof o.title === 'string'
          ? `${o.title}: `
          : typeof o.description === 'string'
            ? `${o.description.replace(/\.$/, '')}: `
            : '';
      const list = props.length
        ? props.map((p) => (requiredIn(o).includes(p) ? `${p} (required)` : p)).join(', ')
        : 'no properties';
      return `${i + 1}) ${label}${list}`;
    })
    .join('; ');
  const out: JsonSchemaObject = { type: 'object', properties };
  if (required.length) out.required = required;
  const base = typeof ann.description === 'string' ? `${ann.description} ` : '';
  return withAnnotations(out, {
    ...ann,
    description: `${base}Give the properties of one of these alternatives: ${alternatives}.`,
  });
}

/** JSON with sorted keys, for comparing schemas regardless of key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    isObject(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

function toJson(value: unknown): { ok: true; json: unknown } | { ok: false; message: string } {
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return { ok: false, message: `the schema is not JSON (${typeof value})` };
    return { ok: true, json: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, message: `the schema is not JSON: ${(e as Error).message}` };
  }
}

/**
 * Checks a capability input schema against every required provider family and rewrites it into a
 * form all of them accept, or says why it cannot. Pure: the input is never changed.
 *
 * @remarks
 * Rewrites (each recorded in `rewrites` with its rule and JSON pointer; the model sees the rewritten
 * schema, the original keeps validating the input before the handler runs):
 *
 * - root union (`anyOf`/`oneOf`) of objects → one object whose properties are the union of the
 *   branches (required: those required in every branch), with a description listing the
 *   alternatives (`root-union`); non-object alternatives of the root are removed, since tool
 *   arguments are always an object (`root-non-object-branch`); a root without a type becomes an object;
 * - `$ref` → the referenced schema inlined (`ref-inlined`); `$defs`, `$id`, `$schema`, … removed (`meta-dropped`);
 * - `const` → a one-value `enum` (`const`); unions of string literals → one string `enum`
 *   (`enum-merged`); non-string enum values → their types, the values in the description (`enum-non-string`);
 * - `oneOf` → `anyOf` (`one-of`); `allOf` → merged into one schema (`all-of`); type lists →
 *   `anyOf` (`type-list`); OpenAPI `nullable: true` → `anyOf` with `null` (`nullable`);
 * - `format` other than `date-time` → into the description (`format`); `exclusiveMinimum`/`Maximum` →
 *   `minimum`/`maximum` plus the bound in the description (`exclusive-bound`); `multipleOf`,
 *   `uniqueItems` → the description; `additionalProperties: false` removed and map schemas
 *   (`additionalProperties` schema, `patternProperties`, TypeBox `Type.Record`) → a described object
 *   (`additional-properties`, `map`); tuples → one `items` schema with the positions described
 *   (`tuple`); arrays without `items` and untyped schemas (`Type.Unknown()`) → an `anyOf` of every JSON
 *   type (`array-items`, `any-value`); other keywords removed (`keyword-dropped`); `required` names
 *   without a property removed (`required-undeclared`).
 *
 * Refusals (in `problems`): `ref-recursive` (a `$ref` cycle, e.g. `Type.Cyclic` with self-reference,
 * or `$dynamicRef`), `ref-unresolved`, `root-not-object` (a root that is not an object and has no
 * object alternative: a string, array, … input cannot be offered as tool arguments without changing
 * what the handler receives), `schema-invalid` (not a schema, e.g. `false` or an unknown type name),
 * `schema-too-large` (more than 20,000 nodes once `$ref`s are inlined).
 *
 * The rewritten schema describes the inputs of the original or more, with the exceptions the
 * providers force: a schema without a type gets the type its keywords imply, arrays inside an
 * untyped value are described one level deep, and a root union keeps only its object alternatives
 * (tool arguments are always an object). That is why the original schema, not the rewrite, validates
 * the model's arguments (`ModelTool.validationSchema`) and every invocation.
 *
 * @param schema - a TypeBox schema or plain JSON Schema
 * @returns the schema to send, the rewrites, the refusals and the OpenAI strict-mode problems
 * @public
 */
export function checkProviderSchema(schema: unknown): ProviderSchemaCheck {
  const parsed = toJson(schema);
  if (!parsed.ok)
    return {
      schema: {},
      rewrites: [],
      problems: [{ rule: 'schema-invalid', path: '', message: parsed.message }],
      strict: [],
    };
  const original = parsed.json;
  if (!isObject(original) && typeof original !== 'boolean') {
    return {
      schema: {},
      rewrites: [],
      problems: [{ rule: 'schema-invalid', path: '', message: `expected a schema object, got ${show(original)}` }],
      strict: [],
    };
  }
  const root = isObject(original) ? original : {};
  const ctx: Ctx = { root, rewrites: [], problems: [], nodes: 0 };
  let out = convert(ctx, original, '', []);
  out = rootObject(ctx, out, root);
  finalize(ctx, out, '');
  if (ctx.rewrites.length === 0 && ctx.problems.length === 0 && isObject(original)) {
    // nothing to rewrite: send the schema as it is (same key order); a difference here is a rewrite nobody recorded
    if (canonical(out) === canonical(original)) out = original;
    else note(ctx, 'normalized', '', 'the schema was normalized into the portable form');
  }
  // the rewriter's own safety net: anything a required family still refuses is a refusal
  if (ctx.problems.length === 0) {
    for (const family of REQUIRED_PROVIDER_FAMILIES) ctx.problems.push(...validateProviderSchema(out, family));
  }
  return {
    schema: out,
    rewrites: ctx.rewrites,
    problems: ctx.problems,
    strict: validateProviderSchema(out, 'openai-strict'),
  };
}

const modelSchemas = new WeakMap<object, Readonly<Record<string, unknown>>>();

/**
 * The schema a model is offered for a capability input schema: the schema itself when every
 * required family accepts it unchanged, else the rewritten copy of {@link checkProviderSchema}
 * (deep-frozen, cached per schema object). Never throws: for a schema with problems it returns the
 * best effort (capabilities made by `defineCapability` never have problems; this path is for
 * descriptors built by hand).
 * @param schema - a capability input schema
 * @returns the model-facing JSON Schema
 * @public
 */
export function modelInputSchemaOf(schema: object): Readonly<Record<string, unknown>> {
  let cached = modelSchemas.get(schema);
  if (!cached) {
    const check = checkProviderSchema(schema);
    cached =
      check.rewrites.length === 0 && check.problems.length === 0
        ? (schema as Record<string, unknown>)
        : deepFreeze(check.schema);
    modelSchemas.set(schema, cached);
  }
  return cached;
}

/**
 * A tool as model providers accept it: `inputSchema` replaced by {@link modelInputSchemaOf} of it,
 * with the original kept as `validationSchema` (arguments are still checked against it) when the two
 * differ. Used for the runtime's own tools (`update_plan`, `search_tools`, `read_tool_result`, `delegate`).
 * @param tool - a tool definition
 * @returns the same tool when its schema needs no rewrite, else a new tool object
 * @public
 */
export function providerSafeTool<T extends ModelTool>(tool: T): T {
  const model = modelInputSchemaOf(tool.inputSchema);
  if (model === tool.inputSchema) return tool;
  return {
    ...tool,
    inputSchema: model as Record<string, unknown>,
    validationSchema: tool.validationSchema ?? tool.inputSchema,
  };
}

/** Freezes a plain-JSON value and everything in it. @internal */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
