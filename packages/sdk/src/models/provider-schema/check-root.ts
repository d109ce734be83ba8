import type { Findings } from './findings';
import { isObject, show } from './json';
import { seg } from './json-pointer';
import type { JsonSchemaObject } from './types';

/**
 * The root rules of every family: a JSON object with `type: "object"` (`root-type`), and no root
 * `anyOf`/`oneOf`/`allOf` (`root-combinator`; OpenAI also refuses a root `enum` or `not`).
 * @param f - the findings
 * @param schema - the whole schema
 * @returns the schema when it is an object (the walk goes on), else `undefined`
 * @internal
 */
export function checkRoot(f: Findings, schema: unknown): JsonSchemaObject | undefined {
  if (!isObject(schema)) {
    f.add('root-type', '', `the input schema must be a JSON object with type "object", got ${show(schema)}`);
    return undefined;
  }
  if (schema.type !== 'object')
    f.add('root-type', '/type', `the root must have type "object", got ${show(schema.type)}`);
  const rootCombinators =
    f.family === 'openai' || f.family === 'openai-strict'
      ? ['anyOf', 'oneOf', 'allOf', 'enum', 'not']
      : ['anyOf', 'oneOf', 'allOf'];
  for (const c of rootCombinators)
    if (schema[c] !== undefined)
      f.add('root-combinator', seg(c), `${c} is not allowed at the root of a tool input schema`);
  return schema;
}
