import { isObject, show } from './json';
import { seg } from './json-pointer';
import { pruneForType } from './prune-for-type';
import { note, type RewriteContext } from './rewrite-context';
import type { JsonSchemaObject } from './types';

/**
 * Both constraints at once, as far as one schema can say it (allOf, and anyOf branches with sibling
 * keywords): anyOf distributed, properties merged, `required` united, enums intersected, the tighter
 * numeric bound kept; conflicting types keep the first (`all-of-conflict`).
 * @param ctx - the rewrite
 * @param a - a schema in the portable form
 * @param b - another
 * @param path - the JSON pointer of the merge
 * @returns a new schema
 * @internal
 */
export function mergeSchemas(
  ctx: RewriteContext,
  a: JsonSchemaObject,
  b: JsonSchemaObject,
  path: string,
): JsonSchemaObject {
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

/**
 * A copy of a schema without its `anyOf`.
 * @param s - a schema
 * @returns a new object
 * @internal
 */
export function stripAnyOf(s: JsonSchemaObject): JsonSchemaObject {
  const { anyOf: _a, ...rest } = s;
  return rest;
}
