// Keyword groups of JSON Schema, as the rewriter sorts them.

/** Keywords that describe a schema without constraining it (kept by the rewriter). @internal */
export const ANNOTATION_KEYS = ['title', 'description', 'default', 'example'] as const;

/** Identifiers and containers that carry no constraint of their own once `$ref`s are inlined. @internal */
export const META_KEYS: ReadonlySet<string> = new Set([
  '$id',
  '$schema',
  '$comment',
  '$anchor',
  '$dynamicAnchor',
  '$vocabulary',
  '$defs',
  'definitions',
]);

/** The combinators. @internal */
export const COMBINATOR_KEYS: ReadonlySet<string> = new Set(['anyOf', 'oneOf', 'allOf']);

/** Keywords of string schemas. @internal */
export const STRING_KEYS: readonly string[] = [
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
];

/** Keywords of number and integer schemas. @internal */
export const NUMBER_KEYS: readonly string[] = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'format',
];

/** Keywords of array schemas. @internal */
export const ARRAY_KEYS: readonly string[] = [
  'items',
  'prefixItems',
  'additionalItems',
  'minItems',
  'maxItems',
  'uniqueItems',
  'contains',
  'minContains',
  'maxContains',
  'unevaluatedItems',
];

/** Keywords of object schemas. @internal */
export const OBJECT_KEYS: readonly string[] = [
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'unevaluatedProperties',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
];

/** The keywords the rewriter emits per type (what every required family accepts). @internal */
export const OUTPUT_KEYS: Readonly<Record<string, readonly string[]>> = {
  string: ['enum', 'minLength', 'maxLength', 'pattern', 'format'],
  number: ['minimum', 'maximum'],
  integer: ['minimum', 'maximum'],
  array: ['items', 'minItems', 'maxItems'],
  object: ['properties', 'required', 'minProperties', 'maxProperties'],
};

/**
 * The keywords that belong to one JSON type (none for `boolean` and `null`).
 * @param type - a JSON type name
 * @returns the keyword group
 * @internal
 */
export function keysOf(type: string): readonly string[] {
  switch (type) {
    case 'string':
      return STRING_KEYS;
    case 'number':
    case 'integer':
      return NUMBER_KEYS;
    case 'array':
      return ARRAY_KEYS;
    case 'object':
      return OBJECT_KEYS;
    default:
      return [];
  }
}
