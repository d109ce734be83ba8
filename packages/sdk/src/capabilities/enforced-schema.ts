import type { ProviderSchemaProblem } from '../models/provider-schema';

// The input schema a capability is validated with is also the schema it is published with (MCP
// `tools/list`), so both must mean the same thing to any JSON Schema 2020-12 validator, not only to
// TypeBox's. TypeBox's checker also reads keywords of earlier drafts (`items` as an array,
// `additionalItems`, `dependencies`) that 2020-12 replaced; those are rewritten here, once, into their
// exact 2020-12 equivalents. What cannot be made equal is refused:
// - a `$schema` dialect other than 2020-12 whose meaning would change (draft-06/-07 are read as 2020-12
//   after the rewrite; `$ref` with sibling keywords, which draft-07 ignores, is refused; other dialects
//   are refused);
// - TypeBox refinements and codecs (`Type.Refine`, `Type.Codec`): a predicate no published schema can say.
// Dialect rules: https://json-schema.org/draft/2020-12/release-notes and
// https://json-schema.org/draft/2019-09/release-notes (what changed from draft-07).

/** The JSON Schema 2020-12 dialect URI (the default dialect of MCP tool schemas). @internal */
export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

const DIALECT_2020_12 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
const DIALECT_DRAFT_06_07 = /^https?:\/\/json-schema\.org\/draft-0[67]\/schema#?$/;

/** Keywords whose value is one subschema. */
const ONE = [
  'additionalProperties',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
  'additionalItems',
];
/** Keywords whose value maps names to subschemas. */
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
/** Keywords whose value is a list of subschemas. */
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords that only annotate: harmless next to `$ref` in any dialect. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  'example',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
]);

/** The outcome of {@link enforcedSchema}. @internal */
export interface EnforcedSchema {
  /** The schema to validate with and publish: the given object when nothing changed, else a rewritten copy. */
  schema: object;
  /** Refusals (`schema-dialect`, `schema-refine`), with JSON pointers into the given schema. */
  problems: ProviderSchemaProblem[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function seg(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A shallow copy that keeps TypeBox's non-enumerable markers (`~kind`, `~optional`, …). */
function copyNode(node: Record<string, unknown>): Record<string, unknown> {
  return Object.defineProperties({}, Object.getOwnPropertyDescriptors(node)) as Record<string, unknown>;
}

/**
 * The input schema as it is enforced and published: JSON Schema 2020-12 that TypeBox's checker and any
 * 2020-12 validator read alike. Rewrites `items: [..]` (+ `additionalItems`) into `prefixItems` (+ `items`),
 * `dependencies` into `dependentRequired` / `dependentSchemas`, and a draft-06/-07 `$schema` into the
 * 2020-12 URI; refuses what cannot be made equal (see the file comment).
 * @internal
 */
export function enforcedSchema(schema: object): EnforcedSchema {
  const problems: ProviderSchemaProblem[] = [];
  const refuse = (rule: string, path: string, message: string) => problems.push({ rule, path, message });
  const root = schema as Record<string, unknown>;
  let draft07 = false;
  const rootDialect = root.$schema;
  if (rootDialect !== undefined) {
    if (typeof rootDialect === 'string' && DIALECT_DRAFT_06_07.test(rootDialect)) draft07 = true;
    else if (typeof rootDialect !== 'string' || !DIALECT_2020_12.test(rootDialect))
      refuse(
        'schema-dialect',
        '/$schema',
        `only JSON Schema 2020-12 (or draft-06/-07, read as 2020-12) is enforced; got ${JSON.stringify(rootDialect)}`,
      );
  }
  // What each node object became. A subschema object used at several places (a TypeBox schema held in a `const`
  // and reused) gets the same rewrite at each of them. The entry is made before the node's children are walked, so
  // an object that contains itself ends the walk (its inner occurrence is kept as given).
  const rewritten = new Map<object, unknown>();

  const walk = (node: unknown, path: string): unknown => {
    if (!isObject(node)) return node; // booleans, or not a schema (the compiler has judged it already)
    if (rewritten.has(node)) return rewritten.get(node);
    rewritten.set(node, node);
    const result = rewrite(node, path);
    rewritten.set(node, result);
    return result;
  };

  const rewrite = (node: Record<string, unknown>, path: string): unknown => {
    if ('~refine' in node || '~codec' in node)
      refuse(
        'schema-refine',
        path,
        'a TypeBox refinement or codec validates with a function no published JSON Schema can express; use JSON Schema keywords (pattern, minimum, enum, …)',
      );
    if (
      path !== '' &&
      node.$schema !== undefined &&
      !(typeof node.$schema === 'string' && DIALECT_2020_12.test(node.$schema))
    )
      refuse(
        'schema-dialect',
        `${path}/$schema`,
        `an embedded resource must use JSON Schema 2020-12; got ${JSON.stringify(node.$schema)}`,
      );
    if (draft07 && typeof node.$ref === 'string') {
      const siblings = Object.keys(node).filter(
        (k) => k !== '$ref' && k !== '$schema' && k !== '$id' && !ANNOTATIONS.has(k),
      );
      if (siblings.length > 0)
        refuse(
          'schema-dialect',
          path,
          `draft-07 ignores keywords next to $ref (${siblings.join(', ')}); 2020-12 applies them: wrap them in allOf or declare 2020-12`,
        );
    }
    let out: Record<string, unknown> | undefined;
    const set = (key: string, value: unknown) => {
      out ??= copyNode(node);
      if (value === undefined) delete out[key];
      else out[key] = value;
    };
    for (const key of ONE) {
      if (!(key in node)) continue;
      const next = walk(node[key], `${path}/${key}`);
      if (next !== node[key]) set(key, next);
    }
    for (const key of MAP) {
      const map = node[key];
      if (!isObject(map)) continue;
      let copy: Record<string, unknown> | undefined;
      for (const [name, sub] of Object.entries(map)) {
        const next = walk(sub, `${path}/${key}/${seg(name)}`);
        if (next !== sub) (copy ??= { ...map })[name] = next;
      }
      if (copy) set(key, copy);
    }
    for (const key of LIST) {
      const list = node[key];
      if (!Array.isArray(list)) continue;
      const next = list.map((sub, i) => walk(sub, `${path}/${key}/${i}`));
      if (next.some((sub, i) => sub !== list[i])) set(key, next);
    }
    const items = node.items;
    if (Array.isArray(items)) {
      // draft-07 tuple form (TypeBox's Type.Tuple emits it): 2020-12 spells it prefixItems + items
      set(
        'prefixItems',
        items.map((sub, i) => walk(sub, `${path}/items/${i}`)),
      );
      const rest = (out ?? node).additionalItems;
      set('items', rest === undefined ? undefined : rest);
      set('additionalItems', undefined);
    } else {
      if ('items' in node) {
        const next = walk(items, `${path}/items`);
        if (next !== items) set('items', next);
      }
      // without an array `items`, additionalItems means nothing in draft-07 and is no keyword in 2020-12
      if ('additionalItems' in node) set('additionalItems', undefined);
    }
    const dependencies = node.dependencies;
    if (isObject(dependencies)) {
      const required: Record<string, unknown> = { ...(isObject(node.dependentRequired) ? node.dependentRequired : {}) };
      const schemas: Record<string, unknown> = {
        ...(isObject(node.dependentSchemas) ? ((out ?? node).dependentSchemas as Record<string, unknown>) : {}),
      };
      for (const [name, dep] of Object.entries(dependencies)) {
        if (Array.isArray(dep)) required[name] = dep;
        else schemas[name] = walk(dep, `${path}/dependencies/${seg(name)}`);
      }
      if (Object.keys(required).length > 0) set('dependentRequired', required);
      if (Object.keys(schemas).length > 0) set('dependentSchemas', schemas);
      set('dependencies', undefined);
    }
    if (out && (Array.isArray(items) || isObject(dependencies))) {
      // TypeBox's checker dispatches on its kind marker (a Tuple reads `items` as a list): the rewritten
      // node is plain JSON Schema now, so it is checked by its keywords
      Object.defineProperty(out, '~kind', { value: undefined, enumerable: false, configurable: true });
      delete out['~kind'];
    }
    if (path === '' && draft07) set('$schema', JSON_SCHEMA_2020_12);
    return out ?? node;
  };

  const result = walk(schema, '');
  return { schema: result as object, problems };
}
