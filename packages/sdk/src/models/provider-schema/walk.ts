import { isObject } from './json';
import { seg } from './json-pointer';
import type { JsonSchemaObject } from './types';

/** Called on every subschema object with its JSON pointer and nesting level. @internal */
export type Visit = (node: JsonSchemaObject, path: string, depth: number) => void;

/**
 * Calls `visit` on every subschema object (properties, items, combinators, definitions, …), parents
 * before children, at most 200 levels deep; calls `bad` for a subschema that is not an object
 * (booleans included: the caller decides whether they are allowed).
 * @param node - the schema
 * @param path - its JSON pointer
 * @param depth - its nesting level
 * @param visit - called on each subschema object
 * @param bad - called on each subschema that is not an object
 * @internal
 */
export function walk(
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
