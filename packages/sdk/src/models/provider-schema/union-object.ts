import { withAnnotations } from './annotations';
import { isObject } from './json';
import type { JsonSchemaObject } from './types';

/**
 * One object for a union of objects: every property of any alternative (the distinct schemas of a
 * name as an `anyOf`), `required` the names every alternative requires, and a description listing
 * the alternatives ("Give the properties of one of these alternatives: 1) …").
 * @param objects - the object alternatives, in the portable form
 * @param ann - the union's annotations
 * @returns a new object schema
 * @internal
 */
export function unionObject(objects: readonly JsonSchemaObject[], ann: JsonSchemaObject): JsonSchemaObject {
  const names: string[] = [];
  for (const o of objects)
    for (const k of Object.keys(isObject(o.properties) ? o.properties : {})) if (!names.includes(k)) names.push(k);
  const properties: JsonSchemaObject = {};
  for (const name of names) {
    const variants: JsonSchemaObject[] = [];
    const seen = new Set<string>();
    for (const o of objects) {
      const s = isObject(o.properties) ? o.properties[name] : undefined;
      if (!isObject(s)) continue;
      const key = JSON.stringify(s);
      if (!seen.has(key)) {
        seen.add(key);
        variants.push(s);
      }
    }
    properties[name] = variants.length === 1 ? variants[0]! : { anyOf: variants };
  }
  const requiredIn = (o: JsonSchemaObject) => (Array.isArray(o.required) ? (o.required as string[]) : []);
  const required = names.filter((n) => objects.every((o) => requiredIn(o).includes(n)));
  const alternatives = objects
    .map((o, i) => {
      const props = Object.keys(isObject(o.properties) ? o.properties : {});
      const label =
        typeof o.title === 'string'
          ? `${o.title}: `
          : typeof o.description === 'string'
            ? `${o.description.replace(/\.$/, '')}: `
            : '';
      const list = props.length
        ? props.map((p) => (requiredIn(o).includes(p) ? `${p} (required)` : p)).join(', ')
        : 'no properties';
      return `${i + 1}) ${label}${list}`;
    })
    .join('; ');
  const out: JsonSchemaObject = { type: 'object', properties };
  if (required.length) out.required = required;
  const base = typeof ann.description === 'string' ? `${ann.description} ` : '';
  return withAnnotations(out, {
    ...ann,
    description: `${base}Give the properties of one of these alternatives: ${alternatives}.`,
  });
}
