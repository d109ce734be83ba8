import { annotations, withAnnotations } from './annotations';
import { note, refuse, type RewriteContext } from './rewrite-context';
import { summary } from './summary';
import type { JsonSchemaObject } from './types';
import { unionObject } from './union-object';

/**
 * The root as one object: a union of objects becomes one object whose properties are the union of
 * the branches (`root-union`, see {@link unionObject}), non-object alternatives are removed
 * (`root-non-object-branch`), a root without a type becomes an object; a root that is not an object
 * and has no object alternative is refused (`root-not-object`).
 * @param ctx - the rewrite
 * @param schema - the converted root
 * @param original - the original root (for the refusal's pointer)
 * @returns the root object (or `schema` unchanged when refused)
 * @internal
 */
export function rootObject(
  ctx: RewriteContext,
  schema: JsonSchemaObject,
  original: JsonSchemaObject,
): JsonSchemaObject {
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
