// The state of one rewrite (`checkProviderSchema`): the root for `$ref`s, what was rewritten and
// refused, how many nodes were expanded, and the recursion into subschemas.
import type { JsonSchemaObject, ProviderSchemaProblem, ProviderSchemaRewrite } from './types';

/** Most schema nodes one check expands (inlining `$ref`s can multiply a schema); beyond it the schema is refused. @internal */
export const MAX_NODES = 20_000;

/**
 * Rewrites one subschema (and its subschemas) into the portable form.
 * @param ctx - the rewrite
 * @param input - the subschema
 * @param path - its JSON pointer in the original schema
 * @param stack - the schema objects being expanded (for `$ref` cycles)
 * @returns the portable subschema
 * @internal
 */
export type ConvertSchema = (
  ctx: RewriteContext,
  input: unknown,
  path: string,
  stack: readonly object[],
) => JsonSchemaObject;

/** One rewrite in progress. @internal */
export interface RewriteContext {
  /** The original schema (what `$ref`s resolve against). */
  root: JsonSchemaObject;
  /** What was rewritten so far. */
  rewrites: ProviderSchemaRewrite[];
  /** Refusals so far. */
  problems: ProviderSchemaProblem[];
  /** Schema nodes expanded so far (see {@link MAX_NODES}). */
  nodes: number;
  /** The recursion into a subschema (`convert`; passed in so that the per-type rules need not import it). */
  convert: ConvertSchema;
}

/**
 * Records a rewrite.
 * @param ctx - the rewrite
 * @param rule - stable rule name
 * @param path - JSON pointer into the original schema
 * @param message - what was changed
 * @internal
 */
export function note(ctx: RewriteContext, rule: string, path: string, message: string): void {
  ctx.rewrites.push({ rule, path, message });
}

/**
 * Records a refusal.
 * @param ctx - the rewrite
 * @param rule - stable rule name
 * @param path - JSON pointer into the original schema
 * @param message - what is wrong
 * @internal
 */
export function refuse(ctx: RewriteContext, rule: string, path: string, message: string): void {
  ctx.problems.push({ rule, path, message });
}
