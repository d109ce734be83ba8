// The rules of Gemini's function-declaration `Schema` (a select subset of OpenAPI 3.0):
// https://ai.google.dev/api/caching#Schema and https://ai.google.dev/gemini-api/docs/function-calling
import { badSubschema, type Findings } from './findings';
import { isObject, JSON_TYPES, show } from './json';
import { seg } from './json-pointer';
import type { JsonSchemaObject } from './types';
import { walk } from './walk';

/**
 * Keywords of the Gemini function-declaration `Schema` object (https://ai.google.dev/api/caching#Schema).
 * Anything else (`$ref`, `$defs`, `const`, `additionalProperties`, `patternProperties`, `oneOf`,
 * `allOf`, `not`, `exclusiveMinimum`, `multipleOf`, `uniqueItems`, `examples`, …) is refused with
 * "Invalid JSON payload received. Unknown name".
 * @internal
 */
export const GEMINI_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);

/** Gemini `Schema.format` values per type. @internal */
export const GEMINI_FORMATS: Readonly<Record<string, ReadonlySet<string>>> = {
  string: new Set(['enum', 'date-time']),
  number: new Set(['float', 'double']),
  integer: new Set(['int32', 'int64']),
};

/**
 * Checks every subschema under the Gemini rules (the root rules are {@link checkRoot}'s): only the
 * `Schema` fields (`keyword`), `type` is one name (`type`) and present unless the schema has `anyOf`
 * (`type-missing`), `enum` only on `type: "string"` with string values (`enum`), the formats of the
 * type (`format`), every array has one `items` schema (`array-items`), `required` names declared
 * properties (`required`), subschemas are objects (`schema-invalid`).
 * @param f - the findings of `gemini`
 * @param schema - the whole schema
 * @internal
 */
export function validateGemini(f: Findings, schema: JsonSchemaObject): void {
  walk(
    schema,
    '',
    0,
    (node, path) => {
      for (const k of Object.keys(node))
        if (!GEMINI_KEYWORDS.has(k))
          f.add('keyword', `${path}${seg(k)}`, `${k} is not a field of the Gemini function-declaration Schema`);
      const t = node.type;
      if (t === undefined) {
        if (node.anyOf === undefined)
          f.add('type-missing', path, 'type must be specified when the schema has no anyOf');
      } else if (typeof t !== 'string' || !JSON_TYPES.has(t))
        f.add(
          'type',
          `${path}/type`,
          `type must be one type name (string, number, integer, boolean, array, object, null), got ${show(t)}`,
        );
      if (
        node.enum !== undefined &&
        !(t === 'string' && Array.isArray(node.enum) && node.enum.every((v) => typeof v === 'string'))
      )
        f.add('enum', `${path}/enum`, 'enum is only allowed on type "string" with string values');
      if (
        node.format !== undefined &&
        !(typeof t === 'string' && typeof node.format === 'string' && GEMINI_FORMATS[t]?.has(node.format))
      )
        f.add(
          'format',
          `${path}/format`,
          `format ${show(node.format)} is not supported for type ${show(t)} (string: date-time, enum; number: float, double; integer: int32, int64)`,
        );
      if (t === 'array' && !isObject(node.items))
        f.add('array-items', path, 'an array schema must declare one items schema');
      if (node.required !== undefined) {
        const props = isObject(node.properties) ? node.properties : {};
        if (!Array.isArray(node.required))
          f.add('required', `${path}/required`, 'required must be a list of property names');
        else
          node.required.forEach((name, i) => {
            if (typeof name !== 'string' || !(name in props))
              f.add(
                'required',
                `${path}/required${seg(i)}`,
                `required property ${show(name)} is not declared in properties`,
              );
          });
      }
    },
    badSubschema(f),
  );
}
