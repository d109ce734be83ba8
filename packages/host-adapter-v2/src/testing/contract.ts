import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Compile } from 'typebox/compile';

/** A parsed OpenAPI 3.1 document (only the parts the validator reads are typed). @public */
export interface OpenApiDocument {
  /** OpenAPI version. */
  openapi: string;
  /** Paths → method → operation. */
  paths: Record<string, Record<string, OpenApiOperation>>;
  /** Components: schemas and security schemes. */
  components: {
    schemas: Record<string, unknown>;
    securitySchemes: Record<
      string,
      { type: string; in?: string; name?: string; scheme?: string; flows?: { password?: { tokenUrl: string } } }
    >;
  };
}

/** One operation of an {@link OpenApiDocument}. @public */
export interface OpenApiOperation {
  /** Operation id. */
  operationId?: string;
  /** Parameters (path, query, header, cookie). */
  parameters?: Array<{ in: string; name: string; required?: boolean; schema?: unknown }>;
  /** Request body. */
  requestBody?: { required?: boolean; content: Record<string, { schema?: unknown }> };
  /** Responses by status. */
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  /** Security alternatives. */
  security?: Array<Record<string, string[]>>;
}

const cached = new Map<string, OpenApiDocument>();

/**
 * Which V2 contract: `newer` — `contracts/openapi-v2.json`, the newer 2.x document (374 paths; every
 * standard route accepts a login or the API token); `v2.5.6` — `contracts/openapi-v2.5.6.json`, the live
 * document of a MoviePilot v2.5.6 server (216 paths; standard routes accept only a login, the API token
 * only `?token=`, `/api/v3` and plugin routes).
 * @public
 */
export type V2ContractName = 'newer' | 'v2.5.6';

/** The file of each contract under the package's `contracts/`. @public */
export const V2_CONTRACT_FILES: Readonly<Record<V2ContractName, string>> = Object.freeze({
  newer: 'openapi-v2.json',
  'v2.5.6': 'openapi-v2.5.6.json',
});

/**
 * A V2 contract of this package (`contracts/openapi-v2.json` or `contracts/openapi-v2.5.6.json`), found
 * by walking up from this module (works from the sources and from `dist/`).
 * @param which - the contract (default `newer`)
 * @returns the parsed document (cached)
 * @throws `Error` when the file cannot be found
 * @public
 */
export function loadV2Contract(which: V2ContractName = 'newer'): OpenApiDocument {
  const hit = cached.get(which);
  if (hit) return hit;
  const name = V2_CONTRACT_FILES[which];
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const file = join(dir, 'contracts', name);
    if (existsSync(file)) {
      const doc = JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
      cached.set(which, doc);
      return doc;
    }
    dir = dirname(dir);
  }
  throw new Error(`contracts/${name} not found next to @media-agent/host-adapter-v2`);
}

/** Reads the `$ref` target name of `#/components/schemas/<Name>`. */
export function refName(schema: unknown): string | undefined {
  const ref = (schema as { $ref?: unknown } | undefined)?.$ref;
  return typeof ref === 'string' && ref.startsWith('#/components/schemas/')
    ? ref.slice('#/components/schemas/'.length)
    : undefined;
}

type Validator = {
  Check(v: unknown): boolean;
  Errors(v: unknown): Iterable<{ instancePath: string; message: string }>;
};

/**
 * Validates requests (and responses) against an OpenAPI document: operation lookup by method and
 * path template, parameters (presence and schema, with query strings coerced as FastAPI does),
 * JSON body schema, and the security alternatives. Schemas are compiled with TypeBox's `Compile`
 * after rewriting `#/components/schemas/…` references to `$defs`.
 * @public
 */
export class ContractValidator {
  readonly #doc: OpenApiDocument;
  readonly #defs: unknown;
  readonly #compiled = new Map<string, Validator>();
  readonly #templates: Array<{ template: string; regex: RegExp; names: string[] }>;

  /** @param doc - the OpenAPI document */
  constructor(doc: OpenApiDocument) {
    this.#doc = doc;
    this.#defs = rewriteRefs(doc.components.schemas);
    this.#templates = Object.keys(doc.paths)
      .map((template) => {
        const names: string[] = [];
        const source = template
          .split(/(\{\w+\})/)
          .map((part) => {
            const m = /^\{(\w+)\}$/.exec(part);
            if (m) {
              names.push(m[1]!);
              return '([^/]+)';
            }
            return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          })
          .join('');
        return { template, regex: new RegExp(`^${source}$`), names };
      })
      // literal segments win over templates (FastAPI matches in declaration order; literals are declared first for these routes)
      .sort((a, b) => a.names.length - b.names.length);
  }

  /** The document. */
  get document(): OpenApiDocument {
    return this.#doc;
  }

  /**
   * Finds the operation for a concrete path.
   * @returns the template, the operation (undefined when the path exists but not the method) and path values; undefined when no path matches
   */
  match(
    method: string,
    path: string,
  ): { template: string; operation: OpenApiOperation | undefined; pathParams: Record<string, string> } | undefined {
    let fallback:
      | { template: string; operation: OpenApiOperation | undefined; pathParams: Record<string, string> }
      | undefined;
    let literal = path;
    try {
      literal = decodeURI(path); // literal segments such as `<month_key>` arrive percent-encoded
    } catch {
      /* keep the raw path */
    }
    for (const t of this.#templates) {
      const m = t.regex.exec(literal);
      if (!m) continue;
      const pathParams: Record<string, string> = {};
      t.names.forEach((n, i) => {
        pathParams[n] = decodeURIComponent(m[i + 1]!);
      });
      const operation = this.#doc.paths[t.template]![method.toLowerCase()];
      if (operation) return { template: t.template, operation, pathParams };
      fallback ??= { template: t.template, operation: undefined, pathParams };
    }
    return fallback;
  }

  /**
   * Validates a value against a schema of the document (a `$ref` or an inline schema).
   * @returns issues (`path: message`), empty when valid
   */
  validate(schema: unknown, value: unknown): string[] {
    if (schema === undefined || (typeof schema === 'object' && schema !== null && Object.keys(schema).length === 0))
      return [];
    const key = JSON.stringify(schema);
    let v = this.#compiled.get(key);
    if (!v) {
      v = Compile({ ...(rewriteRefs(schema) as object), $defs: this.#defs } as never) as unknown as Validator;
      this.#compiled.set(key, v);
    }
    if (v.Check(value)) return [];
    return [...v.Errors(value)].slice(0, 5).map((e) => `${e.instancePath || '/'}: ${e.message}`);
  }

  /**
   * Validates one request's parameters and body against its operation.
   * @param operation - the matched operation
   * @param input - path values, query (as parsed from the URL), content type and raw body
   * @returns issues, empty when the real host would accept the request's shape
   */
  validateRequest(
    operation: OpenApiOperation,
    input: {
      pathParams: Record<string, string>;
      query: URLSearchParams;
      headers: Record<string, string | string[] | undefined>;
      contentType: string | undefined;
      body: string;
    },
  ): string[] {
    const issues: string[] = [];
    for (const p of operation.parameters ?? []) {
      const raw =
        p.in === 'path'
          ? input.pathParams[p.name]
          : p.in === 'query'
            ? input.query.has(p.name)
              ? input.query.get(p.name)!
              : undefined
            : p.in === 'header'
              ? (input.headers[p.name.toLowerCase()] as string | undefined)
              : undefined;
      if (raw === undefined) {
        if (p.required) issues.push(`${p.in} parameter ${p.name} is required`);
        continue;
      }
      const value = coerce(raw, p.schema);
      for (const i of this.validate(p.schema, value))
        issues.push(`${p.in} parameter ${p.name} ${JSON.stringify(raw)}: ${i}`);
    }
    const known = new Set((operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name));
    for (const name of input.query.keys())
      if (!known.has(name) && name !== 'apikey' && name !== 'token')
        issues.push(`query parameter ${name} is not declared`);
    const rb = operation.requestBody;
    if (!rb) {
      if (input.body.length > 0) issues.push('the operation declares no request body');
      return issues;
    }
    if (input.body.length === 0) {
      if (rb.required) issues.push('the request body is required');
      return issues;
    }
    const type = (input.contentType ?? '').split(';')[0]!.trim();
    const media = rb.content[type];
    if (!media)
      return [...issues, `content type ${JSON.stringify(type)} is not one of ${Object.keys(rb.content).join(', ')}`];
    let value: unknown;
    if (type === 'application/json') {
      try {
        value = JSON.parse(input.body);
      } catch {
        return [...issues, 'the body is not JSON'];
      }
    } else if (type === 'application/x-www-form-urlencoded')
      value = Object.fromEntries(new URLSearchParams(input.body));
    else value = input.body;
    for (const i of this.validate(media.schema, value)) issues.push(`body ${i}`);
    return issues;
  }
}

function rewriteRefs(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', '"#/$defs/'));
}

/** FastAPI coerces query and path strings to the declared scalar type. */
function coerce(raw: string, schema: unknown): unknown {
  const types = new Set<string>();
  const collect = (s: unknown) => {
    const o = s as { type?: string; anyOf?: unknown[] } | undefined;
    if (o?.type) types.add(o.type);
    o?.anyOf?.forEach(collect);
  };
  collect(schema);
  if (types.has('string')) return raw;
  if ((types.has('integer') || types.has('number')) && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (types.has('boolean') && /^(true|false|1|0|yes|no|on|off)$/i.test(raw)) return /^(true|1|yes|on)$/i.test(raw);
  return raw;
}
