// The public shapes of the provider-schema check: the JSON Schema as plain JSON, the families whose
// rules are checked, and what a check reports (problems, rewrites, the outcome).

/**
 * A JSON Schema as plain JSON (no TypeBox symbols, no functions).
 * @public
 */
export type JsonSchemaObject = { [keyword: string]: unknown };

/**
 * The provider families whose tool-schema rules are checked.
 *
 * - `anthropic`: Messages API `tools[].input_schema`;
 * - `openai`: Chat Completions `tools[].function.parameters` without `strict` (what this SDK sends);
 * - `openai-strict`: the same with `strict: true` (Structured Outputs subset; opt-in, never required here);
 * - `gemini`: Gemini through its OpenAI-compatible endpoint (parameters become a function declaration `Schema`).
 *
 * @public
 */
export type ProviderFamily = 'anthropic' | 'openai' | 'openai-strict' | 'gemini';

/**
 * The families every model-facing capability schema must satisfy (strict mode is opt-in and only
 * reported, see {@link ProviderSchemaCheck.strict}).
 * @public
 */
export const REQUIRED_PROVIDER_FAMILIES: readonly ProviderFamily[] = Object.freeze([
  'anthropic',
  'openai',
  'gemini',
] as const);

/**
 * One rule a schema breaks.
 *
 * @remarks
 * Rules of {@link validateProviderSchema} are prefixed with the family (`anthropic.root-type`,
 * `openai.array-items`, `openai-strict.additional-properties`, `gemini.keyword`, …). Refusals of
 * {@link checkProviderSchema} have no prefix: `ref-recursive`, `ref-unresolved`, `root-not-object`,
 * `schema-invalid`, `schema-too-large`; as a safety net it also reports, with the family prefix, any
 * rule of a required family its rewrite still breaks.
 *
 * @public
 */
export interface ProviderSchemaProblem {
  /** Stable rule name, e.g. `ref-recursive` or `gemini.keyword`. */
  rule: string;
  /** JSON pointer into the schema (the original for refusals, the checked schema for validator problems); `""` is the root. */
  path: string;
  /** What is wrong, for people. */
  message: string;
}

/**
 * One change {@link checkProviderSchema} made so that every family accepts the schema.
 * @public
 */
export interface ProviderSchemaRewrite {
  /** Stable rule name, e.g. `root-union`, `ref-inlined`, `const`, `format`, `additional-properties`. */
  rule: string;
  /** JSON pointer into the original schema (inside an inlined `$defs` entry, that entry's pointer). */
  path: string;
  /** What was changed. */
  message: string;
}

/**
 * Outcome of {@link checkProviderSchema}.
 * @public
 */
export interface ProviderSchemaCheck {
  /**
   * The schema to send to models: a plain-JSON copy of the input when nothing had to change
   * (`rewrites` empty), else the rewritten schema. When `problems` is not empty it is a best effort
   * and must not be relied on (`defineCapability` refuses such a capability).
   */
  schema: JsonSchemaObject;
  /** What was rewritten (empty when the input is accepted as is). */
  rewrites: ProviderSchemaRewrite[];
  /** Why the schema cannot be made acceptable; empty when it can. */
  problems: ProviderSchemaProblem[];
  /**
   * Problems of `schema` under OpenAI strict mode (for information: this SDK sends tools without
   * `strict`, so they never refuse a capability; a strict path would have to build its own schema,
   * e.g. every property required, optional ones nullable, `additionalProperties: false`).
   */
  strict: ProviderSchemaProblem[];
}
