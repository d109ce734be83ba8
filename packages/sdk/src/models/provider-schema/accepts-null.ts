import { isObject } from './json';
import type { JsonSchemaObject } from './types';

/**
 * Whether a portable schema accepts `null` (type `null`, or an `anyOf` branch that does).
 * @param s - a schema in the portable form
 * @returns true when null is accepted
 * @internal
 */
export function acceptsNull(s: JsonSchemaObject): boolean {
  return s.type === 'null' || (Array.isArray(s.anyOf) && s.anyOf.some((b) => isObject(b) && acceptsNull(b)));
}
