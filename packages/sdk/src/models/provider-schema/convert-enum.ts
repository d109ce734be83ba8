import { anyValue } from './any-value';
import { show } from './json';
import { note, refuse, type RewriteContext } from './rewrite-context';
import type { JsonSchemaObject } from './types';

/**
 * `enum`/`const` → a string enum, or per-type schemas for other values (Gemini: enum only on
 * strings): numbers become a number or integer range, with the values in the description
 * (`enum-non-string`); `const` becomes a one-value enum (`const`).
 * @param ctx - the rewrite
 * @param node - the original schema (with `enum` or `const`)
 * @param path - its JSON pointer
 * @param notes - receives what goes into the description
 * @returns the schema, or an `anyOf` of one schema per value type
 * @internal
 */
export function convertEnum(
  ctx: RewriteContext,
  node: JsonSchemaObject,
  path: string,
  notes: string[],
): JsonSchemaObject {
  let values: unknown[];
  if (node.const !== undefined) {
    values = [node.const];
    if (node.enum !== undefined) note(ctx, 'keyword-dropped', `${path}/enum`, 'enum removed next to const');
    note(
      ctx,
      'const',
      `${path}/const`,
      `const ${show(node.const)} written as a one-value enum (Gemini accepts no const)`,
    );
  } else if (Array.isArray(node.enum) && node.enum.length > 0) values = node.enum;
  else {
    refuse(ctx, 'schema-invalid', `${path}/enum`, 'enum must be a non-empty list');
    return anyValue();
  }
  const strings = values.filter((v): v is string => typeof v === 'string');
  const numbers = values.filter((v): v is number => typeof v === 'number');
  const booleans = values.filter((v): v is boolean => typeof v === 'boolean');
  const hasNull = values.some((v) => v === null);
  const others = values.filter((v) => typeof v === 'object' && v !== null);
  const branches: JsonSchemaObject[] = [];
  if (strings.length) branches.push({ type: 'string', enum: [...new Set(strings)] });
  if (numbers.length) {
    const integer = numbers.every(Number.isInteger);
    branches.push({
      type: integer ? 'integer' : 'number',
      minimum: Math.min(...numbers),
      maximum: Math.max(...numbers),
    });
  }
  if (booleans.length) branches.push({ type: 'boolean' });
  if (hasNull) branches.push({ type: 'null' });
  if (others.length)
    branches.push(
      ...[...new Set(others.map((o) => (Array.isArray(o) ? 'array' : 'object')))].map((t) =>
        t === 'array' ? { type: 'array', items: anyValue() } : { type: 'object' },
      ),
    );
  const nonStrings = values.filter((v) => typeof v !== 'string');
  if (nonStrings.length > 0) {
    notes.push(values.length === 1 ? `must be ${show(values[0])}` : `one of ${values.map((v) => show(v)).join(', ')}`);
    note(
      ctx,
      'enum-non-string',
      `${path}${node.const !== undefined ? '/const' : '/enum'}`,
      'non-string enum values moved into the description (Gemini accepts enum only on strings)',
    );
  } else if (
    node.const === undefined &&
    !(node.type === 'string' && strings.length === values.length && new Set(strings).size === strings.length)
  ) {
    note(
      ctx,
      'enum-type',
      `${path}/enum`,
      `enum written as type string with ${new Set(strings).size} distinct values (Gemini needs type "string" on an enum)`,
    );
  }
  return branches.length === 1 ? branches[0]! : { anyOf: branches };
}
