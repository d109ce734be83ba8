import { convertArray } from './convert-array';
import { convertNumber } from './convert-number';
import { convertObject } from './convert-object';
import { convertString } from './convert-string';
import type { RewriteContext } from './rewrite-context';
import type { JsonSchemaObject } from './types';

/**
 * A schema of one JSON type in the portable form: the rule of that type (`convertString`,
 * `convertNumber`, `convertArray`, `convertObject`); `{ type }` alone for `boolean` and `null`.
 * @param ctx - the rewrite
 * @param node - the original schema
 * @param type - the JSON type name
 * @param path - its JSON pointer
 * @param stack - the schema objects being expanded
 * @param notes - receives what goes into the description
 * @returns the schema
 * @internal
 */
export function convertTyped(
  ctx: RewriteContext,
  node: JsonSchemaObject,
  type: string,
  path: string,
  stack: readonly object[],
  notes: string[],
): JsonSchemaObject {
  if (type === 'string') return convertString(ctx, node, path, notes);
  if (type === 'number' || type === 'integer') return convertNumber(ctx, node, type, path, notes);
  if (type === 'array') return convertArray(ctx, node, path, stack, notes);
  if (type === 'object') return convertObject(ctx, node, path, stack, notes);
  return { type };
}
