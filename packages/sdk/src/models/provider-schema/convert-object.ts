import { isObject } from './json';
import { seg } from './json-pointer';
import { countAt, dropKeyword } from './keyword-values';
import { note, refuse, type RewriteContext } from './rewrite-context';
import { summary } from './summary';
import type { JsonSchemaObject } from './types';

/**
 * An object schema in the portable form: `properties` rewritten one by one, `required` without
 * repeats, `minProperties`/`maxProperties` kept; `additionalProperties` removed (`false`/`true`:
 * `additional-properties`; a schema, and `patternProperties`, `propertyNames` patterns: moved into
 * the description as a map, `map`); `dependentRequired` and the like removed. Invalid `properties`
 * or `required` are refused (`schema-invalid`).
 * @param ctx - the rewrite (its `convert` rewrites the property schemas)
 * @param node - the original schema
 * @param path - its JSON pointer
 * @param stack - the schema objects being expanded
 * @param notes - receives what goes into the description
 * @returns `{ type: "object", … }`
 * @internal
 */
export function convertObject(
  ctx: RewriteContext,
  node: JsonSchemaObject,
  path: string,
  stack: readonly object[],
  notes: string[],
): JsonSchemaObject {
  const out: JsonSchemaObject = { type: 'object' };
  if (node.properties !== undefined) {
    if (!isObject(node.properties))
      refuse(ctx, 'schema-invalid', `${path}/properties`, 'properties must be an object of schemas');
    else {
      const props: JsonSchemaObject = {};
      for (const [k, v] of Object.entries(node.properties))
        props[k] = ctx.convert(ctx, v, `${path}/properties${seg(k)}`, stack);
      out.properties = props;
    }
  }
  if (node.required !== undefined) {
    if (Array.isArray(node.required) && node.required.every((r) => typeof r === 'string'))
      out.required = [...new Set(node.required as string[])];
    else refuse(ctx, 'schema-invalid', `${path}/required`, 'required must be a list of property names');
  }
  for (const k of ['minProperties', 'maxProperties'] as const) {
    const v = countAt(node, k);
    if (v !== undefined) out[k] = v;
    else if (node[k] !== undefined) dropKeyword(ctx, path, k, 'not a non-negative integer');
  }
  const ap = node.additionalProperties;
  if (ap === false)
    note(
      ctx,
      'additional-properties',
      `${path}/additionalProperties`,
      'additionalProperties: false removed (Gemini accepts no additionalProperties; the original schema still refuses other properties)',
    );
  else if (ap === true)
    note(
      ctx,
      'additional-properties',
      `${path}/additionalProperties`,
      'additionalProperties: true removed (the default)',
    );
  else if (ap !== undefined) {
    const values = ctx.convert(ctx, ap, `${path}/additionalProperties`, stack);
    notes.push(`${out.properties ? 'other keys' : 'any keys'}, each value ${summary(values)}`);
    note(
      ctx,
      'map',
      `${path}/additionalProperties`,
      'additionalProperties schema moved into the description (Gemini accepts no additionalProperties)',
    );
  }
  if (node.patternProperties !== undefined) {
    if (isObject(node.patternProperties)) {
      const parts = Object.entries(node.patternProperties).map(([pattern, s]) => {
        const values = ctx.convert(ctx, s, `${path}/patternProperties${seg(pattern)}`, stack);
        return pattern === '^.*$' || pattern === '.*' || pattern === '^(.*)$'
          ? `any keys, each value ${summary(values)}`
          : `keys matching ${pattern}, each value ${summary(values)}`;
      });
      notes.push(...parts);
    }
    note(
      ctx,
      'map',
      `${path}/patternProperties`,
      'patternProperties moved into the description (Gemini and OpenAI strict mode accept no patternProperties)',
    );
  }
  if (isObject(node.propertyNames) && typeof node.propertyNames.pattern === 'string')
    notes.push(`keys match ${node.propertyNames.pattern}`);
  for (const k of ['propertyNames', 'unevaluatedProperties', 'dependentRequired', 'dependentSchemas', 'dependencies'])
    if (node[k] !== undefined) dropKeyword(ctx, path, k, 'not accepted by every provider');
  return out;
}
