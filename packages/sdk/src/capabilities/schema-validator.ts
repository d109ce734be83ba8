import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { schemaIssues } from '../core/schema-issues';
import type { InputIssue } from './errors';

/** A compiled check for one schema. @internal */
export interface SchemaCheck {
  check(value: unknown): boolean;
  issues(value: unknown): InputIssue[];
}

const cache = new WeakMap<TSchema, SchemaCheck>();

/**
 * Compiles (once per schema object) a TypeBox/JSON Schema validator.
 * @internal
 */
export function compileSchema(schema: TSchema): SchemaCheck {
  let compiled = cache.get(schema);
  if (!compiled) {
    const validator = Compile(schema);
    compiled = {
      check: (value) => validator.Check(value),
      issues: (value) => schemaIssues(validator.Errors(value), value),
    };
    cache.set(schema, compiled);
  }
  return compiled;
}
