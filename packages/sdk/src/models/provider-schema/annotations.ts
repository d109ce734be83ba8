// Annotations (title, description, default, example) and the notes the rewriter appends to descriptions.
import { ANNOTATION_KEYS } from './schema-keys';
import type { JsonSchemaObject } from './types';

/**
 * A description with notes appended (`"Title (format: email)"`); the notes alone, as a sentence, when
 * there is no description.
 * @param description - the schema's description (anything; only a non-blank string counts)
 * @param notes - what the rewrite moved into the description
 * @returns the description, or `undefined` when there is nothing to say
 * @internal
 */
export function describe(description: unknown, notes: readonly string[]): string | undefined {
  const base = typeof description === 'string' && description.trim() ? description.trim() : '';
  if (notes.length === 0) return base || undefined;
  const text = notes.join('; ');
  return base ? `${base} (${text})` : `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/**
 * The annotations of a node (`title`, `description` with the notes, `default`, `example`).
 * @param node - a schema
 * @param notes - notes for the description
 * @returns a new object with the annotations only
 * @internal
 */
export function annotations(node: JsonSchemaObject, notes: readonly string[] = []): JsonSchemaObject {
  const out: JsonSchemaObject = {};
  if (typeof node.title === 'string') out.title = node.title;
  const d = describe(node.description, notes);
  if (d !== undefined) out.description = d;
  if (node.default !== undefined) out.default = node.default;
  if (node.example !== undefined) out.example = node.example;
  return out;
}

/**
 * A copy of a schema with annotations laid over it; a different description is put in front of the
 * schema's own.
 * @param schema - a schema
 * @param ann - annotations (see {@link annotations})
 * @returns a new object
 * @internal
 */
export function withAnnotations(schema: JsonSchemaObject, ann: JsonSchemaObject): JsonSchemaObject {
  const out: JsonSchemaObject = { ...schema };
  for (const key of ANNOTATION_KEYS) {
    if (ann[key] === undefined) continue;
    if (key === 'description' && typeof out.description === 'string' && out.description !== ann.description)
      out.description = `${ann.description as string} ${out.description}`;
    else out[key] = ann[key];
  }
  return out;
}

/**
 * A copy of a schema without its annotations.
 * @param s - a schema
 * @returns a new object
 * @internal
 */
export function stripAnnotations(s: JsonSchemaObject): JsonSchemaObject {
  const out = { ...s };
  for (const k of ANNOTATION_KEYS) delete out[k];
  return out;
}
