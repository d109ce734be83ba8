// Reading keyword values the rewriter keeps, and recording the ones it drops.
import { seg } from './json-pointer';
import { note, type RewriteContext } from './rewrite-context';
import type { JsonSchemaObject } from './types';

/**
 * A keyword's value when it is a number.
 * @param node - a schema
 * @param key - the keyword
 * @returns the number, or `undefined`
 * @internal
 */
export function numberAt(node: JsonSchemaObject, key: string): number | undefined {
  return typeof node[key] === 'number' ? (node[key] as number) : undefined;
}

/**
 * A keyword's value when it is a non-negative integer (`minLength`, `maxItems`, …).
 * @param node - a schema
 * @param key - the keyword
 * @returns the count, or `undefined`
 * @internal
 */
export function countAt(node: JsonSchemaObject, key: string): number | undefined {
  const v = numberAt(node, key);
  return v !== undefined && Number.isInteger(v) && v >= 0 ? v : undefined;
}

/**
 * Records that a keyword was removed (`keyword-dropped`; the original schema still applies it).
 * @param ctx - the rewrite
 * @param path - the schema's JSON pointer
 * @param key - the keyword
 * @param why - the reason, e.g. `not a number`
 * @internal
 */
export function dropKeyword(ctx: RewriteContext, path: string, key: string, why: string): void {
  note(ctx, 'keyword-dropped', `${path}${seg(key)}`, `${key} removed (${why}; the original schema still applies it)`);
}
