// The rules of the JSON Schema families: Anthropic `input_schema` (draft 2020-12) and OpenAI
// function parameters without `strict`.
import { checkRef } from './check-ref';
import { badSubschema, type Findings } from './findings';
import { typeNames } from './type-names';
import type { JsonSchemaObject } from './types';
import { walk } from './walk';

/**
 * Checks every subschema under the rules of `anthropic` or `openai` (the root rules are
 * {@link checkRoot}'s): `type` is a JSON type name or a list of them (`type`), every `$ref`
 * resolves (`ref-unresolved`), subschemas are schemas (`schema-invalid`); Anthropic: `items` is one
 * schema (`items-array`), `required` is a list of unique strings (`required`); OpenAI: every array
 * declares `items` (`array-items`).
 * @param f - the findings of `anthropic` or `openai`
 * @param schema - the whole schema
 * @internal
 */
export function validateDraft(f: Findings, schema: JsonSchemaObject): void {
  walk(
    schema,
    '',
    0,
    (node, path) => {
      const types = typeNames(f, node, path);
      checkRef(f, schema, node, path);
      if (f.family === 'anthropic') {
        if (Array.isArray(node.items))
          f.add('items-array', `${path}/items`, 'items must be one schema (draft 2020-12 uses prefixItems for tuples)');
        const r = node.required;
        if (
          r !== undefined &&
          !(Array.isArray(r) && r.every((x) => typeof x === 'string') && new Set(r).size === r.length)
        )
          f.add('required', `${path}/required`, 'required must be a list of unique property names');
      } else if (types?.includes('array') && node.items === undefined)
        f.add('array-items', path, 'an array schema must declare items');
    },
    badSubschema(f),
  );
}
