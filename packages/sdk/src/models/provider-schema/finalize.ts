import { isObject } from './json';
import { seg } from './json-pointer';
import { pruneForType } from './prune-for-type';
import { note, type RewriteContext } from './rewrite-context';
import type { JsonSchemaObject } from './types';

/**
 * The cleanup every family needs, in place, through properties, items and anyOf: keywords of other
 * types removed ({@link pruneForType}), and `required` only names declared properties
 * (`required-undeclared`; an empty `required` is removed).
 * @param ctx - the rewrite
 * @param node - a schema in the portable form (changed)
 * @param path - its JSON pointer
 * @internal
 */
export function finalize(ctx: RewriteContext, node: JsonSchemaObject, path: string): void {
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
