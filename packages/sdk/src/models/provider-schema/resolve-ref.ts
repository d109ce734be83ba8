import { isObject } from './json';
import { seg } from './json-pointer';
import type { JsonSchemaObject } from './types';

/** What a `$ref` points to and the JSON pointer where it is. @internal */
export interface ResolvedRef {
  /** The referenced value. */
  node: unknown;
  /** Its JSON pointer in the document (`""` is the root). */
  path: string;
}

/**
 * Finds what a `$ref` points to inside one document: `#` (the root), `#/…` JSON pointers, and
 * plain names matching a `$id` anywhere in the document or a `$defs`/`definitions` entry of the root
 * (TypeBox `Type.Ref('Node')` inside `Type.Cyclic`).
 * @param root - the whole schema
 * @param ref - the `$ref` value
 * @returns the target, or `undefined` when it does not resolve
 * @internal
 */
export function resolveRef(root: JsonSchemaObject, ref: string): ResolvedRef | undefined {
  if (ref === '#') return { node: root, path: '' };
  if (ref.startsWith('#/')) {
    let node: unknown = root;
    const parts = ref
      .slice(2)
      .split('/')
      .map((p) => decodeURIComponent(p).replace(/~1/g, '/').replace(/~0/g, '~'));
    for (const p of parts) {
      if (Array.isArray(node)) node = node[Number(p)];
      else if (isObject(node)) node = node[p];
      else return undefined;
      if (node === undefined) return undefined;
    }
    return { node, path: parts.map(seg).join('') };
  }
  const found = findId(root, ref, '', 0);
  if (found) return found;
  for (const defs of ['$defs', 'definitions'] as const) {
    const d = root[defs];
    if (isObject(d) && d[ref] !== undefined) return { node: d[ref], path: `${seg(defs)}${seg(ref)}` };
  }
  return undefined;
}

/**
 * The first subschema whose `$id` is `id` (depth first, at most 64 levels; values of `enum`,
 * `const`, `default`, `examples` and `example` are data, not schemas, and are skipped).
 * @param node - where to search
 * @param id - the `$id` to find
 * @param path - the JSON pointer of `node`
 * @param depth - the nesting level of `node`
 * @returns the subschema and its pointer, or `undefined`
 * @internal
 */
export function findId(node: unknown, id: string, path: string, depth: number): ResolvedRef | undefined {
  if (depth > 64) return undefined;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const f = findId(node[i], id, `${path}${seg(i)}`, depth + 1);
      if (f) return f;
    }
    return undefined;
  }
  if (!isObject(node)) return undefined;
  if (node.$id === id) return { node, path };
  for (const [k, v] of Object.entries(node)) {
    if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples' || k === 'example') continue;
    const f = findId(v, id, `${path}${seg(k)}`, depth + 1);
    if (f) return f;
  }
  return undefined;
}
