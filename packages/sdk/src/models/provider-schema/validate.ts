// The validator: the rules of each provider family, never changing a schema. It is independent of
// the rewriter on purpose: the rewriter's output must pass it for every required family.
//
// Sources (public):
// - Anthropic tool use, `input_schema`: https://docs.anthropic.com/en/docs/build-with-claude/tool-use
// - OpenAI function calling and Structured Outputs (strict mode) supported schemas:
//   https://platform.openai.com/docs/guides/function-calling and
//   https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
// - Gemini OpenAI compatibility: https://ai.google.dev/gemini-api/docs/openai, and the Gemini
//   function-declaration `Schema` object (a select subset of OpenAPI 3.0):
//   https://ai.google.dev/api/caching#Schema and https://ai.google.dev/gemini-api/docs/function-calling
import { checkRoot } from './check-root';
import { dedupeProblems } from './dedupe-problems';
import { findings } from './findings';
import type { ProviderFamily, ProviderSchemaProblem } from './types';
import { validateDraft } from './validate-draft';
import { validateGemini } from './validate-gemini';
import { validateOpenAiStrict } from './validate-openai-strict';

/**
 * Checks a tool input schema against the rules of one provider family. Pure; never changes the schema.
 *
 * @remarks
 * Rules per family (each problem's `rule` is `<family>.<rule>`):
 *
 * - every family: the root is a JSON object with `type: "object"` (`root-type`) and no root
 *   `anyOf`/`oneOf`/`allOf` (`root-combinator`; Anthropic: "input_schema does not support oneOf,
 *   allOf, or anyOf at the top level"; OpenAI also refuses a root `enum` or `not`);
 * - `anthropic` (JSON Schema draft 2020-12): `type` is a JSON type name or a list of them (`type`),
 *   `items` is a schema, not a list (`items-array`), `required` is a list of unique strings (`required`),
 *   every `$ref` resolves inside the schema (`ref-unresolved`), subschemas are objects or booleans (`schema-invalid`);
 * - `openai` (function parameters, not strict): `type` as above, every array declares `items`
 *   (`array-items`), every `$ref` resolves (`ref-unresolved`), subschemas are schemas (`schema-invalid`);
 * - `openai-strict` (Structured Outputs): every object has `additionalProperties: false`
 *   (`additional-properties`) and lists every property in `required` (`required`), only the supported
 *   keywords (`keyword`) and string formats (`format`), every subschema has a `type`, `anyOf`, `enum`,
 *   `const` or `$ref` (`type`), at most 5000 properties (`properties-limit`), 10 levels of nesting
 *   (`depth`), 1000 enum values (`enum-limit`), 120,000 characters of property names, definition
 *   names, enum and const values (`string-limit`), 15,000 characters in one enum of more than 250
 *   values (`enum-string-limit`);
 * - `gemini` (function-declaration `Schema`, a subset of OpenAPI 3.0): only the `Schema` fields
 *   (`keyword`: no `$ref`, `$defs`, `const`, `additionalProperties`, `patternProperties`, `oneOf`,
 *   `allOf`, `not`, `exclusiveMinimum`, `multipleOf`, `uniqueItems`, `examples`, …), `type` is one
 *   name, not a list (`type`), and is present unless the schema has `anyOf` (`type-missing`), `enum`
 *   only on `type: "string"` with string values (`enum`), formats `date-time`/`enum` (string),
 *   `float`/`double` (number), `int32`/`int64` (integer) (`format`), every array has an `items`
 *   schema (`array-items`), `required` names declared properties (`required`), subschemas are objects (`schema-invalid`).
 *
 * @param schema - the JSON Schema a provider would receive (plain JSON or a TypeBox schema)
 * @param family - the provider family
 * @returns the problems found, empty when the family accepts the schema
 * @public
 */
export function validateProviderSchema(schema: unknown, family: ProviderFamily): ProviderSchemaProblem[] {
  const f = findings(family);
  const root = checkRoot(f, schema);
  if (!root) return f.problems;
  if (family === 'anthropic' || family === 'openai') validateDraft(f, root);
  else if (family === 'gemini') validateGemini(f, root);
  else {
    validateOpenAiStrict(f, root);
    return dedupeProblems(f.problems);
  }
  return f.problems;
}
