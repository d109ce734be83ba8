import { anyValue } from './any-value';
import { convertEnum } from './convert-enum';
import { convertTyped } from './convert-typed';
import { JSON_TYPES, show } from './json';
import { seg } from './json-pointer';
import { note, type RewriteContext, refuse } from './rewrite-context';
import {
  ANNOTATION_KEYS,
  ARRAY_KEYS,
  COMBINATOR_KEYS,
  keysOf,
  META_KEYS,
  NUMBER_KEYS,
  OBJECT_KEYS,
  STRING_KEYS,
} from './schema-keys';
import type { JsonSchemaObject } from './types';

/**
 * The node without its combinators: type, type-specific keywords, enum/const. `undefined` when the
 * node constrains nothing by itself (only annotations and/or combinators). A missing type is
 * inferred from the keywords (`type-inferred`), a type list becomes an `anyOf` (`type-list`),
 * keywords nothing handles are removed (`keyword-dropped`).
 * @param ctx - the rewrite
 * @param node - the original schema
 * @param path - its JSON pointer
 * @param stack - the schema objects being expanded
 * @param notes - receives what goes into the description
 * @returns the schema, or `undefined`
 * @internal
 */
export function convertBase(
  ctx: RewriteContext,
  node: JsonSchemaObject,
  path: string,
  stack: readonly object[],
  notes: string[],
): JsonSchemaObject | undefined {
  const handled = new Set<string>([
    ...ANNOTATION_KEYS,
    ...META_KEYS,
    ...COMBINATOR_KEYS,
    'nullable',
    '$dynamicRef',
    '$recursiveRef',
    '$recursiveAnchor',
  ]);
  if (node.examples !== undefined) {
    handled.add('examples');
    note(ctx, 'keyword-dropped', `${path}/examples`, 'examples removed (Gemini accepts only one example)');
  }
  let result: JsonSchemaObject | undefined;
  if (node.const !== undefined || node.enum !== undefined) {
    handled.add('const').add('enum').add('type');
    result = convertEnum(ctx, node, path, notes);
  } else {
    let types: string[] | undefined;
    if (node.type !== undefined) {
      handled.add('type');
      const list = Array.isArray(node.type) ? node.type : [node.type];
      if (list.length === 0 || !list.every((t) => typeof t === 'string' && JSON_TYPES.has(t))) {
        refuse(
          ctx,
          'schema-invalid',
          `${path}/type`,
          `type ${show(node.type)} is not a JSON type (${[...JSON_TYPES].join(', ')})`,
        );
        return anyValue();
      }
      types = [...new Set(list as string[])];
    } else {
      const has = (keys: readonly string[]) => keys.some((k) => node[k] !== undefined && k !== 'format');
      const inferred = has(OBJECT_KEYS)
        ? 'object'
        : has(ARRAY_KEYS)
          ? 'array'
          : has(STRING_KEYS)
            ? 'string'
            : has(NUMBER_KEYS)
              ? 'number'
              : undefined;
      if (inferred) {
        types = [inferred];
        note(
          ctx,
          'type-inferred',
          path,
          `type ${inferred} added (inferred from the keywords; Gemini needs a type on every schema)`,
        );
      }
    }
    if (types) {
      const ts = types;
      for (const t of ts) for (const k of keysOf(t)) handled.add(k);
      if (ts.length === 1) result = convertTyped(ctx, node, ts[0]!, path, stack, notes);
      else {
        note(
          ctx,
          'type-list',
          `${path}/type`,
          `type ${show(node.type)} written as anyOf (Gemini accepts one type per schema)`,
        );
        result = { anyOf: ts.map((t) => convertTyped(ctx, node, t, path, stack, [])) };
      }
    }
  }
  const unknown = Object.keys(node).filter((k) => !handled.has(k));
  for (const k of unknown) {
    // keywords of another type than the schema's (e.g. minLength on an integer) mean nothing; others are unsupported
    note(
      ctx,
      'keyword-dropped',
      `${path}${seg(k)}`,
      `${k} removed (not accepted by every provider; the original schema still applies it)`,
    );
  }
  return result;
}
