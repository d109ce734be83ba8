// The rewriter: one schema every required family accepts. It is checked by the validator (an
// independent half: the tests run the validator on its output, so they are not circular).
import { convert } from './convert';
import { finalize } from './finalize';
import { canonical, isObject, show, toJson } from './json';
import { note, type RewriteContext } from './rewrite-context';
import { rootObject } from './root-object';
import { type ProviderSchemaCheck, REQUIRED_PROVIDER_FAMILIES } from './types';
import { validateProviderSchema } from './validate';

/**
 * Checks a capability input schema against every required provider family and rewrites it into a
 * form all of them accept, or says why it cannot. Pure: the input is never changed.
 *
 * @remarks
 * Rewrites (each recorded in `rewrites` with its rule and JSON pointer; the model sees the rewritten
 * schema, the original keeps validating the input before the handler runs):
 *
 * - root union (`anyOf`/`oneOf`) of objects → one object whose properties are the union of the
 *   branches (required: those required in every branch), with a description listing the
 *   alternatives (`root-union`); non-object alternatives of the root are removed, since tool
 *   arguments are always an object (`root-non-object-branch`); a root without a type becomes an object;
 * - `$ref` → the referenced schema inlined (`ref-inlined`); `$defs`, `$id`, `$schema`, … removed (`meta-dropped`);
 * - `const` → a one-value `enum` (`const`); unions of string literals → one string `enum`
 *   (`enum-merged`); non-string enum values → their types, the values in the description (`enum-non-string`);
 * - `oneOf` → `anyOf` (`one-of`); `allOf` → merged into one schema (`all-of`); type lists →
 *   `anyOf` (`type-list`); OpenAPI `nullable: true` → `anyOf` with `null` (`nullable`);
 * - `format` other than `date-time` → into the description (`format`); `exclusiveMinimum`/`Maximum` →
 *   `minimum`/`maximum` plus the bound in the description (`exclusive-bound`); `multipleOf`,
 *   `uniqueItems` → the description; `additionalProperties: false` removed and map schemas
 *   (`additionalProperties` schema, `patternProperties`, TypeBox `Type.Record`) → a described object
 *   (`additional-properties`, `map`); tuples → one `items` schema with the positions described
 *   (`tuple`); arrays without `items` and untyped schemas (`Type.Unknown()`) → an `anyOf` of every JSON
 *   type (`array-items`, `any-value`); other keywords removed (`keyword-dropped`); `required` names
 *   without a property removed (`required-undeclared`).
 *
 * Refusals (in `problems`): `ref-recursive` (a `$ref` cycle, e.g. `Type.Cyclic` with self-reference,
 * or `$dynamicRef`), `ref-unresolved`, `root-not-object` (a root that is not an object and has no
 * object alternative: a string, array, … input cannot be offered as tool arguments without changing
 * what the handler receives), `schema-invalid` (not a schema, e.g. `false` or an unknown type name),
 * `schema-too-large` (more than 20,000 nodes once `$ref`s are inlined).
 *
 * The rewritten schema describes the inputs of the original or more, with the exceptions the
 * providers force: a schema without a type gets the type its keywords imply, arrays inside an
 * untyped value are described one level deep, and a root union keeps only its object alternatives
 * (tool arguments are always an object). That is why the original schema, not the rewrite, validates
 * the model's arguments (`ModelTool.validationSchema`) and every invocation.
 *
 * @param schema - a TypeBox schema or plain JSON Schema
 * @returns the schema to send, the rewrites, the refusals and the OpenAI strict-mode problems
 * @public
 */
export function checkProviderSchema(schema: unknown): ProviderSchemaCheck {
  const parsed = toJson(schema);
  if (!parsed.ok)
    return {
      schema: {},
      rewrites: [],
      problems: [{ rule: 'schema-invalid', path: '', message: parsed.message }],
      strict: [],
    };
  const original = parsed.json;
  if (!isObject(original) && typeof original !== 'boolean') {
    return {
      schema: {},
      rewrites: [],
      problems: [{ rule: 'schema-invalid', path: '', message: `expected a schema object, got ${show(original)}` }],
      strict: [],
    };
  }
  const root = isObject(original) ? original : {};
  const ctx: RewriteContext = { root, rewrites: [], problems: [], nodes: 0, convert };
  let out = convert(ctx, original, '', []);
  out = rootObject(ctx, out, root);
  finalize(ctx, out, '');
  if (ctx.rewrites.length === 0 && ctx.problems.length === 0 && isObject(original)) {
    // nothing to rewrite: send the schema as it is (same key order); a difference here is a rewrite nobody recorded
    if (canonical(out) === canonical(original)) out = original;
    else note(ctx, 'normalized', '', 'the schema was normalized into the portable form');
  }
  // the rewriter's own safety net: anything a required family still refuses is a refusal
  if (ctx.problems.length === 0) {
    for (const family of REQUIRED_PROVIDER_FAMILIES) ctx.problems.push(...validateProviderSchema(out, family));
  }
  return {
    schema: out,
    rewrites: ctx.rewrites,
    problems: ctx.problems,
    strict: validateProviderSchema(out, 'openai-strict'),
  };
}
