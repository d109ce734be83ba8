import { checkProviderSchema } from './check';
import { deepFreeze } from './deep-freeze';

const modelSchemas = new WeakMap<object, Readonly<Record<string, unknown>>>();

/**
 * The schema a model is offered for a capability input schema: the schema itself when every
 * required family accepts it unchanged, else the rewritten copy of {@link checkProviderSchema}
 * (deep-frozen, cached per schema object). Never throws: for a schema with problems it returns the
 * best effort (capabilities made by `defineCapability` never have problems; this path is for
 * descriptors built by hand).
 * @param schema - a capability input schema
 * @returns the model-facing JSON Schema
 * @public
 */
export function modelInputSchemaOf(schema: object): Readonly<Record<string, unknown>> {
  let cached = modelSchemas.get(schema);
  if (!cached) {
    const check = checkProviderSchema(schema);
    cached =
      check.rewrites.length === 0 && check.problems.length === 0
        ? (schema as Record<string, unknown>)
        : deepFreeze(check.schema);
    modelSchemas.set(schema, cached);
  }
  return cached;
}
