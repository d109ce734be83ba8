import type { Findings } from './findings';
import { show } from './json';
import { resolveRef } from './resolve-ref';
import type { JsonSchemaObject } from './types';

/**
 * `ref-unresolved` when the node's `$ref` does not resolve inside the root schema.
 * @param f - the findings
 * @param root - the whole schema
 * @param node - one subschema
 * @param path - its JSON pointer
 * @internal
 */
export function checkRef(f: Findings, root: JsonSchemaObject, node: JsonSchemaObject, path: string): void {
  if (node.$ref === undefined) return;
  if (typeof node.$ref !== 'string' || !resolveRef(root, node.$ref))
    f.add('ref-unresolved', `${path}/$ref`, `$ref ${show(node.$ref)} does not resolve inside the schema`);
}
