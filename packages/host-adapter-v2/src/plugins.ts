import {
  defineCapability,
  isMediaAgentError,
  type Capability,
  type CapabilityDefinition,
  type CapabilityKind,
  type HandlerContext,
  type InvocationResult,
  type InvocationTarget,
  type PendingOutcome,
  type ReplayPolicy,
  type Verifier,
} from '@media-agent/sdk';
import {
  bindPluginCapability,
  defineUnboundPlugin,
  GatedPluginClient,
  hostPluginSegments,
  PluginCallGate,
  PluginDefinitionError,
  PluginOperationError,
  PluginRefusals,
  rulePluginRoute,
  type PluginDefinitionCode,
  type PluginGateRules,
  type PluginRefusalCode,
  type PluginServices,
} from '@media-agent/host-adapter-kit';
import type { Static, TSchema } from 'typebox';
import Type from 'typebox';
import type { V2SuperuserAuthorizer } from './authorizer';
import type { V2CallParams, V2HostClient } from './client';
import {
  v2RouteEffect,
  V2_OPERATIONS,
  type V2Operation,
  type V2RouteEffect,
  type V2SecurityScheme,
} from './operations';

/**
 * What a plugin author may declare for one plugin route capability, overriding what the adapter
 * infers from the host's OpenAPI document (GET → `read`/`safe`, other methods → `execute`/`never`).
 * @public
 */
export interface V2PluginDeclaration {
  /**
   * Kind (default from the method). It cannot be weaker than the route: a route that writes (any
   * method but GET, or `effect` below) must stay `execute`, else discovery throws `PLUGIN_KIND_TOO_WEAK`.
   */
  kind?: CapabilityKind;
  /**
   * Raises the effect the method implies (never lowers it): `write` for a GET route that changes
   * state (then `kind` must be `execute`), `destructive` for one that deletes (then non-human actors
   * need an approval, as for a `DELETE` route; a grant is not enough — give the capability a `target` naming a plan).
   */
  effect?: 'write' | 'destructive';
  /** What a call touches (a plan an approval binds to, a media entity), from the declared input. */
  target?: (input: any) => InvocationTarget;
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
  toRequest?: (input: any) => {
    path?: Record<string, string | number>;
    query?: Record<string, string | number | boolean | undefined>;
    body?: unknown;
  };
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
  /** Who may send it and whether it writes or deletes (with the author's declared `effect`, when any). */
  effect: V2RouteEffect;
}

/** A plugin route left out because its input schema cannot be offered to model providers (see `checkProviderSchema` in the SDK). @public */
export interface V2SkippedPluginRoute {
  /** The capability id the route would have had. */
  capabilityId: string;
  /** The refusal: code `CAPABILITY_SCHEMA_UNSUPPORTED` (rule and JSON pointer in the message) or `CAPABILITY_DEFINITION_INVALID`. */
  error: { code: string; message: string };
}

/** The parts of a host's OpenAPI document the plugin discovery reads. @public */
export type V2OpenApiDocument = {
  paths: Record<
    string,
    Record<
      string,
      {
        summary?: string;
        description?: string;
        parameters?: Array<{ in: string; name: string; required?: boolean; schema?: unknown }>;
        requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> };
        responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
        security?: Array<Record<string, string[]>>;
      }
    >
  >;
  components?: {
    schemas?: Record<string, unknown>;
    /** The security schemes (API-key schemes name the header, query or cookie parameter that carries the credential). */
    securitySchemes?: Record<string, { type?: string; in?: string; name?: string }>;
  };
};

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
 * The plugin routes of an OpenAPI document: the routes a plugin declared itself
 * (`/api/v1/plugin/<PluginID>/<path>`, answering JSON), by the rule of `rulePluginRoute` from
 * `@media-agent/host-adapter-kit` — never the host's own plugin management under `/api/v1/plugin/`
 * (static files `file/{plugin_id}/{filepath}`, install, reload, forms, folders, …) and never a route that
 * answers files or pages. When one id would serve several methods, the non-GET ones get `.<method>` appended.
 * @param doc - the host's OpenAPI document
 * @param installed - ids of the plugins the host lists as installed, when known (routes of others are left out)
 * @returns one entry per plugin route and method
 * @public
 */
export function pluginRoutes(doc: V2OpenApiDocument, installed?: ReadonlySet<string>): V2PluginRoute[] {
  const out: V2PluginRoute[] = [];
  const context = { hostSegments: hostPluginSegments(Object.keys(doc.paths)), ...(installed ? { installed } : {}) };
  for (const [path, methods] of Object.entries(doc.paths)) {
    const gets = Object.keys(methods).filter((x) => x === 'get').length;
    const count = Object.keys(methods).filter((x) => ['get', 'post', 'put', 'delete'].includes(x)).length;
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'delete'].includes(method)) continue;
      const ruling = rulePluginRoute(path, op, context);
      if (!ruling.own) continue;
      const base = pluginCapabilityId(ruling.pluginId, ruling.rest);
      const capabilityId = count > 1 && !(method === 'get' && gets === 1) ? `${base}.${method}` : base;
      const security = (op.security ?? []).flatMap((s) => Object.keys(s)) as V2SecurityScheme[];
      out.push({
        capabilityId,
        pluginId: ruling.pluginId,
        method: method.toUpperCase() as V2PluginRoute['method'],
        path,
        security,
        enveloped:
          (op.responses?.['200']?.content?.['application/json']?.schema as { $ref?: string } | undefined)?.$ref ===
          '#/components/schemas/Response',
        effect: v2RouteEffect(`${method.toUpperCase()} ${path}`, security),
      });
    }
  }
  return out.filter((r) => r.capabilityId.length <= 128);
}

/** `in:name` (name in lower case) of every parameter the document's API-key security schemes read a credential from. */
function credentialParameters(doc: V2OpenApiDocument): Set<string> {
  const schemes = Object.values(doc.components?.securitySchemes ?? {});
  return new Set(
    schemes
      .filter((s) => s.type === 'apiKey' && typeof s.name === 'string' && typeof s.in === 'string')
      .map((s) => `${s.in}:${s.name!.toLowerCase()}`),
  );
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
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === 'default' || k === 'examples' ? v : inline(v, doc, seen)]),
  );
}

/**
 * Reads the host's live OpenAPI document (`GET /api/v1/openapi.json`) and makes one capability per
 * plugin route: `plugin.<PluginID>.<path>`, GET → `read`/`safe`, other methods → `execute`/`never`
 * (an unknown outcome stays unknown unless the author declares a verifier), overridable per id by
 * `declarations`. Routes whose security accepts none of the client's credentials are left out, and so
 * is a route whose input schema `defineCapability` refuses (e.g. a recursive schema no model provider
 * accepts): it is listed in `skipped`, and the other routes still become capabilities — one plugin's
 * schema never takes every plugin (or every model call) down.
 *
 * Each capability sends its own route only and carries the route's {@link V2RouteEffect}; registered on
 * the host of {@link createV2AgentHost}, a route only the host's API token may call (plugin
 * `auth: "apikey"`) or a superuser-only route is for host superusers only, and a destructive one
 * (`DELETE`, or `effect: 'destructive'`) needs an approval for non-human actors (a grant is not enough).
 *
 * ```ts
 * const { capabilities, document } = await discoverV2PluginCapabilities(client, { 'plugin.LogsClean.clean': { kind: 'execute', replay: 'reconcile' } });
 * ```
 *
 * @param client - the host client
 * @param declarations - plugin authors' declarations by capability id
 * @returns the capabilities (register them on the host's registry), the routes they serve, the routes
 *   skipped, and the OpenAPI document read
 * @throws {@link V2PluginDefinitionError} `PLUGIN_KIND_TOO_WEAK` when a declaration's `kind` is weaker
 *   than its route (a writing route declared anything but `execute`); the client's errors when the
 *   OpenAPI document cannot be read
 * @returns see {@link V2PluginDiscovery}
 * @public
 */
export async function discoverV2PluginCapabilities(
  client: V2HostClient,
  declarations: Record<string, V2PluginDeclaration> = {},
): Promise<V2PluginDiscovery> {
  const doc = (await client.loadContract()).document as unknown as V2OpenApiDocument;
  const routes = pluginRoutes(doc, await installedPlugins(client, doc))
    .filter((r) => client.accepts(r.security))
    .map((r) => {
      const effect = declarations[r.capabilityId]?.effect;
      return effect
        ? {
            ...r,
            effect: v2RouteEffect(`${r.method} ${r.path}`, r.security, {
              write: true,
              destructive: effect === 'destructive',
            }),
          }
        : r;
    });
  const skipped: V2SkippedPluginRoute[] = [];
  const served: V2PluginRoute[] = [];
  const capabilities: Capability[] = [];
  for (const route of routes) {
    try {
      capabilities.push(pluginCapability(client, doc, route, declarations[route.capabilityId] ?? {}));
      served.push(route);
    } catch (error) {
      if (
        !isMediaAgentError(error, 'CAPABILITY_SCHEMA_UNSUPPORTED') &&
        !isMediaAgentError(error, 'CAPABILITY_DEFINITION_INVALID')
      )
        throw error;
      skipped.push({ capabilityId: route.capabilityId, error: { code: error.code, message: error.message } });
    }
  }
  return { capabilities, routes: served, skipped, document: doc };
}

/**
 * The ids of the plugins the host lists as installed (`GET /api/v1/plugin/installed`), when the
 * adapter's credentials open that route; `undefined` when they do not or the read fails (the rule then
 * reads the document alone).
 */
async function installedPlugins(client: V2HostClient, doc: V2OpenApiDocument): Promise<Set<string> | undefined> {
  const path = '/api/v1/plugin/installed';
  const security = (doc.paths[path]?.get?.security ?? []).flatMap((s) => Object.keys(s)) as V2SecurityScheme[];
  if (!doc.paths[path]?.get || !client.accepts(security)) return undefined;
  try {
    const ids = await client.send(
      { id: 'plugin.installed', method: 'GET', path, envelope: 'bare', security, write: false },
      {},
    );
    return Array.isArray(ids) ? new Set(ids.filter((x): x is string => typeof x === 'string')) : undefined;
  } catch {
    return undefined;
  }
}

/** One plugin route as a capability (throws what `defineCapability` throws, and `PLUGIN_KIND_TOO_WEAK`). */
function pluginCapability(
  client: V2HostClient,
  doc: V2OpenApiDocument,
  route: V2PluginRoute,
  d: V2PluginDeclaration,
): Capability {
  const op = doc.paths[route.path]![route.method.toLowerCase()]!;
  const read = !route.effect.write;
  // A parameter that carries a credential of the host's own security schemes (the plugin API's `apikey`
  // query, the `token` query) is the adapter's to send: the model is never asked for the host's API token.
  const credentials = credentialParameters(doc);
  const params = (op.parameters ?? []).filter((p) => !credentials.has(`${p.in}:${p.name.toLowerCase()}`));
  const group = (where: string) => {
    const ps = params.filter((p) => p.in === where);
    if (ps.length === 0) return undefined;
    return Type.Object(
      Object.fromEntries(
        ps.map((p) => [
          p.name,
          p.required ? (inline(p.schema ?? {}, doc) as TSchema) : Type.Optional(inline(p.schema ?? {}, doc) as TSchema),
        ]),
      ),
    );
  };
  const pathSchema = group('path');
  const querySchema = group('query');
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  const input =
    d.input ??
    Type.Object(
      {
        ...(pathSchema ? { path: pathSchema } : {}),
        ...(querySchema
          ? { query: params.some((p) => p.in === 'query' && p.required) ? querySchema : Type.Optional(querySchema) }
          : {}),
        ...(bodySchema
          ? {
              body: op.requestBody?.required
                ? (inline(bodySchema, doc) as TSchema)
                : Type.Optional(inline(bodySchema, doc) as TSchema),
            }
          : {}),
      },
      { additionalProperties: false },
    );
  const output = d.output ?? Type.Object({ status: Type.Literal('ok'), data: Type.Unknown() });
  const kind = d.kind ?? (read ? 'read' : 'execute');
  if (route.effect.write && kind !== 'execute')
    throw new V2PluginDefinitionError(
      'PLUGIN_KIND_TOO_WEAK',
      route.capabilityId,
      `${route.capabilityId} sends ${route.effect.route} (a write) but is declared kind ${kind}: a capability that may write must be kind execute`,
    );
  const capability = defineCapability({
    id: route.capabilityId,
    version: 1,
    title: d.title ?? op.summary ?? `${route.pluginId} ${route.method} ${route.path}`,
    description:
      d.description ??
      `${op.summary ?? ''} ${op.description ?? ''} (MoviePilot plugin ${route.pluginId}: ${route.method} ${route.path})`.trim(),
    kind,
    replay: d.replay ?? (kind === 'read' || kind === 'preview' ? 'safe' : 'never'),
    input,
    output,
    tags: ['plugin', route.pluginId, ...(d.tags ?? [])],
    aliases: d.aliases ?? [],
    ...(d.policy ? { policy: d.policy } : {}),
    ...(d.verify ? { verify: d.verify } : {}),
    ...(d.target ? { target: d.target } : {}),
    handler: async (i: any, ctx) => {
      const req = d.toRequest ? d.toRequest(i) : { path: i.path, query: i.query, body: i.body };
      const data = await client.send(
        {
          id: route.capabilityId,
          method: route.method,
          path: route.path,
          envelope: route.enveloped ? 'response' : 'bare',
          security: route.security,
          write: route.effect.write,
        },
        {
          ...(req.path ? { pathParams: req.path } : {}),
          ...(req.query ? { query: req.query } : {}),
          ...(req.body !== undefined ? { body: req.body } : {}),
          signal: ctx.signal,
        },
      );
      return (d.fromResponse ? d.fromResponse(data) : { status: 'ok', data }) as never;
    },
  }) as unknown as Capability;
  ROUTE_CAPABILITIES.set(capability, [route.effect]);
  return capability;
}

// ── plugin capabilities with a scoped client ──────────────────────────────────────────────────────

/** Plugin route capabilities made by discovery, with the one route each sends. */
const ROUTE_CAPABILITIES = new WeakMap<object, readonly V2RouteEffect[]>();

/** A former name, kept for one minor version.
 * @deprecated Use `PluginRefusalCode` from `@media-agent/host-adapter-kit` (the same codes). @public */
export type V2PluginRefusalCode = PluginRefusalCode;

/** A former name, kept for one minor version.
 * @deprecated Use `PluginOperationError` from `@media-agent/host-adapter-kit`: this is the same class. @public */
export const V2PluginOperationError = PluginOperationError;
/** A former name, kept for one minor version.
 * @deprecated Use `PluginOperationError` from `@media-agent/host-adapter-kit`. @public */
export type V2PluginOperationError = PluginOperationError;

/** A former name, kept for one minor version.
 * @deprecated Use `PluginDefinitionCode` from `@media-agent/host-adapter-kit` (the same codes). @public */
export type V2PluginDefinitionCode = PluginDefinitionCode;

/** A former name, kept for one minor version.
 * @deprecated Use `PluginDefinitionError` from `@media-agent/host-adapter-kit`: this is the same class. @public */
export const V2PluginDefinitionError = PluginDefinitionError;
/** A former name, kept for one minor version.
 * @deprecated Use `PluginDefinitionError` from `@media-agent/host-adapter-kit`. @public */
export type V2PluginDefinitionError = PluginDefinitionError;

/**
 * The client a plugin handler receives as `ctx.client`: one object per invocation, limited to the
 * routes the plugin declared and to what the invoking actor may send. It has no credentials of its own
 * to give away and stops working when the handler returns.
 * @public
 */
export interface V2PluginClient {
  /** The plugin capability it serves. */
  readonly capabilityId: string;
  /** The routes it may send, as `METHOD /path-template` (the plugin's declaration). */
  readonly routes: readonly string[];
  /**
   * Sends a declared route for the invoking actor (the envelope unwrapped as {@link V2HostClient.call}
   * does); the signal defaults to the invocation's.
   * @param route - a declared route in any {@link V2RouteRef} form (e.g. `DELETE /api/v1/subscribe/{subscribe_id}`, `subscribe.media`)
   * @param params - path values, query, body, signal
   * @returns the envelope's `data` (enveloped routes) or the parsed body
   * @throws {@link V2PluginOperationError} `PLUGIN_OPERATION_UNDECLARED` / `PLUGIN_OPERATION_FORBIDDEN` /
   *   `PLUGIN_CLIENT_CLOSED` before anything is sent; otherwise everything {@link V2HostClient.send} throws
   */
  call<T = unknown>(route: V2RouteRef, params?: V2CallParams): Promise<T>;
}

/** What a V2 plugin handler receives: the SDK's handler context plus its scoped {@link V2PluginClient}. @public */
export interface V2PluginContext extends HandlerContext {
  /** The scoped client of this invocation. */
  readonly client: V2PluginClient;
}

/**
 * What a plugin author writes: an SDK capability definition whose handler gets a scoped client, plus
 * the routes that client may send.
 * @public
 */
export interface V2PluginDefinition<I extends TSchema = TSchema, O extends TSchema = TSchema>
  extends Omit<CapabilityDefinition<I, O>, 'handler'> {
  /**
   * Routes the handler may send ({@link V2RouteRef}): `METHOD /path-template` of the host's OpenAPI
   * document (plugin routes `/api/v1/plugin/<PluginID>/…` or host routes, e.g.
   * `DELETE /api/v1/subscribe/{subscribe_id}`), the same as `{ method, path }`, or ids of
   * `V2_OPERATIONS` (e.g. `subscribe.media`). A writing route (any method but GET, or raised by
   * `effects`) requires `kind: 'execute'`. The plugin is authorized like the route capability of each:
   * superuser-only routes (and routes only the host's API token may call) need a host superuser,
   * destructive ones an approval for non-human actors (a grant is not enough).
   */
  routes: readonly V2RouteRef[];
  /** Raises the effect of declared routes (never lowers it), by route (`METHOD /path-template` or `V2_OPERATIONS` id): `write` or `destructive`. */
  effects?: Readonly<Record<string, 'write' | 'destructive'>>;
  /** The handler; `ctx.client` is its scoped client. */
  handler: (
    input: NoInfer<Static<I>>,
    ctx: V2PluginContext,
  ) => Promise<NoInfer<Static<O>> | PendingOutcome<NoInfer<Static<O>>>>; // NoInfer: see CapabilityDefinition
}

/**
 * A defined V2 plugin capability: a frozen SDK capability carrying its declared `routes`
 * (`METHOD /path-template`). {@link defineV2PluginCapability} returns it typed as a plain `Capability`;
 * {@link isV2PluginCapability} narrows to this type.
 * @public
 */
export type V2PluginCapability<I extends TSchema = TSchema, O extends TSchema = TSchema> = Capability<I, O> & {
  /** The declared routes, normalized to `METHOD /path-template` (deduplicated). */
  readonly routes: readonly string[];
};

type PluginHandler = (input: unknown, ctx: V2PluginContext) => Promise<unknown>;
interface PluginMeta {
  handler: PluginHandler;
  raise: ReadonlyMap<string, { write: boolean; destructive: boolean }>;
}
const PLUGINS = new WeakMap<object, PluginMeta>();
const ROUTE = /^(GET|POST|PUT|DELETE) (\/\S*)$/i;

/**
 * A route as a plugin declares or calls it: `METHOD /path-template` (e.g.
 * `DELETE /api/v1/subscribe/{subscribe_id}`), `{ method, path }` with the path template, or an id of
 * `V2_OPERATIONS` (e.g. `subscribe.media`). All three name the same route.
 * @public
 */
export type V2RouteRef = string | { readonly method: string; readonly path: string };

/** `METHOD /path-template` of a declared or called route, or `undefined` when it is none of the {@link V2RouteRef} forms. */
function normalizeRoute(route: unknown): string | undefined {
  if (route && typeof route === 'object') {
    const { method, path } = route as { method?: unknown; path?: unknown };
    return typeof method === 'string' && typeof path === 'string' ? normalizeRoute(`${method} ${path}`) : undefined;
  }
  if (typeof route !== 'string') return undefined;
  const m = ROUTE.exec(route);
  if (m) return `${m[1]!.toUpperCase()} ${m[2]}`;
  const row = Object.hasOwn(V2_OPERATIONS, route) ? (V2_OPERATIONS as Record<string, V2Operation>)[route] : undefined;
  return row ? `${row.method} ${row.path}` : undefined;
}

/** A route reference for messages. */
const describeRoute = (route: unknown): string => (typeof route === 'string' ? route : JSON.stringify(route));

/**
 * Defines a plugin capability for MoviePilot 2.x that sends host or plugin routes through a scoped
 * client. Register it on the `host.capabilities` of {@link createV2AgentHost} (or pass it in
 * `plugins.capabilities`); the host binds it: each invocation gets a new {@link V2PluginClient}
 * limited to `routes` and to the invoking actor's authority, and the authorizer treats the plugin as
 * sending every declared route (see {@link V2PluginDefinition.routes}).
 *
 * @param definition - the capability definition, `routes` (and `effects`), and a handler taking {@link V2PluginContext}
 * @returns the frozen capability with its normalized `routes` (read them through {@link isV2PluginCapability});
 *   its own handler refuses to run unbound (`PLUGIN_NOT_BOUND`)
 * @throws {@link V2PluginDefinitionError} `PLUGIN_DECLARATION_INVALID` (a route that is neither form),
 *   `PLUGIN_KIND_TOO_WEAK` (a writing route with a kind other than `execute`); and everything the SDK's
 *   `defineCapability` throws (`CAPABILITY_DEFINITION_INVALID`, …)
 *
 * @example
 * ```ts
 * const unfollow = defineV2PluginCapability({
 *   id: 'plugin.Cleanup.unfollow', version: 1, title: 'Unfollow a title', description: '…',
 *   kind: 'execute', replay: 'reconcile',
 *   routes: ['subscribe.media', 'DELETE /api/v1/subscribe/{subscribe_id}'],
 *   input: Type.Object({ tmdbId: Type.Integer() }), output: Type.Object({ deleted: Type.Boolean() }),
 *   handler: async (input, ctx) => {
 *     const s = await ctx.client.call<{ id?: number }>('subscribe.media', { pathParams: { mediaid: `tmdb:${input.tmdbId}` } });
 *     if (typeof s?.id !== 'number') return { deleted: false };
 *     await ctx.client.call('DELETE /api/v1/subscribe/{subscribe_id}', { pathParams: { subscribe_id: s.id } });
 *     return { deleted: true };
 *   },
 * });
 * v2.host.capabilities.register(unfollow);
 * ```
 * @public
 */
export function defineV2PluginCapability<I extends TSchema, O extends TSchema>(
  definition: V2PluginDefinition<I, O>,
): Capability<I, O> {
  const id = String((definition as { id?: unknown } | undefined)?.id);
  const declared = definition?.routes as unknown;
  if (!Array.isArray(declared))
    throw new V2PluginDefinitionError(
      'PLUGIN_DECLARATION_INVALID',
      id,
      `${id}: routes must be a list of "METHOD /path-template", { method, path } or V2_OPERATIONS ids`,
    );
  const invalid = declared.filter((r) => normalizeRoute(r) === undefined);
  if (invalid.length > 0)
    throw new V2PluginDefinitionError(
      'PLUGIN_DECLARATION_INVALID',
      id,
      `${id}: ${invalid.map((r) => JSON.stringify(r)).join(', ')} ${invalid.length === 1 ? 'is' : 'are'} neither "METHOD /path-template", { method, path } nor a V2_OPERATIONS id`,
    );
  const routes = Object.freeze([...new Set(declared.map((r) => normalizeRoute(r)!))]);
  const raise = new Map<string, { write: boolean; destructive: boolean }>();
  for (const [written, effect] of Object.entries(definition.effects ?? {})) {
    const route = normalizeRoute(written);
    if (!route || !routes.includes(route))
      throw new V2PluginDefinitionError(
        'PLUGIN_DECLARATION_INVALID',
        id,
        `${id}: effects names ${JSON.stringify(written)}, which is not one of its routes`,
      );
    raise.set(route, { write: true, destructive: effect === 'destructive' });
  }
  const writes = routes.filter((r) => v2RouteEffect(r, [], raise.get(r)).write);
  if (writes.length > 0 && definition.kind !== 'execute')
    throw new V2PluginDefinitionError(
      'PLUGIN_KIND_TOO_WEAK',
      id,
      `${id} declares ${writes.join(', ')} (a write) but is kind ${definition.kind}: a plugin that may send a write must be kind execute`,
    );
  const { handler, routes: _routes, effects: _effects, ...rest } = definition;
  const capability = defineUnboundPlugin<Capability<I, O>>(
    id,
    rest as Omit<CapabilityDefinition, 'handler'>,
    handler,
    { routes },
    `${id} is a V2 plugin capability: register it on the host.capabilities of createV2AgentHost, which gives it a scoped client`,
  );
  PLUGINS.set(capability, { handler: handler as PluginHandler, raise });
  return capability;
}

/**
 * Whether a capability was made by {@link defineV2PluginCapability}.
 * @param capability - any capability
 * @public
 */
export function isV2PluginCapability(capability: Capability<any, any>): capability is V2PluginCapability<any, any> {
  return PLUGINS.has(capability);
}

/**
 * How a `V2CapabilityRegistry` binds plugin capabilities and records what plugin route capabilities
 * send (created by {@link createV2AgentHost}; hosts do not implement it).
 * @public
 */
export interface V2PluginBinder {
  /**
   * What to register in place of a capability: a plugin capability bound to a scoped client, a plugin
   * route capability (from discovery) as it is, `undefined` for any other capability.
   * @throws {@link V2PluginDefinitionError} `PLUGIN_DECLARATION_INVALID` for a declared route the host does not serve or the adapter cannot authenticate to
   */
  bind(capability: Capability<any, any>): Capability<any, any> | undefined;
  /** Records the routes of a capability `bind` accepted, once it is registered (the authorizer reads them). */
  declare(capability: Capability<any, any>): void;
  /** The routes of a registered plugin or plugin route capability, by id. */
  routesOf(capabilityId: string): readonly V2RouteEffect[] | undefined;
  /** Turns a `failed` result caused by a refused plugin request (nothing written) into `denied`. */
  settle(result: InvocationResult): InvocationResult;
}

/** Services the binder needs once the host is built. @internal */
export type V2PluginServices = PluginServices;

/** A declared route resolved for sending. */
interface ResolvedRoute {
  effect: V2RouteEffect;
  operation: Pick<V2Operation, 'id' | 'method' | 'path' | 'envelope' | 'security' | 'write'> & { timeoutMs?: number };
}

/**
 * What {@link discoverV2PluginCapabilities} found on a host.
 * @public
 */
export interface V2PluginDiscovery {
  /** One capability per served plugin route. */
  capabilities: Capability[];
  /** The routes those capabilities call. */
  routes: V2PluginRoute[];
  /** Routes left out because no model provider accepts their schema, with the reason. */
  skipped: V2SkippedPluginRoute[];
  /** The host's OpenAPI document the routes were read from. */
  document: V2OpenApiDocument;
}

/**
 * The {@link V2PluginBinder} of one V2 host: binds plugins to the host client through per-invocation
 * scoped clients, checks each request (declared, then the invoking actor through
 * {@link V2SuperuserAuthorizer.superuserDenial}), audits refusals.
 * @internal
 */
export class V2PluginHost implements V2PluginBinder {
  /** The host's OpenAPI document, once read (declared routes outside `V2_OPERATIONS` are resolved in it). */
  document: V2OpenApiDocument | undefined;
  readonly #client: V2HostClient;
  readonly #authorizer: () => V2SuperuserAuthorizer;
  readonly #services: () => V2PluginServices;
  readonly #routes = new Map<string, readonly V2RouteEffect[]>();
  readonly #pending = new WeakMap<object, readonly V2RouteEffect[]>();
  readonly #refusals = new PluginRefusals();

  constructor(deps: {
    client: V2HostClient;
    authorizer: () => V2SuperuserAuthorizer;
    services: () => V2PluginServices;
  }) {
    this.#client = deps.client;
    this.#authorizer = deps.authorizer;
    this.#services = deps.services;
  }

  routesOf(capabilityId: string): readonly V2RouteEffect[] | undefined {
    return this.#routes.get(capabilityId);
  }

  declare(capability: Capability<any, any>): void {
    const routes = this.#pending.get(capability);
    if (routes) this.#routes.set(capability.id, routes);
  }

  bind(capability: Capability<any, any>): Capability<any, any> | undefined {
    const discovered = ROUTE_CAPABILITIES.get(capability);
    if (discovered) {
      this.#pending.set(capability, discovered);
      return capability;
    }
    const meta = PLUGINS.get(capability);
    if (!meta) return undefined;
    const plugin = capability as V2PluginCapability<any, any>;
    const resolved = new Map(plugin.routes.map((r) => [r, this.#resolve(plugin.id, r, meta.raise.get(r))]));
    const {
      routes: _routes,
      handler: _unbound,
      modelInputSchema: _model,
      ...definition
    } = plugin as V2PluginCapability<any, any> & { modelInputSchema?: unknown };
    const rules: PluginGateRules<ResolvedRoute> = {
      deny: (route, actor, storage) =>
        route.effect.superuser
          ? this.#authorizer().superuserDenial(`${route.operation.method} ${route.operation.path}`, actor, storage)
          : Promise.resolve(undefined),
      writes: (route) => route.effect.write,
    };
    const bound = bindPluginCapability<ResolvedRoute, V2PluginClient>(
      definition as Omit<CapabilityDefinition, 'handler'>,
      meta.handler as never,
      (ctx) => new PluginCallGate(plugin.id, resolved, ctx, rules, this.#services),
      (gate) => new ScopedClient(this.#client, gate),
      this.#refusals,
    );
    this.#pending.set(
      bound,
      [...resolved.values()].map((r) => r.effect),
    );
    return bound;
  }

  settle(result: InvocationResult): InvocationResult {
    return this.#refusals.settle(result);
  }

  /** A declared route as the client sends it: the adapter's table row, else the host's OpenAPI document. */
  #resolve(
    capabilityId: string,
    route: string,
    raise: { write: boolean; destructive: boolean } | undefined,
  ): ResolvedRoute {
    const [method, path] = [route.slice(0, route.indexOf(' ')), route.slice(route.indexOf(' ') + 1)] as [
      V2Operation['method'],
      string,
    ];
    const row = Object.values(V2_OPERATIONS as Record<string, V2Operation>).find(
      (o) => o.method === method && o.path === path,
    );
    let operation: ResolvedRoute['operation'];
    if (row) operation = row;
    else {
      const op = this.document?.paths[path]?.[method.toLowerCase()];
      if (!op)
        throw new V2PluginDefinitionError(
          'PLUGIN_DECLARATION_INVALID',
          capabilityId,
          `${capabilityId} declares ${route}, which ${this.document ? "is not a route of the host's OpenAPI document" : "cannot be checked: the host's OpenAPI document was not read (plugins: false, or the host was unreachable)"}`,
        );
      const enveloped =
        (op.responses?.['200']?.content?.['application/json']?.schema as { $ref?: string } | undefined)?.$ref ===
        '#/components/schemas/Response';
      operation = {
        id: route,
        method,
        path,
        envelope: enveloped ? 'response' : 'bare',
        security: (op.security ?? []).flatMap((s) => Object.keys(s)) as V2SecurityScheme[],
        write: false,
      };
    }
    if (!this.#client.accepts(operation.security))
      throw new V2PluginDefinitionError(
        'PLUGIN_DECLARATION_INVALID',
        capabilityId,
        `${capabilityId} declares ${route}, which accepts none of the adapter's credentials (${operation.security.join(', ')})`,
      );
    const effect = v2RouteEffect(route, operation.security, raise);
    return { effect, operation: { ...operation, write: effect.write } };
  }
}

/** The per-invocation client of one plugin call: its gate admits each request, then the host client sends it. */
class ScopedClient extends GatedPluginClient<ResolvedRoute> implements V2PluginClient {
  readonly #client: V2HostClient;

  constructor(client: V2HostClient, gate: PluginCallGate<ResolvedRoute>) {
    super(gate);
    this.#client = client;
  }

  get routes(): readonly string[] {
    return this.gate.declared;
  }

  async call<T = unknown>(route: V2RouteRef, params: V2CallParams = {}): Promise<T> {
    const resolved = await this.gate.admit(normalizeRoute(route), describeRoute(route));
    return (await this.#client.send(resolved.operation, { ...params, signal: this.signalOr(params.signal) })) as T;
  }
}
