// The MoviePilot 2.x REST operations the adapter sends, as a table checked row by row against
// `contracts/openapi-v2.json` by the contract tests (method, path, envelope, security schemes).

/** Security scheme names of the V2 OpenAPI document (`components.securitySchemes`). @public */
export type V2SecurityScheme = 'OAuth2PasswordBearer' | 'api_key_query' | 'api_key_header' | 'api_token_query';

/**
 * One REST operation of a MoviePilot 2.x host as the adapter uses it.
 * @public
 */
export interface V2Operation {
  /** Adapter-local operation id, e.g. `download.add`. */
  readonly id: string;
  /** HTTP method (upper case). */
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path template as in the contract, e.g. `/api/v1/media/{mediaid}`. */
  readonly path: string;
  /** `response`: the 200 body is the `{success, message, data}` envelope (unwrapped to `data`); `bare`: a bare array or model, taken as it is. */
  readonly envelope: 'response' | 'bare';
  /** Security alternatives the contract lists for the operation (any one suffices). */
  readonly security: readonly V2SecurityScheme[];
  /** True when the host requires a superuser (`contracts/notes-v2.md` §3: `/system/env`, `/system/setting/{key}`, `POST /transfer/manual`, `DELETE /history/transfer`). */
  readonly superuser: boolean;
  /** True when the operation changes host state: never retried by the client; a lost answer is an unknown outcome. */
  readonly write: boolean;
  /** Timeout in ms for the whole exchange (search: 300 000). */
  readonly timeoutMs: number;
}

const ALL: readonly V2SecurityScheme[] = ['OAuth2PasswordBearer', 'api_key_query', 'api_key_header', 'api_token_query'];
const READ_MS = 30_000;
const WRITE_MS = 60_000;

function op(
  id: string,
  method: V2Operation['method'],
  path: string,
  envelope: V2Operation['envelope'],
  extra: Partial<Pick<V2Operation, 'superuser' | 'timeoutMs' | 'write' | 'security'>> = {},
): V2Operation {
  const write = extra.write ?? method !== 'GET';
  return Object.freeze({
    id,
    method,
    path,
    envelope,
    security: extra.security ?? ALL,
    superuser: extra.superuser ?? false,
    write,
    timeoutMs: extra.timeoutMs ?? (write ? WRITE_MS : READ_MS),
  });
}

/**
 * Every REST operation the adapter's client can send (the security alternatives are the newer 2.x
 * document's; at run time the client takes them from the host's own document) (besides login, the `tokenUrl` of the
 * `OAuth2PasswordBearer` scheme, and plugin routes, which come from the host's live document).
 * Keyed by adapter operation id.
 * @public
 */
export const V2_OPERATIONS = Object.freeze({
  'user.current': op('user.current', 'GET', '/api/v1/user/current', 'bare'),
  'media.search': op('media.search', 'GET', '/api/v1/media/search', 'bare'),
  'media.detail': op('media.detail', 'GET', '/api/v1/media/{mediaid}', 'bare'),
  'media.recognize': op('media.recognize', 'GET', '/api/v1/media/recognize', 'bare'),
  'search.media': op('search.media', 'GET', '/api/v1/search/media/{mediaid}', 'response', { timeoutMs: 300_000 }),
  'search.last': op('search.last', 'GET', '/api/v1/search/last', 'bare'),
  'download.add': op('download.add', 'POST', '/api/v1/download/', 'response'),
  'download.list': op('download.list', 'GET', '/api/v1/download/', 'bare'),
  'download.start': op('download.start', 'GET', '/api/v1/download/start/{hashString}', 'response', { write: true }),
  'download.delete': op('download.delete', 'DELETE', '/api/v1/download/{hashString}', 'response'),
  'history.download': op('history.download', 'GET', '/api/v1/history/download', 'bare'),
  'history.transfer': op('history.transfer', 'GET', '/api/v1/history/transfer', 'response'),
  'transfer.manual': op('transfer.manual', 'POST', '/api/v1/transfer/manual', 'response', {
    superuser: true,
    timeoutMs: 300_000,
  }),
  'transfer.queue': op('transfer.queue', 'GET', '/api/v1/transfer/queue', 'bare'),
  'library.exists': op('library.exists', 'GET', '/api/v1/mediaserver/exists', 'response'),
  'site.list': op('site.list', 'GET', '/api/v1/site/', 'bare'),
  'subscribe.list': op('subscribe.list', 'GET', '/api/v1/subscribe/', 'bare'),
  'subscribe.create': op('subscribe.create', 'POST', '/api/v1/subscribe/', 'response'),
  'subscribe.media': op('subscribe.media', 'GET', '/api/v1/subscribe/media/{mediaid}', 'bare'),
  'userconfig.get': op('userconfig.get', 'GET', '/api/v1/user/config/{key}', 'response'),
  'userconfig.set': op('userconfig.set', 'POST', '/api/v1/user/config/{key}', 'response'),
  'system.status': op('system.status', 'GET', '/api/v3/system/status', 'bare', {
    security: ['api_key_query', 'api_key_header'],
  }),
  'system.env': op('system.env', 'GET', '/api/v1/system/env', 'response', { superuser: true }),
  'system.setting': op('system.setting', 'GET', '/api/v1/system/setting/{key}', 'response', { superuser: true }),
  'dashboard.downloader': op('dashboard.downloader', 'GET', '/api/v1/dashboard/downloader', 'bare'),
  'storage.usage': op('storage.usage', 'GET', '/api/v1/storage/usage/{name}', 'bare'),
  'history.transfer.delete': op('history.transfer.delete', 'DELETE', '/api/v1/history/transfer', 'response', {
    superuser: true,
  }),
  'system.nettest': op('system.nettest', 'GET', '/api/v1/system/nettest', 'bare', { timeoutMs: 45_000 }),
} satisfies Record<string, V2Operation>);

/** An adapter operation id (a key of {@link V2_OPERATIONS}). @public */
export type V2OperationId = keyof typeof V2_OPERATIONS;

/**
 * The login route: the `tokenUrl` of the contract's `OAuth2PasswordBearer` scheme. Form body
 * (`application/x-www-form-urlencoded`) per `Body_login_access_token_api_v1_login_access_token_post`;
 * answers the bare `Token` model.
 * @public
 */
export const V2_LOGIN_PATH = '/api/v1/login/access-token';

/** Where a MoviePilot 2.x instance serves its OpenAPI document (FastAPI `openapi_url` under `API_V1_STR`). @public */
export const V2_OPENAPI_PATH = '/api/v1/openapi.json';

/**
 * Host routes a MoviePilot 2.x instance serves to superusers only (guarded by
 * `get_current_active_superuser`, answered "用户权限不足" otherwise; `app/api/endpoints/` of
 * https://github.com/jxxghp/MoviePilot), as `METHOD /path-template`.
 * @public
 */
export const V2_SUPERUSER_ROUTES: readonly string[] = Object.freeze([
  'GET /api/v1/system/env',
  'POST /api/v1/system/env',
  'GET /api/v1/system/setting/{key}',
  'POST /api/v1/system/setting/{key}',
  'POST /api/v1/transfer/manual',
  'DELETE /api/v1/history/transfer',
]);

/**
 * What sending one route means for authorization (the V2 counterpart of a V3 operation's effect):
 * who may send it and whether it changes or deletes host state.
 * @public
 */
export interface V2RouteEffect {
  /** `METHOD /path-template`, e.g. `DELETE /api/v1/subscribe/{subscribe_id}`. */
  readonly route: string;
  /**
   * Only a host superuser may send it: a route of {@link V2_SUPERUSER_ROUTES}, or one whose security
   * accepts nothing but the host's API token (`api_key_header`/`api_key_query`: plugin routes with
   * `auth: "apikey"`), which no user account holds.
   */
  readonly superuser: boolean;
  /** It changes host state (any method but GET, a table row marked `write`, or the author's declaration). */
  readonly write: boolean;
  /** It deletes host state (`DELETE`, or the author's declaration): non-human actors need an approval, a grant is not enough. */
  readonly destructive: boolean;
}

/**
 * The effect of a route.
 * @param route - `METHOD /path-template`
 * @param security - the route's security alternatives (from the host's OpenAPI document or the table)
 * @param raise - what the author declared on top (`write`, `destructive`); never lowers the inferred effect
 * @returns the effect
 * @public
 */
export function v2RouteEffect(
  route: string,
  security: readonly V2SecurityScheme[],
  raise: { write?: boolean; destructive?: boolean } = {},
): V2RouteEffect {
  const method = route.slice(0, route.indexOf(' '));
  const path = route.slice(route.indexOf(' ') + 1);
  const row = Object.values(V2_OPERATIONS).find((o) => o.method === method && o.path === path) as
    | V2Operation
    | undefined;
  const destructive = method === 'DELETE' || raise.destructive === true;
  return Object.freeze({
    route,
    superuser:
      V2_SUPERUSER_ROUTES.includes(route) ||
      row?.superuser === true ||
      (security.length > 0 && !security.includes('OAuth2PasswordBearer')),
    write: destructive || method !== 'GET' || row?.write === true || raise.write === true,
    destructive,
  });
}
