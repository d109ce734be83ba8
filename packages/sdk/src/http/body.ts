// Reading a request's JSON body: declared as JSON (a cross-site form cannot), parsed, then checked against a schema.
import type { Context } from 'hono';
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { schemaIssues } from '../core/schema-issues';
import { HttpRequestError } from './problem';

/**
 * Reads a request body as JSON; the body limit was applied before. The body must be declared
 * `application/json`: a cross-site form or a no-cors fetch cannot say so, so a person's cookie cannot be used to post.
 * @param c - the request's context
 * @param optional - an empty body reads as `{}` (for bodies whose every field is optional)
 * @returns the parsed value (any JSON value: the caller checks its shape)
 * @throws {@link HttpRequestError} `HTTP_CONTENT_TYPE_UNSUPPORTED` (415) when it is not declared JSON,
 *   `HTTP_BODY_INVALID` (400) when it does not parse
 * @internal
 */
export async function readJson(c: Context, optional = false): Promise<unknown> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const text = await c.req.text();
  if (type !== 'application/json')
    throw new HttpRequestError('HTTP_CONTENT_TYPE_UNSUPPORTED', 'the request body must be sent as application/json', {
      contentType: type || null,
    });
  if (optional && text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpRequestError('HTTP_BODY_INVALID', 'the request body is not valid JSON');
  }
}

/**
 * Reads a JSON body ({@link readJson}) and checks it against a schema.
 * @throws {@link HttpRequestError} as {@link readJson}, and `HTTP_BODY_INVALID` (400, `details.issues`: at most 10)
 *   when the value does not have the schema's shape
 * @internal
 */
export async function readBody<T extends TSchema>(c: Context, schema: T, optional = false): Promise<Static<T>> {
  const value = await readJson(c, optional);
  const check = compiled(schema);
  if (!check.Check(value)) {
    const issues = schemaIssues(check.Errors(value), value).slice(0, 10);
    throw new HttpRequestError('HTTP_BODY_INVALID', `the request body does not have the expected shape`, { issues });
  }
  return value as Static<T>;
}

const validators = new WeakMap<TSchema, ReturnType<typeof Compile>>();

/**
 * The compiled checker of a schema, compiled once.
 * @internal
 */
export function compiled(schema: TSchema): ReturnType<typeof Compile> {
  let v = validators.get(schema);
  if (!v) validators.set(schema, (v = Compile(schema)));
  return v;
}
