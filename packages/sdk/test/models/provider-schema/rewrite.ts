// A fresh rewrite context for the tests of the rewriter's rules.
import { convert } from '../../../src/models/provider-schema/convert';
import type { RewriteContext } from '../../../src/models/provider-schema/rewrite-context';
import type { JsonSchemaObject } from '../../../src/models/provider-schema/types';

/** A rewrite of `root` with nothing recorded yet. */
export function rewrite(root: JsonSchemaObject = {}): RewriteContext {
  return { root, rewrites: [], problems: [], nodes: 0, convert };
}

/** The rule names recorded, in order. */
export const rules = (list: readonly { rule: string }[]): string[] => list.map((r) => r.rule);
