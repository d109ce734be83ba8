import { show } from './json';
import { seg } from './json-pointer';
import { countAt, dropKeyword } from './keyword-values';
import { note, type RewriteContext } from './rewrite-context';
import type { JsonSchemaObject } from './types';

/**
 * A string schema in the portable form: `minLength`/`maxLength` (non-negative integers), `pattern`
 * (a string) and `format: "date-time"` kept; other formats, `contentEncoding` and `contentMediaType`
 * moved into the description (`format`, `keyword-dropped`); invalid values and `contentSchema` removed.
 * @param ctx - the rewrite
 * @param node - the original schema
 * @param path - its JSON pointer
 * @param notes - receives what goes into the description
 * @returns `{ type: "string", … }`
 * @internal
 */
export function convertString(
  ctx: RewriteContext,
  node: JsonSchemaObject,
  path: string,
  notes: string[],
): JsonSchemaObject {
  const out: JsonSchemaObject = { type: 'string' };
  for (const k of ['minLength', 'maxLength'] as const) {
    const v = countAt(node, k);
    if (v !== undefined) out[k] = v;
    else if (node[k] !== undefined) dropKeyword(ctx, path, k, 'not a non-negative integer');
  }
  if (typeof node.pattern === 'string') out.pattern = node.pattern;
  else if (node.pattern !== undefined) dropKeyword(ctx, path, 'pattern', 'not a string');
  if (node.format !== undefined) {
    if (node.format === 'date-time') out.format = 'date-time';
    else {
      notes.push(`format: ${String(node.format)}`);
      note(
        ctx,
        'format',
        `${path}/format`,
        `format ${show(node.format)} moved into the description (Gemini accepts only date-time and enum; OpenAI strict mode a few others)`,
      );
    }
  }
  for (const k of ['contentEncoding', 'contentMediaType'])
    if (node[k] !== undefined) {
      notes.push(`${k}: ${String(node[k])}`);
      note(ctx, 'keyword-dropped', `${path}${seg(k)}`, `${k} moved into the description`);
    }
  if (node.contentSchema !== undefined) dropKeyword(ctx, path, 'contentSchema', 'not accepted by every provider');
  return out;
}
