// Plain-JSON helpers shared by the validator and the rewriter.
import type { JsonSchemaObject } from './types';

/** The JSON Schema type names. @internal */
export const JSON_TYPES: ReadonlySet<string> = new Set([
  'string',
  'number',
  'integer',
  'boolean',
  'object',
  'array',
  'null',
]);

/**
 * Whether a value is a JSON object (not `null`, not an array).
 * @param value - any value
 * @returns true for a plain object
 * @internal
 */
export function isObject(value: unknown): value is JsonSchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A value as short JSON for messages (at most 80 characters; `String(value)` when it is not JSON).
 * @param value - any value
 * @returns the text
 * @internal
 */
export function show(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return String(value);
  }
}

/**
 * JSON with sorted keys, for comparing schemas regardless of key order.
 * @param value - a JSON value
 * @returns the canonical text
 * @internal
 */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    isObject(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

/**
 * A plain-JSON copy of a value (TypeBox symbols and functions dropped), or why it is not JSON.
 * @param value - a schema as given
 * @returns the copy, or a message
 * @internal
 */
export function toJson(value: unknown): { ok: true; json: unknown } | { ok: false; message: string } {
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return { ok: false, message: `the schema is not JSON (${typeof value})` };
    return { ok: true, json: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, message: `the schema is not JSON: ${(e as Error).message}` };
  }
}
