import { anyValue } from './any-value';
import { seg } from './json-pointer';
import { countAt, dropKeyword } from './keyword-values';
import { note, type RewriteContext } from './rewrite-context';
import { simplifyAnyOf } from './simplify-any-of';
import { summary } from './summary';
import type { JsonSchemaObject } from './types';

/**
 * An array schema in the portable form: one `items` schema (a tuple, `prefixItems` or an `items`
 * list, becomes the union of its positions with the positions described, `tuple`, and a closed
 * tuple a `maxItems`; no `items` becomes any value, `array-items`); `minItems`/`maxItems` kept;
 * `uniqueItems: true` moved into the description; `contains` and the like removed.
 * @param ctx - the rewrite (its `convert` rewrites the item schemas)
 * @param node - the original schema
 * @param path - its JSON pointer
 * @param stack - the schema objects being expanded
 * @param notes - receives what goes into the description
 * @returns `{ type: "array", items, … }`
 * @internal
 */
export function convertArray(
  ctx: RewriteContext,
  node: JsonSchemaObject,
  path: string,
  stack: readonly object[],
  notes: string[],
): JsonSchemaObject {
  const out: JsonSchemaObject = { type: 'array' };
  const tuple = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : undefined;
  if (tuple) {
    const key = Array.isArray(node.prefixItems) ? 'prefixItems' : 'items';
    const items = tuple.map((s, i) => ctx.convert(ctx, s, `${path}${seg(key)}${seg(i)}`, stack));
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
  } else if (node.items !== undefined) out.items = ctx.convert(ctx, node.items, `${path}/items`, stack);
  else {
    out.items = anyValue();
    note(ctx, 'array-items', path, 'items added (OpenAI and Gemini need items on every array)');
  }
  for (const k of ['minItems', 'maxItems'] as const) {
    const v = countAt(node, k);
    if (v !== undefined) out[k] = k === 'maxItems' && typeof out.maxItems === 'number' ? Math.min(v, out.maxItems) : v;
    else if (node[k] !== undefined) dropKeyword(ctx, path, k, 'not a non-negative integer');
  }
  if (node.uniqueItems === true) {
    notes.push('items are unique');
    note(
      ctx,
      'keyword-dropped',
      `${path}/uniqueItems`,
      'uniqueItems moved into the description (Gemini accepts no uniqueItems)',
    );
  } else if (node.uniqueItems !== undefined) dropKeyword(ctx, path, 'uniqueItems', 'not accepted by every provider');
  for (const k of ['contains', 'minContains', 'maxContains', 'unevaluatedItems'])
    if (node[k] !== undefined) dropKeyword(ctx, path, k, 'not accepted by every provider');
  if (node.additionalItems !== undefined && !tuple)
    dropKeyword(ctx, path, 'additionalItems', 'not accepted by every provider');
  else if (node.additionalItems !== undefined && node.additionalItems !== false)
    dropKeyword(ctx, path, 'additionalItems', 'not accepted by every provider');
  return out;
}
