import { defineCapability, isMediaAgentError, type Capability, type CapabilityKind, type ReplayPolicy, type Verifier } from '@media-agent/sdk';
import type { TSchema } from 'typebox';
import Type from 'typebox';
import type { V2HostClient } from './client';
import { V2_OPENAPI_PATH, type V2SecurityScheme } from './operations';

/**
 * What a plugin author may declare for one plugin route capability, overriding what the adapter
 * infers from the host's OpenAPI document (GET → `read`/`safe`, other methods → `execute`/`never`).
 * @public
 */
export interface V2PluginDeclaration {
  /** Kind (default from the method). */
  kind?: CapabilityKind;
  /** Replay policy (default `safe` for reads, `never` otherwise). */
  replay?: ReplayPolicy;
  /** Title. */
  title?: string;
  /** Description for the model. */
  description?: string;
  /** Input schema (default: `{ path?, query?, body? }` from the route's parameters and body). */
  input?: TSchema;
  /** Output schema (default `{ status: 'ok', data: unknown }`). */
  output?: TSchema;
  /** Maps the declared input to the request (needed when `input` is declared). */
  toRequest?: (input: any) => { path?: Record<string, string | number>; query?: Record<string, string | number | boolean | undefined>; body?: unknown };
  /** Maps the host's answer to the declared output (default: `{ status: 'ok', data }`). */
  fromResponse?: (data: unknown) => unknown;
  /** Read-only verifier for unknown outcomes. */
  verify?: Verifier<any, any>;
  /** Policy kind whose grants cover it. */
  policy?: string;
  /** Tags. */
  tags?: string[];
  /** Aliases. */
  aliases?: string[];
}

/** One plugin route found in the host's OpenAPI document. @public */
export interface V2PluginRoute {
  /** Capability id: `plugin.<PluginID>.<path with / as .>`. */
  capabilityId: string;
  /** Plugin id. */
  pluginId: string;
  /** HTTP method (upper case). */
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path template. */
  path: string;
  /** Security alternatives. */
  security: V2SecurityScheme[];
  /** True when the 200 answer is the `Response` envelope. */
  enveloped: boolean;
}

/** A plugin route left out because its input schema cannot be offered to model providers (see `checkProviderSchema` in the SDK). @public */
export interface V2SkippedPluginRoute {
  /** The capability id the route would have had. */
  capabilityId: string;
  /** The refusal: code `CAPABILITY_SCHEMA_UNSUPPORTED` (rule and JSON pointer in the message) or `CAPABILITY_DEFINITION_INVALID`. */
  error: { code: string; message: string };
}

/** The host's own routes under `/api/v1/plugin/` (plugin management), which are not plugin APIs. */
const HOST_PLUGIN_ROUTES = new Set(['clone', 'dashboard', 'folders', 'form', 'install', 'installed', 'page', 'reload', 'reset', 'sidebar_nav', 'statistic']);

/** The parts of a host's OpenAPI document the plugin discovery reads. @public */
export type V2OpenApiDocument = { paths: Record<string, Record<string, { summary?: string; description?: string; parameters?: Array<{ in: string; name: string; required?: boolean; schema?: unknown }>; requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> }; responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>; security?: Array<Record<string, string[]>> }>>; components?: { schemas?: Record<string, unknown> } };

/**
 * The capability id of a plugin route: `plugin.<PluginID>.<path>`, `/` → `.`, other characters
 * outside `[A-Za-z0-9_-]` dropped (e.g. `/api/v1/plugin/PluginHeatMonitor/month-data/<month_key>` →
 * `plugin.PluginHeatMonitor.month-data.month_key`).
 * @public
 */
export function pluginCapabilityId(pluginId: string, rest: string): string {
  return `plugin.${pluginId}.${rest
    .split('/')
    .map((s) => s.replace(/[^A-Za-z0-9_-]/g, ''))
    .filter(Boolean)
    .join('.')}`;
}

/**
 * The plugin routes (`/api/v1/plugin/<PluginID>/<path>`) of an OpenAPI document, host management
 * routes excluded. When one id would serve several methods, the non-GET ones get `.<method>` appended.
 * @public
 */
export function pluginRoutes(doc: V2OpenApiDocument): V2PluginRoute[] {
  const out: V2PluginRoute[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    const m = /^\/api\/v1\/plugin\/([A-Za-z0-9_-]+)\/(.+)$/.exec(path);
    if (!m || HOST_PLUGIN_ROUTES.has(m[1]!)) continue;
    const gets = Object.keys(methods).filter((x) => x === 'get').length;
    const count = Object.keys(methods).filter((x) => ['get', 'post', 'put', 'delete'].includes(x)).length;
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'delete'].includes(method)) continue;
      const base = pluginCapabilityId(m[1]!, m[2]!);
      const capabilityId = count > 1 && !(method === 'get' && gets === 1) ? `${base}.${method}` : base;
      out.push({
        capabilityId,
        pluginId: m[1]!,
        method: method.toUpperCase() as V2PluginRoute['method'],
        path,
        security: (op.security ?? []).flatMap((s) => Object.keys(s)) as V2SecurityScheme[],
        enveloped: (op.responses?.['200']?.content?.['application/json']?.schema as { $ref?: string } | undefined)?.$ref === '#/components/schemas/Response',
      });
    }
  }
  return out.filter((r) => r.capabilityId.length <= 128);
}

/** Inlines `#/components/schemas/…` references (cycles become `{}`), so a capability schema stands alone. */
function inline(schema: unknown, doc: V2OpenApiDocument, seen: string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inline(s, doc, seen));
  if (!schema || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: string }).$ref;
  if (typeof ref === 'string') {
    const name = ref.replace('#/components/schemas/', '');
    if (seen.includes(name) || seen.length > 8) return {};
    return inline(doc.components?.schemas?.[name] ?? {}, doc, [...seen, name]);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === 'default' || k === 'examples' ? v : inline(v, doc, seen)]));
}

/**
 * Reads the host's live OpenAPI document (`GET /api/v1/openapi.json`) and makes one capability per
 * plugin route: `plugin.<PluginID>.<path>`, GET → `read`/`safe`, other methods → `execute`/`never`
 * (an unknown outcome stays unknown unless the author declares a verifier), overridable per id by
 * `declarations`. Routes whose security accepts none of the client's credentials are left out, and so
 * is a route whose input schema `defineCapability` refuses (e.g. a recursive schema no model provider
 * accepts): it is listed in `skipped`, and the other routes still become capabilities — one plugin's
 * schema never takes every plugin (or every model call) down.
 * @param client - the host client
 * @param declarations - plugin authors' declarations by capability id
 * @returns the capabilities (register them on the host's registry), the routes they serve and the routes skipped
 * @throws the client's errors when the OpenAPI document cannot be read
 * @public
 */
export async function discoverV2PluginCapabilities(
  client: V2HostClient,
  declarations: Record<string, V2PluginDeclaration> = {},
): Promise<{ capabilities: Capability[]; routes: V2PluginRoute[]; skipped: V2SkippedPluginRoute[] }> {
  const doc = (await client.send({ id: 'openapi', method: 'GET', path: V2_OPENAPI_PATH, envelope: 'bare', security: ['api_key_header', 'OAuth2PasswordBearer'], write: false })) as V2OpenApiDocument;
  const routes = pluginRoutes(doc).filter((r) => client.accepts(r.security));
  const skipped: V2SkippedPluginRoute[] = [];
  const served: V2PluginRoute[] = [];
  const capabilities: Capability[] = [];
  for (const route of routes) {
    try {
      capabilities.push(pluginCapability(client, doc, route, declarations[route.capabilityId] ?? {}));
      served.push(route);
    } catch (error) {
      if (!isMediaAgentError(error, 'CAPABILITY_SCHEMA_UNSUPPORTED') && !isMediaAgentError(error, 'CAPABILITY_DEFINITION_INVALID')) throw error;
      skipped.push({ capabilityId: route.capabilityId, error: { code: error.code, message: error.message } });
    }
  }
  return { capabilities, routes: served, skipped };
}

/** One plugin route as a capability (throws what `defineCapability` throws). */
function pluginCapability(client: V2HostClient, doc: V2OpenApiDocument, route: V2PluginRoute, d: V2PluginDeclaration): Capability {
  const op = doc.paths[route.path]![route.method.toLowerCase()]!;
  const read = route.method === 'GET';
  const params = op.parameters ?? [];
  const group = (where: string) => {
    const ps = params.filter((p) => p.in === where);
    if (ps.length === 0) return undefined;
    return Type.Object(Object.fromEntries(ps.map((p) => [p.name, p.required ? (inline(p.schema ?? {}, doc) as TSchema) : Type.Optional(inline(p.schema ?? {}, doc) as TSchema)])));
  };
  const pathSchema = group('path');
  const querySchema = group('query');
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  const input =
    d.input ??
    Type.Object(
      {
        ...(pathSchema ? { path: pathSchema } : {}),
        ...(querySchema ? { query: params.some((p) => p.in === 'query' && p.required) ? querySchema : Type.Optional(querySchema) } : {}),
        ...(bodySchema ? { body: op.requestBody?.required ? (inline(bodySchema, doc) as TSchema) : Type.Optional(inline(bodySchema, doc) as TSchema) } : {}),
      },
      { additionalProperties: false },
    );
  const output = d.output ?? Type.Object({ status: Type.Literal('ok'), data: Type.Unknown() });
  const kind = d.kind ?? (read ? 'read' : 'execute');
  return defineCapability({
    id: route.capabilityId,
    version: 1,
    title: d.title ?? op.summary ?? `${route.pluginId} ${route.method} ${route.path}`,
    description: d.description ?? `${op.summary ?? ''} ${op.description ?? ''} (MoviePilot plugin ${route.pluginId}: ${route.method} ${route.path})`.trim(),
    kind,
    replay: d.replay ?? (kind === 'read' || kind === 'preview' ? 'safe' : 'never'),
    input,
    output,
    tags: ['plugin', route.pluginId, ...(d.tags ?? [])],
    aliases: d.aliases ?? [],
    ...(d.policy ? { policy: d.policy } : {}),
    ...(d.verify ? { verify: d.verify } : {}),
    handler: async (i: any, ctx) => {
      const req = d.toRequest ? d.toRequest(i) : { path: i.path, query: i.query, body: i.body };
      const data = await client.send(
        { id: route.capabilityId, method: route.method, path: route.path, envelope: route.enveloped ? 'response' : 'bare', security: route.security, write: !read },
        { ...(req.path ? { path: req.path } : {}), ...(req.query ? { query: req.query } : {}), ...(req.body !== undefined ? { body: req.body } : {}), signal: ctx.signal },
      );
      return (d.fromResponse ? d.fromResponse(data) : { status: 'ok', data }) as never;
    },
  }) as unknown as Capability;
}
