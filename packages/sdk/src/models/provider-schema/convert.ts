import { acceptsNull } from './accepts-null';
import { annotations, stripAnnotations, withAnnotations } from './annotations';
import { anyValue } from './any-value';
import { convertBase } from './convert-base';
import { isObject, show } from './json';
import { seg } from './json-pointer';
import { mergeSchemas } from './merge-schemas';
import { resolveRef } from './resolve-ref';
import { MAX_NODES, note, type RewriteContext, refuse } from './rewrite-context';
import { META_KEYS } from './schema-keys';
import { simplifyAnyOf } from './simplify-any-of';
import type { JsonSchemaObject } from './types';

/**
 * Rewrites one schema node (and its subschemas) into the portable form. Never throws; problems
 * that cannot be rewritten are recorded and replaced by {@link anyValue} so the walk goes on.
 * Handles what applies to every schema: the node budget, boolean schemas, `$ref` (inlined, or
 * refused when recursive or unresolved), meta keywords, `allOf` (merged), `anyOf`/`oneOf`,
 * `nullable`; the node's own constraints are {@link convertBase}'s.
 * @param ctx - the rewrite
 * @param input - the subschema
 * @param path - its JSON pointer in the original schema
 * @param stack - the schema objects being expanded (for `$ref` cycles)
 * @returns the portable subschema
 * @internal
 */
export function convert(ctx: RewriteContext, input: unknown, path: string, stack: readonly object[]): JsonSchemaObject {
  if (++ctx.nodes > MAX_NODES) {
    if (!ctx.problems.some((p) => p.rule === 'schema-too-large'))
      refuse(
        ctx,
        'schema-too-large',
        path,
        `the schema expands to more than ${MAX_NODES} nodes (inlined $refs included)`,
      );
    return anyValue();
  }
  if (input === true) {
    note(ctx, 'any-value', path, 'the schema true (any value) is written as an anyOf of every JSON type');
    return anyValue();
  }
  if (!isObject(input)) {
    refuse(
      ctx,
      'schema-invalid',
      path,
      input === false ? 'the schema false accepts nothing' : `expected a schema object, got ${show(input)}`,
    );
    return anyValue();
  }
  if (input.$ref !== undefined) {
    const ref = input.$ref;
    const target = typeof ref === 'string' ? resolveRef(ctx.root, ref) : undefined;
    if (!target || !(isObject(target.node) || typeof target.node === 'boolean')) {
      refuse(ctx, 'ref-unresolved', `${path}/$ref`, `$ref ${show(ref)} does not resolve inside the schema`);
      return anyValue();
    }
    if (typeof target.node === 'object' && stack.includes(target.node)) {
      refuse(
        ctx,
        'ref-recursive',
        `${path}/$ref`,
        `$ref ${show(ref)} refers back to ${target.path || 'the root'}: a recursive schema cannot be inlined, and Gemini accepts no $ref`,
      );
      return anyValue();
    }
    note(
      ctx,
      'ref-inlined',
      `${path}/$ref`,
      `$ref ${show(ref)} inlined from ${target.path || 'the root'} (Gemini accepts no $ref/$defs)`,
    );
    const { $ref: _ref, ...siblings } = input;
    for (const k of Object.keys(siblings)) if (META_KEYS.has(k)) delete siblings[k];
    const merged = typeof target.node === 'boolean' ? target.node : { ...target.node, ...siblings };
    return convert(ctx, merged, target.path, typeof target.node === 'object' ? [...stack, target.node] : stack);
  }
  const inner = [...stack, input];
  const dropped = Object.keys(input).filter(
    (k) => META_KEYS.has(k) || k === '$dynamicRef' || k === '$recursiveRef' || k === '$recursiveAnchor',
  );
  for (const k of dropped) {
    if (k === '$dynamicRef' || k === '$recursiveRef')
      refuse(ctx, 'ref-recursive', `${path}${seg(k)}`, `${k} (a recursive reference) cannot be inlined`);
    else
      note(
        ctx,
        'meta-dropped',
        `${path}${seg(k)}`,
        `${k} removed (Gemini accepts no ${k}; $defs are inlined where referenced)`,
      );
  }

  const hasAnyOf = Array.isArray(input.anyOf) || Array.isArray(input.oneOf);
  const hasAllOf = Array.isArray(input.allOf);
  for (const k of ['anyOf', 'oneOf', 'allOf'])
    if (input[k] !== undefined && !Array.isArray(input[k]))
      refuse(ctx, 'schema-invalid', `${path}${seg(k)}`, `${k} must be a list of schemas`);
  const notes: string[] = [];
  let base = convertBase(ctx, input, path, inner, notes);
  if (hasAllOf) {
    note(ctx, 'all-of', `${path}/allOf`, 'allOf merged into one schema (Gemini accepts no allOf)');
    for (const [i, b] of (input.allOf as unknown[]).entries()) {
      const cb = convert(ctx, b, `${path}/allOf${seg(i)}`, inner);
      base = base ? mergeSchemas(ctx, base, cb, `${path}/allOf${seg(i)}`) : cb;
    }
  }
  let out: JsonSchemaObject;
  if (hasAnyOf) {
    const branches: JsonSchemaObject[] = [];
    for (const key of ['anyOf', 'oneOf'] as const) {
      const list = input[key];
      if (!Array.isArray(list)) continue;
      if (key === 'oneOf')
        note(
          ctx,
          'one-of',
          `${path}/oneOf`,
          'oneOf written as anyOf (Gemini and OpenAI strict mode accept no oneOf; the original schema still requires exactly one)',
        );
      for (const [i, b] of list.entries()) branches.push(convert(ctx, b, `${path}${seg(key)}${seg(i)}`, inner));
    }
    const constraints = base ? stripAnnotations(base) : undefined;
    const combined =
      constraints && Object.keys(constraints).length > 0
        ? branches.map((b) => mergeSchemas(ctx, b, constraints, path))
        : branches;
    out = simplifyAnyOf(ctx, combined, path);
    if (base) out = withAnnotations(out, annotations(base));
  } else if (base) out = base;
  else {
    note(
      ctx,
      'any-value',
      path,
      'a schema without a type (any value) written as an anyOf of every JSON type (Gemini needs a type or anyOf on every schema)',
    );
    out = anyValue();
  }
  out = withAnnotations(out, annotations(input, notes));
  if (input.nullable === true) {
    note(ctx, 'nullable', `${path}/nullable`, 'nullable: true (OpenAPI 3.0) written as anyOf with type null');
    if (!acceptsNull(out)) {
      const ann = annotations(out);
      out = withAnnotations({ anyOf: [stripAnnotations(out), { type: 'null' }] }, ann);
    }
  } else if (input.nullable !== undefined)
    note(ctx, 'nullable', `${path}/nullable`, `nullable: ${show(input.nullable)} removed`);
  return out;
}
