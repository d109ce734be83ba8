/**
 * The rule that decides which routes under a MoviePilot host's `/api/v1/plugin/` are a plugin's own
 * API (and may become capabilities the model calls) and which are the host's own plugin management
 * (static files, install, reload, forms, folders, …), which never do.
 *
 * MoviePilot mounts the routes a plugin declares in `get_api()` at `/api/v1/plugin/<PluginID>/<path>`
 * (always at least two segments), and serves its own plugin management in the same folder. The rule
 * reads only the host's document, never a list of names:
 *
 * - a first segment is the host's when the host serves it alone (`/api/v1/plugin/installed`,
 *   `/api/v1/plugin/folders`, `/api/v1/plugin/runtime`) or puts a `{plugin_id}` parameter right after it
 *   (`/api/v1/plugin/file/{plugin_id}/{filepath}`, `/api/v1/plugin/reload/{plugin_id}`) — a plugin's
 *   route never names another plugin;
 * - the plugin id must be a literal name (a `{parameter}` is the host's);
 * - the route must declare a JSON answer (and nothing but JSON): a route that answers files or pages is
 *   no capability;
 * - when the host's list of installed plugins is known, the plugin must be in it (and a plugin in it is
 *   never taken for a host segment).
 */

/** The parts of one OpenAPI operation the rule reads. @public */
export interface PluginRouteOperation {
  /** The operation's declared answers by status, with their content types. */
  responses?: Record<string, { content?: Record<string, unknown> } | undefined>;
}

/**
 * Why a route under `/api/v1/plugin/` is not a plugin's own API:
 * - `outside_plugin_api`: not under `/api/v1/plugin/<id>/<path>` (one segment, or no literal plugin id);
 * - `host_route`: the host's own plugin management (see the rule above);
 * - `not_installed`: the first segment is not a plugin the host lists as installed;
 * - `not_json`: the route declares no JSON answer, or declares other content types too (files, pages).
 * @public
 */
export type PluginRouteRefusal = 'outside_plugin_api' | 'host_route' | 'not_installed' | 'not_json';

/** What the rule says of one route: a plugin's own API, or why not. @public */
export type PluginRouteRuling =
  | { readonly own: true; readonly pluginId: string; readonly rest: string }
  | { readonly own: false; readonly reason: PluginRouteRefusal; readonly message: string };

/** What the rule knows of the host besides one route: its plugin-management segments, its installed plugins. @public */
export interface PluginRouteContext {
  /** First segments under `/api/v1/plugin/` that are the host's own ({@link hostPluginSegments}). */
  readonly hostSegments: ReadonlySet<string>;
  /** Ids of the plugins the host lists as installed, when known (then a route of any other id is refused). */
  readonly installed?: ReadonlySet<string>;
}

const PLUGIN_PREFIX = '/api/v1/plugin/';

/** The segments of a path under `/api/v1/plugin/`, or `undefined` for any other path. */
function segmentsOf(path: string): string[] | undefined {
  if (!path.startsWith(PLUGIN_PREFIX)) return undefined;
  return path.slice(PLUGIN_PREFIX.length).split('/');
}

/**
 * The first segments under `/api/v1/plugin/` that a host's own routes occupy, read from all its paths:
 * a segment served alone (`/api/v1/plugin/<segment>`) or followed by a `{plugin_id}` parameter.
 * @param paths - every path of the host's OpenAPI document (or catalog)
 * @returns the host's segments, e.g. `file`, `reload`, `installed`, `folders`, `dashboard`
 * @public
 */
export function hostPluginSegments(paths: Iterable<string>): Set<string> {
  const host = new Set<string>();
  for (const path of paths) {
    const segments = segmentsOf(path);
    if (!segments?.[0]) continue;
    const rest = segments.slice(1).filter(Boolean);
    if (rest.length === 0 || segments[1] === '{plugin_id}') host.add(segments[0]);
  }
  return host;
}

/**
 * Whether a declaration of answers says JSON and only JSON for the success status (`200`, else the
 * first `2xx`): `application/json` or a `+json` type.
 * @param operation - the OpenAPI operation
 * @public
 */
export function declaresJsonOnly(operation: PluginRouteOperation): boolean {
  const responses = operation.responses ?? {};
  const status = responses['200'] ? '200' : Object.keys(responses).find((s) => /^2\d\d$/.test(s));
  const types = Object.keys((status && responses[status]?.content) || {});
  return types.length > 0 && types.every((t) => /^application\/(?:[\w.-]+\+)?json(?:;|$)/i.test(t));
}

/**
 * Rules on one route: a plugin's own API (its plugin id and the rest of its path), or why not.
 * @param path - the route's path template, e.g. `/api/v1/plugin/LogsClean/clean`
 * @param operation - its OpenAPI operation (the declared answers are read)
 * @param context - the host's plugin-management segments and, when known, its installed plugins
 * @returns the ruling; `message` says in words why a route is refused
 *
 * @example
 * ```ts
 * const hostSegments = hostPluginSegments(Object.keys(doc.paths));
 * rulePluginRoute('/api/v1/plugin/file/{plugin_id}/{filepath}', doc.paths[p].get, { hostSegments });
 * // → { own: false, reason: 'host_route', message: '…' }
 * ```
 * @public
 */
export function rulePluginRoute(
  path: string,
  operation: PluginRouteOperation,
  context: PluginRouteContext,
): PluginRouteRuling {
  const segments = segmentsOf(path);
  const pluginId = segments?.[0];
  const rest = segments?.slice(1).join('/') ?? '';
  if (!segments || !pluginId || !/^[A-Za-z0-9_-]+$/.test(pluginId) || !rest.replace(/\//g, ''))
    return {
      own: false,
      reason: 'outside_plugin_api',
      message: `${path} is not a plugin's API route (those are /api/v1/plugin/<PluginID>/<path>)`,
    };
  // The host's own list of installed plugins, when known, wins over the shape of its paths (a plugin that
  // declares an empty path is served at /api/v1/plugin/<PluginID> alone, like a host route).
  if (context.hostSegments.has(pluginId) && !context.installed?.has(pluginId))
    return {
      own: false,
      reason: 'host_route',
      message: `${path} is the host's own plugin management (/api/v1/plugin/${pluginId}…), not a plugin's API`,
    };
  if (context.installed && !context.installed.has(pluginId))
    return {
      own: false,
      reason: 'not_installed',
      message: `${path}: the host lists no installed plugin ${pluginId}`,
    };
  if (!declaresJsonOnly(operation))
    return {
      own: false,
      reason: 'not_json',
      message: `${path} does not declare a JSON answer (it answers files or pages), so it is no capability`,
    };
  return { own: true, pluginId, rest };
}
