import { show } from './json';
import { seg } from './json-pointer';
import { dropKeyword, numberAt } from './keyword-values';
import { note, type RewriteContext } from './rewrite-context';
import type { JsonSchemaObject } from './types';

/**
 * A number or integer schema in the portable form: `minimum`/`maximum` kept; `exclusiveMinimum`/
 * `exclusiveMaximum` written as the inclusive bound (the tighter of the two) with the exclusive one
 * in the description (`exclusive-bound`; draft-4 booleans too); `multipleOf` and `format` moved into
 * the description; invalid values removed.
 * @param ctx - the rewrite
 * @param node - the original schema
 * @param type - `number` or `integer`
 * @param path - its JSON pointer
 * @param notes - receives what goes into the description
 * @returns `{ type, … }`
 * @internal
 */
export function convertNumber(
  ctx: RewriteContext,
  node: JsonSchemaObject,
  type: 'number' | 'integer',
  path: string,
  notes: string[],
): JsonSchemaObject {
  const out: JsonSchemaObject = { type };
  for (const k of ['minimum', 'maximum'] as const) {
    const v = numberAt(node, k);
    if (v !== undefined) out[k] = v;
    else if (node[k] !== undefined) dropKeyword(ctx, path, k, 'not a number');
  }
  for (const [k, bound, word] of [
    ['exclusiveMinimum', 'minimum', 'greater than'],
    ['exclusiveMaximum', 'maximum', 'less than'],
  ] as const) {
    const v = node[k];
    if (v === undefined) continue;
    if (typeof v === 'number') {
      const current = out[bound] as number | undefined;
      if (current === undefined || (bound === 'minimum' ? v >= current : v <= current)) out[bound] = v;
      notes.push(`${word} ${v}`);
      note(
        ctx,
        'exclusive-bound',
        `${path}${seg(k)}`,
        `${k} ${v} written as ${bound} with the bound in the description (Gemini accepts no ${k})`,
      );
    } else if (v === true && out[bound] !== undefined) {
      notes.push(`${word} ${String(out[bound])}`);
      note(ctx, 'exclusive-bound', `${path}${seg(k)}`, `${k}: true (draft 4) moved into the description`);
    } else dropKeyword(ctx, path, k, 'not a number');
  }
  if (typeof node.multipleOf === 'number') {
    notes.push(`a multiple of ${node.multipleOf}`);
    note(
      ctx,
      'keyword-dropped',
      `${path}/multipleOf`,
      'multipleOf moved into the description (Gemini accepts no multipleOf)',
    );
  } else if (node.multipleOf !== undefined) dropKeyword(ctx, path, 'multipleOf', 'not a number');
  if (node.format !== undefined) {
    notes.push(`format: ${String(node.format)}`);
    note(
      ctx,
      'format',
      `${path}/format`,
      `format ${show(node.format)} moved into the description (numeric formats differ between providers)`,
    );
  }
  return out;
}
