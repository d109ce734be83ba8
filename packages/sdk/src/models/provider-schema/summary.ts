import { isObject, show } from './json';
import type { JsonSchemaObject } from './types';

/**
 * A short human summary of a converted schema, for descriptions ("string", "integer", "object",
 * "array of string", "one of a, b", "string or null"; "any JSON value" for more than 5 alternatives).
 * @param schema - a schema in the portable form
 * @returns the summary
 * @internal
 */
export function summary(schema: JsonSchemaObject): string {
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => show(v)).join(', ')}`;
  if (typeof schema.type === 'string')
    return schema.type === 'array' && isObject(schema.items) ? `array of ${summary(schema.items)}` : schema.type;
  if (Array.isArray(schema.anyOf)) {
    const parts = schema.anyOf.filter(isObject).map(summary);
    return parts.length > 5 ? 'any JSON value' : parts.join(' or ');
  }
  return 'any JSON value';
}
