import type { Findings } from './findings';
import { JSON_TYPES, show } from './json';
import type { JsonSchemaObject } from './types';

/**
 * The node's type names (a name or a non-empty list of JSON type names); `type` problem otherwise.
 * @param f - the findings
 * @param node - one subschema
 * @param path - its JSON pointer
 * @returns the names, or `undefined` when the node has no valid `type`
 * @internal
 */
export function typeNames(f: Findings, node: JsonSchemaObject, path: string): string[] | undefined {
  const t = node.type;
  if (t === undefined) return undefined;
  const list = Array.isArray(t) ? t : [t];
  if (list.length === 0 || !list.every((x) => typeof x === 'string' && JSON_TYPES.has(x))) {
    f.add(
      'type',
      `${path}/type`,
      `type must be one of ${[...JSON_TYPES].join(', ')} (or a list of them), got ${show(t)}`,
    );
    return undefined;
  }
  return list as string[];
}
