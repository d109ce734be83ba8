// What the validator of one family collects.
import { show } from './json';
import type { ProviderFamily, ProviderSchemaProblem } from './types';

/** The problems found so far for one family. @internal */
export interface Findings {
  /** The family whose rules are checked (the prefix of every rule). */
  readonly family: ProviderFamily;
  /** The problems, in the order found. */
  readonly problems: ProviderSchemaProblem[];
  /** Records a problem as `<family>.<rule>`. */
  add(rule: string, path: string, message: string): void;
}

/**
 * An empty list of findings for one family.
 * @param family - the provider family
 * @returns the findings
 * @internal
 */
export function findings(family: ProviderFamily): Findings {
  const problems: ProviderSchemaProblem[] = [];
  return {
    family,
    problems,
    add: (rule, path, message) => problems.push({ rule: `${family}.${rule}`, path, message }),
  };
}

/**
 * The `bad` callback of {@link walk} for a family: a subschema that is not a schema is
 * `schema-invalid`; a boolean schema is accepted, except by Gemini.
 * @param f - the findings
 * @returns the callback
 * @internal
 */
export function badSubschema(f: Findings): (path: string, value: unknown) => void {
  return (path, value) => {
    if (f.family === 'gemini' && typeof value === 'boolean')
      f.add('schema-invalid', path, `a boolean schema (${value}) is not a Gemini Schema object`);
    else if (typeof value !== 'boolean') f.add('schema-invalid', path, `expected a schema, got ${show(value)}`);
  };
}
