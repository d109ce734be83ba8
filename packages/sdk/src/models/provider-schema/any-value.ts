import type { JsonSchemaObject } from './types';

/**
 * A value of any JSON type, in the form every family accepts (Gemini needs a type or anyOf on every
 * schema): an `anyOf` of every type, arrays of scalars or objects one level deep. A new object each call.
 * @returns the schema
 * @internal
 */
export function anyValue(): JsonSchemaObject {
  const scalars = () => [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'object' },
    { type: 'null' },
  ];
  return { anyOf: [...scalars(), { type: 'array', items: { anyOf: scalars() } }] };
}
