// JSON Schema validation errors (TypeBox's `Errors()`, Ajv's `errors`) turned into messages a person or a model
// can act on: a union of literals, an `enum` or a `const` says which values are accepted and what was given,
// instead of "must be equal to constant" once per alternative.

/** One validation error as TypeBox's `Errors()` and Ajv report it (the fields this module reads). @internal */
export interface SchemaErrorLike {
  /** The failing keyword: `const`, `enum`, `type`, `anyOf`, `required` … */
  readonly keyword: string;
  /** JSON pointer into the schema, `#/properties/kind/anyOf/0`. */
  readonly schemaPath: string;
  /** JSON pointer into the value, `/kind`; `""` is the root. */
  readonly instancePath: string;
  /** Keyword parameters: `allowedValue` (const), `allowedValues` (enum), `type` (type). */
  readonly params?: Readonly<Record<string, unknown>>;
  /** The validator's own message. */
  readonly message: string;
}

/** A validation problem: where in the value, and what is wrong. @internal */
export interface SchemaIssue {
  /** JSON pointer into the value, `""` for the root. */
  path: string;
  /** What is wrong, with the accepted values and the value given when they are known. */
  message: string;
}

const MAX_SHOWN = 60;

/** A value as a message shows it: strings in single quotes, anything else as JSON, long ones cut. */
export function showValue(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = `'${value}'`;
  else if (value === undefined) text = 'nothing';
  // JSON has no Infinity or NaN (a body's 1e400 parses to Infinity): JSON.stringify would show them as null.
  else if (typeof value === 'number' && !Number.isFinite(value)) text = String(value);
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
}

/** The value at a JSON pointer (RFC 6901), or undefined. */
function at(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let node = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

const LITERAL_TYPES: Readonly<Record<string, unknown>> = { null: null };

/**
 * The values one `anyOf` accepts when every alternative is a literal (`const`, `enum`, or `type: "null"`), else
 * undefined (an alternative that is an object, a string pattern … cannot be listed as values).
 */
function literalAlternatives(prefix: string, errors: readonly SchemaErrorLike[]): unknown[] | undefined {
  const byBranch = new Map<string, SchemaErrorLike[]>();
  for (const e of errors) {
    if (!e.schemaPath.startsWith(prefix)) continue;
    const branch = e.schemaPath.slice(prefix.length).split('/')[0]!;
    // an error deeper inside the alternative (a property of an object) means it is not a literal
    if (e.schemaPath !== `${prefix}${branch}`) return undefined;
    byBranch.set(branch, [...(byBranch.get(branch) ?? []), e]);
  }
  if (byBranch.size === 0) return undefined;
  const values: unknown[] = [];
  for (const branch of byBranch.values()) {
    const constant = branch.find((e) => e.keyword === 'const');
    const choices = branch.find((e) => e.keyword === 'enum');
    if (constant?.params && 'allowedValue' in constant.params) values.push(constant.params.allowedValue);
    else if (choices && Array.isArray(choices.params?.allowedValues)) values.push(...choices.params.allowedValues);
    else if (branch.length === 1 && branch[0]!.keyword === 'type' && String(branch[0]!.params?.type) in LITERAL_TYPES)
      values.push(LITERAL_TYPES[String(branch[0]!.params?.type)]);
    else return undefined;
  }
  return values;
}

function oneOf(values: readonly unknown[], given: unknown): string {
  const list = values.map(showValue).join(', ');
  return values.length === 1
    ? `must be ${list}; got ${showValue(given)}`
    : `must be one of ${list}; got ${showValue(given)}`;
}

/**
 * Turns validation errors into one issue per problem, with messages that name the accepted values.
 *
 * @remarks
 * - a union of literals (`Type.Union([Type.Literal('movie'), Type.Literal('tv')])`, an `anyOf` of `const`s,
 *   `enum`s or `null`) becomes one issue: `must be one of 'movie', 'tv'; got 'film'`, in place of a
 *   "must be equal to constant" per alternative and "must match a schema in anyOf";
 * - `enum`: `must be one of 'a', 'b'; got 'z'`; `const`: `must be 3; got 4`;
 * - `type`: the validator's message with the value given (`must be string; got 12`);
 * - anything else keeps the validator's message. Order is kept; identical issues are given once.
 *
 * Pure: reads only its arguments.
 * @param errors - the validator's errors, in its order
 * @param value - the value that was validated (to quote what was given)
 * @returns the issues
 * @internal
 */
export function schemaIssues(errors: Iterable<SchemaErrorLike>, value: unknown): SchemaIssue[] {
  const all = [...errors];
  // the anyOf/oneOf errors whose alternatives are all literals: the accepted values, by value path and schema path
  const literalUnions = new Map<string, unknown[]>();
  const unionPrefixes: Array<{ path: string; prefix: string }> = [];
  for (const e of all) {
    if (e.keyword !== 'anyOf' && e.keyword !== 'oneOf') continue;
    const prefix = `${e.schemaPath}/${e.keyword}/`;
    const values = literalAlternatives(prefix, all);
    if (!values) continue;
    literalUnions.set(`${e.instancePath}\u0000${e.schemaPath}`, values);
    unionPrefixes.push({ path: e.instancePath, prefix });
  }
  const insideUnion = (e: SchemaErrorLike) =>
    unionPrefixes.some((u) => e.instancePath === u.path && e.schemaPath.startsWith(u.prefix));
  const out: SchemaIssue[] = [];
  const seen = new Set<string>();
  const push = (path: string, message: string) => {
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ path, message });
  };
  for (const e of all) {
    const given = at(value, e.instancePath);
    const union = literalUnions.get(`${e.instancePath}\u0000${e.schemaPath}`);
    if (union && (e.keyword === 'anyOf' || e.keyword === 'oneOf')) push(e.instancePath, oneOf(union, given));
    else if (insideUnion(e)) continue;
    else if (e.keyword === 'const' && e.params && 'allowedValue' in e.params)
      push(e.instancePath, oneOf([e.params.allowedValue], given));
    else if (e.keyword === 'enum' && Array.isArray(e.params?.allowedValues))
      push(e.instancePath, oneOf(e.params.allowedValues, given));
    else if (e.keyword === 'type') push(e.instancePath, `${e.message}; got ${showValue(given)}`);
    else push(e.instancePath, e.message);
  }
  return out;
}
