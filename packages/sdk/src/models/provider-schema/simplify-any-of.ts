import { note, type RewriteContext } from './rewrite-context';
import type { JsonSchemaObject } from './types';

/**
 * Flattens nested anyOf, removes duplicates, merges string-enum branches (`enum-merged`), unwraps a
 * single branch.
 * @param ctx - the rewrite
 * @param branches - the alternatives, in the portable form
 * @param path - the JSON pointer of the union
 * @returns one schema, or `{ anyOf }` of the remaining alternatives
 * @internal
 */
export function simplifyAnyOf(
  ctx: RewriteContext,
  branches: readonly JsonSchemaObject[],
  path: string,
): JsonSchemaObject {
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
