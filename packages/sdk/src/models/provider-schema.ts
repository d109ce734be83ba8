// Capability input schemas as model providers accept them. Every tool goes with every model call,
// so one schema a provider refuses (HTTP 400) breaks every run of the host: each input schema is
// checked once, when the capability is defined, against the rules of each provider family, and
// either rewritten into an accepted form (what the model sees) or refused with a typed error.
//
// Two independent halves, on purpose (one concept per file in ./provider-schema/):
// - `validateProviderSchema(schema, family)` (validate.ts and validate-<family>.ts): the rules of
//   one family, as a validator; it never changes a schema;
// - `checkProviderSchema(schema)` (check.ts, convert*.ts and the rules they call): the rewriter,
//   which must produce a schema the validator accepts for every required family.
export { checkProviderSchema } from './provider-schema/check';
export { deepFreeze } from './provider-schema/deep-freeze';
export { modelInputSchemaOf } from './provider-schema/model-input-schema';
export { providerSafeTool } from './provider-schema/provider-safe-tool';
export {
  type JsonSchemaObject,
  type ProviderFamily,
  type ProviderSchemaCheck,
  type ProviderSchemaProblem,
  type ProviderSchemaRewrite,
  REQUIRED_PROVIDER_FAMILIES,
} from './provider-schema/types';
export { validateProviderSchema } from './provider-schema/validate';
