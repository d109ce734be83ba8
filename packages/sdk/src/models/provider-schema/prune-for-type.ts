import { ANNOTATION_KEYS, OUTPUT_KEYS } from './schema-keys';
import type { JsonSchemaObject } from './types';

/**
 * Removes, in place, the keywords of other types than the schema's own (left by merging
 * conflicting schemas), and a `format` other than `date-time`. A schema without one type name is
 * left alone.
 * @param s - a schema in the portable form (changed)
 * @returns `s`
 * @internal
 */
export function pruneForType(s: JsonSchemaObject): JsonSchemaObject {
  if (typeof s.type !== 'string') return s;
  const own = new Set<string>(['type', ...ANNOTATION_KEYS, ...(OUTPUT_KEYS[s.type] ?? [])]);
  for (const k of Object.keys(s)) if (!own.has(k)) delete s[k];
  if (s.format !== undefined && s.format !== 'date-time') delete s.format;
  return s;
}
