import { OutcomeUnknownError, type Logger } from '@media-agent/sdk';
import { Pool } from 'undici';
import {
  HostAuthError,
  HostContractError,
  HostHttpError,
  HostOperationError,
  HostGenerationError,
  HostOptionsError,
  HostProtocolError,
  HostTransportError,
  HostUnreachableError,
  HostUnsupportedError,
} from './errors';
import { V2HostContract } from './host-contract';
import {
  V2_LOGIN_PATH,
  V2_OPENAPI_PATH,
  V2_OPERATIONS,
  type V2Operation,
  type V2OperationId,
  type V2SecurityScheme,
} from './operations';

/**
 * Credentials of a MoviePilot 2.x host: the `API_TOKEN`, a user name and password (a JWT from
 * `/api/v1/login/access-token`), or both. Which one a request carries is decided per route from the
 * host's OpenAPI document: on v2.5.x the standard routes accept only the login and plugin, `?token=`
 * and `/api/v3` routes only the API token, so such a host needs both. With a login, the adapter's
 * authority is the login user's (superuser or not), never assumed from the token. Never logged.
 * @public
 */
export type V2Credentials =
  | { apiKey: string }
  | { username: string; password: string; otpPassword?: string }
  | { apiKey: string; username: string; password: string; otpPassword?: string };

/** How one request is authenticated. */
type AuthMode = 'none' | 'jwt' | 'apikey' | 'apikey-query' | 'token';

/**
 * Timeouts in milliseconds of a MoviePilot 2.x client (the same shape as the 3.x adapter's).
 * @public
 */
export interface V2Timeouts {
  /** Every operation not named below, plugin routes and the login (default: the operation's row of {@link V2_OPERATIONS}, 30 000 for reads). */
  defaultMs?: number;
  /** The resource search `search.media` (default 300 000). */
  searchMs?: number;
  /** Overrides by operation id (also `login`, `plugin`). */
  perOperation?: Partial<Record<V2OperationId | 'login' | 'plugin', number>>;
}

/** Options of {@link V2HostClient}. @public */
export interface V2ClientOptions {
  /** Base URL of the host, e.g. `http://127.0.0.1:3001` (no path). */
  url: string;
  /** Credentials (never logged). One of `auth` or the deprecated `credentials` is required. */
  auth?: V2Credentials;
  /** The former name of `auth`. @deprecated Renamed `auth` (the 3.x adapter's name); kept for one release. */
  credentials?: V2Credentials;
  /**
   * Connections in the undici `Pool`.
   * @defaultValue 8
   */
  connections?: number;
  /**
   * Retries of a read after a transport error or a 502/503/504. Writes are never retried.
   * @defaultValue 2
   */
  readRetries?: number;
  /** Timeouts (ms). */
  timeouts?: V2Timeouts;
  /** The former per-operation timeouts, in milliseconds. @deprecated Use `timeouts.perOperation`; kept for one release. */
  timeoutsMs?: Partial<Record<V2OperationId | 'login' | 'plugin', number>>;
  /** Logger (never receives credentials or tokens). */
  logger?: Logger;
  /**
   * Take each route's authentication and existence from the host's own OpenAPI document, read on the
   * first call (default true). `false`: use the security alternatives of {@link V2_OPERATIONS} (the
   * newer 2.x document) as they are.
   */
  hostContract?: boolean;
}

/** A request of {@link V2HostClient.call}. @public */
export interface V2CallParams {
  /** Values of the path template's `{name}` parameters (the 3.x client's name). */
  pathParams?: Record<string, string | number>;
  /** The former name of `pathParams`. @deprecated Renamed `pathParams`; kept for one release. */
  path?: Record<string, string | number>;
  /** Query parameters; `undefined`/`null` are left out. */
  query?: Record<string, string | number | boolean | undefined | null>;
  /** JSON body. */
  body?: unknown;
  /** Aborts the request (a write aborted after sending is an unknown outcome). */
  signal?: AbortSignal;
  /**
   * Reduces the answer inside the client, the moment it is parsed: the call returns only what `select`
   * returns, and nothing else of the body is kept, retried, logged or put into an error (a `success:false`
   * answer's `data` is dropped). For routes whose answer carries secrets next to the one value wanted
   * (e.g. `GET /api/v1/system/env`: the version next to `API_TOKEN`, `TMDB_API_KEY`, …).
   */
  select?: (data: unknown) => unknown;
}

/** Statistics of a client: requests sent per `METHOD path-template`. @public */
export interface V2ClientStats {
  /** Requests sent, by `METHOD /path/template`. */
  requests: Record<string, number>;
  /** Logins performed. */
  logins: number;
}

const TRANSIENT_STATUS = new Set([502, 503, 504]);
const DEFAULT_PLUGIN_TIMEOUT_MS = 60_000;

/**
 * The HTTP client of one MoviePilot 2.x host on an undici `Pool`.
 *
 * @remarks
 * Auth per operation from its declared security alternatives: `X-API-KEY` when the operation
 * accepts `api_key_header` and an API key is configured; `Authorization: Bearer <jwt>` when it accepts
 * `OAuth2PasswordBearer` and a user name/password is configured (login on first use, one re-login and
 * one resend on a 401 — a 401 means the request was not processed); `?token=` only when
 * `api_token_query` is the operation's only alternative. Envelope: operations declared with the
 * `Response` schema are unwrapped to `data`, `success:false` throws {@link HostOperationError}; bare
 * arrays/models are returned as they are. Reads retry transport errors and 502/503/504; writes are
 * never retried, and a write whose answer is lost after sending (drop, timeout, 5xx) throws the
 * SDK's `OutcomeUnknownError`.
 * @public
 */
export class V2HostClient {
  readonly #pool: Pool;
  readonly #origin: string;
  readonly #credentials: V2Credentials;
  readonly #options: V2ClientOptions;
  #jwt: { token: string; superuser: boolean; username: string } | undefined;
  #login: Promise<void> | undefined;
  #loginRefused: HostAuthError | undefined;
  #contract: V2HostContract | undefined;
  #contractLoad: Promise<V2HostContract> | undefined;
  /** Auth modes the host has accepted at least once (a 2xx): a later 401/403 there is not a wrong credential. */
  readonly #accepted = new Set<AuthMode>();
  readonly #stats: V2ClientStats = { requests: {}, logins: 0 };

  /**
   * @param options - URL, credentials, pool size, retries, timeouts
   * @throws {@link HostOptionsError} (`HOST_OPTIONS_INVALID`) for a bad URL or missing credentials
   */
  constructor(options: V2ClientOptions) {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new HostOptionsError(`invalid host URL ${JSON.stringify(options.url)}`);
    }
    const c = (options.auth ?? options.credentials) as
      | Partial<{ apiKey: string; username: string; password: string }>
      | undefined;
    if (!c || (!c.apiKey && !(c.username && c.password)))
      throw new HostOptionsError('auth needs an apiKey, a username and a password, or both');
    if ((c.username !== undefined || c.password !== undefined) && !(c.username && c.password))
      throw new HostOptionsError('auth: a username and a password go together');
    this.#origin = url.origin;
    this.#credentials = c as V2Credentials;
    this.#options = options;
    this.#pool = new Pool(this.#origin, { connections: options.connections ?? 8 });
  }

  /** Base URL (origin) of the host. */
  get origin(): string {
    return this.#origin;
  }

  /** Requests sent so far, by `METHOD /path/template`, and logins. */
  get stats(): V2ClientStats {
    return { requests: { ...this.#stats.requests }, logins: this.#stats.logins };
  }

  /**
   * Whether the adapter's authority is a host superuser: with a login, the login's `super_user`
   * (`undefined` before the first login), whether or not an API token is configured too; with the API
   * token alone, true (it is the host's `API_TOKEN`, though on v2.5.x it opens only the routes that
   * accept it — see {@link V2HostClient.accepts}).
   */
  get credentialIsSuperuser(): boolean | undefined {
    if (this.hasLogin) return this.#jwt?.superuser;
    return true;
  }

  /** A user name and password are configured. */
  get hasLogin(): boolean {
    const c = this.#credentials as { username?: string; password?: string };
    return !!(c.username && c.password);
  }

  /** An API token is configured. */
  get hasApiKey(): boolean {
    return !!(this.#credentials as { apiKey?: string }).apiKey;
  }

  /** The host's contract, once read ({@link V2HostClient.loadContract}). */
  get contract(): V2HostContract | undefined {
    return this.#contract;
  }

  /**
   * Reads the host's OpenAPI document (`GET /api/v1/openapi.json`, sent without credentials as FastAPI
   * serves it) once; later calls return the same contract.
   * @returns the contract
   * @throws {@link HostUnreachableError} (`HOST_UNREACHABLE`) when the host cannot be reached;
   *   {@link HostContractError} (`HOST_CONTRACT_INVALID`) when the document cannot be fetched (HTTP error)
   *   or parsed — the adapter does not guess
   */
  async loadContract(): Promise<V2HostContract> {
    if (this.#contract) return this.#contract;
    this.#contractLoad ??= this.#fetchContract().finally(() => (this.#contractLoad = undefined));
    return this.#contractLoad;
  }

  /**
   * Uses a contract given by the caller instead of reading the host's.
   * @param contract - the contract (or a document to build it from)
   */
  useContract(contract: V2HostContract | ConstructorParameters<typeof V2HostContract>[0]): void {
    this.#contract = contract instanceof V2HostContract ? contract : new V2HostContract(contract);
  }

  async #fetchContract(): Promise<V2HostContract> {
    let document: unknown;
    try {
      document = await this.send({
        id: 'openapi',
        method: 'GET',
        path: V2_OPENAPI_PATH,
        envelope: 'bare',
        security: [],
        write: false,
      });
    } catch (error) {
      if (error instanceof HostHttpError && error.details?.envelope === true)
        throw generationMismatch(
          this.#origin,
          `HTTP ${error.status} in the 3.x {success, message, data} envelope`,
          `it answered ${V2_OPENAPI_PATH} with HTTP ${error.status} in the {success, message, data} envelope of MoviePilot 3.x, where a 2.x host serves its OpenAPI document`,
        );
      if (error instanceof HostHttpError)
        throw new HostContractError(
          `the host's OpenAPI document (${V2_OPENAPI_PATH}) cannot be fetched: HTTP ${error.status}; the adapter takes each route's authentication from it and does not guess`,
          { status: error.status },
          { cause: error },
        );
      if (error instanceof HostProtocolError)
        throw new HostContractError(
          `the host's OpenAPI document (${V2_OPENAPI_PATH}) is not JSON; the adapter takes each route's authentication from it and does not guess`,
          {},
          { cause: error },
        );
      if (error instanceof HostTransportError && !(error instanceof HostUnreachableError))
        throw new HostContractError(
          `the host's OpenAPI document (${V2_OPENAPI_PATH}) cannot be fetched: ${error.message}`,
          {},
          { cause: error },
        );
      throw error;
    }
    if (isEnvelope(document))
      throw generationMismatch(
        this.#origin,
        'the 3.x {success, message, data} envelope',
        `it answered ${V2_OPENAPI_PATH} with the {success, message, data} envelope of MoviePilot 3.x, not an OpenAPI document`,
      );
    const declared = (document as { info?: { version?: unknown } } | null)?.info?.version;
    const major = typeof declared === 'string' ? /^v?(\d+)\./.exec(declared)?.[1] : undefined;
    if (major !== undefined && Number(major) >= 3)
      throw generationMismatch(
        this.#origin,
        declared as string,
        `its OpenAPI document declares version ${declared as string}`,
      );
    const paths = (document as { paths?: unknown } | null)?.paths;
    const markers =
      paths && typeof paths === 'object' ? V3_ONLY_ROUTES.filter((p) => (paths as Record<string, unknown>)[p]) : [];
    if (markers.length === V3_ONLY_ROUTES.length)
      throw generationMismatch(
        this.#origin,
        `an OpenAPI document with the 3.x routes ${markers.join(', ')}`,
        `its OpenAPI document lists routes only MoviePilot 3.x serves (${markers.join(', ')})`,
      );
    return (this.#contract = new V2HostContract(document as never));
  }

  /**
   * Logs in now (when a user name and password are configured), so the login user's authority is known.
   * A refused login is remembered: later requests fail with the same error without sending it again.
   * @throws {@link HostAuthError} (`HOST_AUTH_FAILED`) when the host refuses the login
   */
  async login(): Promise<void> {
    if (this.hasLogin && !this.#jwt) await this.#ensureLogin();
  }

  /**
   * The security alternatives of an operation: the host document's when it was read, else the table's.
   * @param operation - method, path, table security
   * @returns the schemes, or `undefined` when the host's document does not list the route
   */
  securityOf(operation: Pick<V2Operation, 'method' | 'path' | 'security'>): readonly V2SecurityScheme[] | undefined {
    if (!this.#contract) return operation.security;
    return this.#contract.security(operation.method, operation.path);
  }

  /**
   * The timeout of one operation in ms: `timeouts.perOperation`, then `searchMs` (`search.media`) or
   * `defaultMs`, then `fallbackMs`.
   * @param id - operation id, `login` or `plugin`
   * @param fallbackMs - the operation's own default
   */
  timeoutOf(id: V2OperationId | 'login' | 'plugin', fallbackMs: number): number {
    const t = this.#options.timeouts ?? {};
    return (
      t.perOperation?.[id] ??
      this.#options.timeoutsMs?.[id] ??
      (id === 'search.media' ? t.searchMs : t.defaultMs) ??
      fallbackMs
    );
  }

  /**
   * Sends one operation of {@link V2_OPERATIONS}.
   * @param id - operation id
   * @param params - path values, query, body, signal
   * @returns the envelope's `data` (enveloped operations) or the parsed body (bare ones)
   * @throws {@link HostOperationError} `success:false`; {@link HostHttpError} HTTP error; {@link HostAuthError};
   *   {@link HostUnsupportedError} (`HOST_OPERATION_UNSUPPORTED`) for an operation the host's version does not serve;
   *   {@link HostUnreachableError} (`HOST_UNREACHABLE`) when nothing could be sent;
   *   {@link HostTransportError} for a read that never got an answer; `OutcomeUnknownError` (`OUTCOME_UNKNOWN`)
   *   for a write whose answer was lost after it was sent
   */
  async call<T = unknown>(id: V2OperationId, params: V2CallParams = {}): Promise<T> {
    const operation = V2_OPERATIONS[id] as V2Operation;
    const timeoutMs = this.timeoutOf(id, operation.timeoutMs);
    if (this.#options.hostContract !== false) await this.loadContract();
    return (await this.send(operation, params, timeoutMs)) as T;
  }

  /**
   * Sends any operation described like a table row (used for plugin routes read from the host's
   * live OpenAPI document).
   * @param operation - method, path template, envelope, security, write flag
   * @param params - path values, query, body, signal
   * @param timeoutMs - timeout (default: the operation's, else 60 s)
   * @throws as {@link V2HostClient.call}
   */
  async send(
    operation: Pick<V2Operation, 'id' | 'method' | 'path' | 'envelope' | 'security' | 'write'> & { timeoutMs?: number },
    params: V2CallParams = {},
    timeoutMs?: number,
  ): Promise<unknown> {
    const limit = timeoutMs ?? operation.timeoutMs ?? this.timeoutOf('plugin', DEFAULT_PLUGIN_TIMEOUT_MS);
    let security: readonly V2SecurityScheme[] | undefined = operation.security;
    if (this.#contract && operation.security.length > 0) {
      security = this.#contract.security(operation.method, operation.path);
      if (security === undefined)
        throw new HostUnsupportedError(
          operation.id,
          `MoviePilot at ${this.#origin} does not serve ${operation.method} ${operation.path} (${operation.id}): its OpenAPI document does not list it on this version; nothing was sent`,
        );
      if (this.#contract.uncallable(operation.method, operation.path))
        throw new HostUnsupportedError(
          operation.id,
          `${operation.method} ${operation.path} accepts only a browser cookie on this host; nothing was sent`,
        );
    }
    const auth = this.#authMode({ id: operation.id, method: operation.method, path: operation.path, security });
    const retries = operation.write ? 0 : (this.#options.readRetries ?? 2);
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      if (auth === 'jwt' && !this.#jwt) await this.#ensureLogin();
      const { path, headers } = this.#request(operation, params, auth);
      let response: { status: number; text: string };
      try {
        response = await this.#exchange(operation, path, headers, params.body, limit, params.signal);
      } catch (error) {
        if (error instanceof NotSent) {
          if (!operation.write && attempt < retries) continue;
          throw new HostUnreachableError(
            operation.id,
            `cannot connect to ${this.#origin}: ${error.message}; nothing was sent`,
            { cause: error.cause },
          );
        }
        const message = error instanceof Error ? error.message : String(error);
        if (operation.write)
          throw new OutcomeUnknownError(
            `${operation.method} ${operation.path} was sent but its answer was lost (${message}); the host may have applied it`,
            { cause: error },
          );
        if (attempt < retries && !params.signal?.aborted) continue;
        throw new HostTransportError(operation.id, message, { cause: error });
      }
      if (response.status === 401 && auth === 'jwt' && !refreshed) {
        refreshed = true;
        this.#jwt = undefined;
        attempt--;
        continue;
      }
      if (response.status === 401 || response.status === 403) {
        const detail = detailOf(response.text);
        const which = auth === 'jwt' ? 'the login token' : 'the API token';
        // A credential this host has already accepted is not wrong: the route refuses it for another reason.
        const accepted = this.#accepted.has(auth);
        const hint = accepted
          ? `the host accepted ${which} on other routes, so this route refuses it for another reason (permissions of the user or token on this route)`
          : `check ${auth === 'jwt' ? 'the user name and password' : 'the API token (auth.apiKey; CLI --api-key)'}`;
        throw new HostAuthError(
          `MoviePilot refused ${which} for ${operation.id} (HTTP ${response.status}${typeof detail === 'string' ? `: ${detail}` : ''}); ${hint}`,
          { operation: operation.id, status: response.status, ...(accepted ? { credentialAccepted: true } : {}) },
        );
      }
      if (response.status >= 500) {
        if (operation.write)
          throw new OutcomeUnknownError(
            `${operation.method} ${operation.path} answered HTTP ${response.status}; the host may have applied it`,
          );
        if (TRANSIENT_STATUS.has(response.status) && attempt < retries) continue;
        throw new HostHttpError(operation.id, response.status, detailOf(response.text));
      }
      if (response.status >= 400)
        throw new HostHttpError(
          operation.id,
          response.status,
          detailOf(response.text),
          isEnvelope(parseOrUndefined(response.text)) ? { envelope: true } : {},
        );
      if (auth !== 'none') this.#accepted.add(auth);
      let body: unknown;
      try {
        body = response.text === '' ? null : JSON.parse(response.text);
      } catch (error) {
        if (operation.write)
          throw new OutcomeUnknownError(
            `${operation.method} ${operation.path} answered a body that is not JSON; the host may have applied it`,
            { cause: error },
          );
        throw new HostProtocolError(
          operation.id,
          `MoviePilot answered ${operation.method} ${operation.path} (${operation.id}) with a body that is not JSON, where its contract declares JSON; nothing was taken from it`,
          { status: response.status },
        );
      }
      const select = params.select;
      if (operation.envelope === 'bare') return select ? select(body) : body;
      const envelope = body as { success?: unknown; message?: unknown; data?: unknown } | null;
      if (!envelope || typeof envelope !== 'object' || typeof envelope.success !== 'boolean') {
        if (operation.write)
          throw new OutcomeUnknownError(
            `${operation.method} ${operation.path} answered without the {success, message, data} envelope`,
          );
        throw new HostProtocolError(
          operation.id,
          `MoviePilot answered ${operation.method} ${operation.path} (${operation.id}) without the {success, message, data} envelope its contract declares; nothing was taken from it`,
          { status: response.status },
        );
      }
      if (!envelope.success)
        throw new HostOperationError(
          operation.id,
          typeof envelope.message === 'string' ? envelope.message : '',
          select ? {} : { data: envelope.data ?? undefined },
        );
      return select ? select(envelope.data ?? null) : (envelope.data ?? null);
    }
  }

  /**
   * Whether an operation with these security alternatives accepts the configured credentials.
   * @param security - the operation's security scheme names
   */
  accepts(security: readonly V2SecurityScheme[]): boolean {
    try {
      this.#authMode({ id: 'check', method: '', path: '', security });
      return true;
    } catch {
      return false;
    }
  }

  /** Closes the pool. */
  async close(): Promise<void> {
    await this.#pool.close();
  }

  #authMode(operation: { id: string; method: string; path: string; security: readonly V2SecurityScheme[] }): AuthMode {
    const s = operation.security;
    if (s.length === 0) return 'none';
    if (s.includes('OAuth2PasswordBearer') && this.hasLogin) return 'jwt';
    if (this.hasApiKey) {
      if (s.includes('api_key_header')) return 'apikey';
      if (s.includes('api_key_query')) return 'apikey-query';
      if (s.includes('api_token_query')) return 'token';
    }
    const route = operation.method ? `${operation.method} ${operation.path}` : operation.id;
    const login = s.includes('OAuth2PasswordBearer');
    const key = s.some((x) => x !== 'OAuth2PasswordBearer');
    const fix =
      login && key
        ? 'configure a login (username and password) or the API token'
        : login
          ? 'configure a login (auth.username and auth.password, CLI --user/--password): the API token does not open this route'
          : "configure the host's API token (auth.apiKey, CLI --api-key): a login does not open this route";
    throw new HostAuthError(
      `${route} (${operation.id}) accepts only ${login && key ? 'a login or the API token' : login ? 'a login (OAuth2PasswordBearer)' : `the API token (${s.join(', ')})`} on this host; ${fix}. Nothing was sent.`,
      {
        operation: operation.id,
        missing: login && !key ? 'login' : key && !login ? 'apiKey' : 'login or apiKey',
        beforeRequest: true,
      },
    );
  }

  #request(
    operation: Pick<V2Operation, 'path'>,
    params: V2CallParams,
    auth: AuthMode,
  ): { path: string; headers: Record<string, string> } {
    const path = operation.path
      .split(/(\{\w+\})/)
      .map((part) => {
        const name = /^\{(\w+)\}$/.exec(part)?.[1];
        if (name === undefined) return encodeURI(part);
        const v = (params.pathParams ?? params.path)?.[name];
        if (v === undefined) throw new HostOptionsError(`path parameter ${name} is missing for ${operation.path}`);
        return encodeURIComponent(String(v));
      })
      .join('');
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(params.query ?? {}))
      if (v !== undefined && v !== null) query.append(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (auth === 'apikey') headers['x-api-key'] = (this.#credentials as { apiKey: string }).apiKey;
    else if (auth === 'apikey-query') query.append('apikey', (this.#credentials as { apiKey: string }).apiKey);
    else if (auth === 'token') query.append('token', (this.#credentials as { apiKey: string }).apiKey);
    else if (auth === 'jwt') headers.authorization = `Bearer ${this.#jwt!.token}`;
    if (params.body !== undefined) headers['content-type'] = 'application/json';
    const qs = query.toString();
    return { path: path + (qs ? `?${qs}` : ''), headers };
  }

  async #exchange(
    operation: { id: string; method: string; path: string },
    path: string,
    headers: Record<string, string>,
    body: unknown,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ) {
    const key = `${operation.method} ${operation.path}`;
    this.#stats.requests[key] = (this.#stats.requests[key] ?? 0) + 1;
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let sent = false;
    try {
      const res = await this.#pool.request({
        method: operation.method as 'GET',
        path,
        headers,
        body: body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body),
        signal: combined,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      sent = true;
      const text = await res.body.text();
      return { status: res.statusCode, text };
    } catch (error) {
      // A refused or failed connection sent nothing: safe to report as not applied.
      const code =
        (error as { code?: string; cause?: { code?: string } }).code ??
        (error as { cause?: { code?: string } }).cause?.code;
      if (
        !sent &&
        (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'UND_ERR_CONNECT_TIMEOUT')
      )
        throw new NotSent(`could not connect (${code})`, error);
      throw error;
    }
  }

  async #ensureLogin(): Promise<void> {
    if (this.#loginRefused) throw this.#loginRefused;
    this.#login ??= this.#doLogin().finally(() => (this.#login = undefined));
    return this.#login;
  }

  async #doLogin(): Promise<void> {
    const c = this.#credentials as { username: string; password: string; otpPassword?: string };
    const form = new URLSearchParams({ grant_type: 'password', username: c.username, password: c.password });
    if (c.otpPassword) form.append('otp_password', c.otpPassword);
    this.#stats.logins++;
    const key = `POST ${V2_LOGIN_PATH}`;
    this.#stats.requests[key] = (this.#stats.requests[key] ?? 0) + 1;
    const timeoutMs = this.timeoutOf('login', 30_000);
    let res;
    try {
      res = await this.#pool.request({
        method: 'POST',
        path: V2_LOGIN_PATH,
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (error) {
      const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
      if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'UND_ERR_CONNECT_TIMEOUT')
        throw new HostUnreachableError('login', `cannot connect to ${this.#origin} (${code})`, { cause: error });
      throw new HostTransportError('login', error instanceof Error ? error.message : String(error), { cause: error });
    }
    const text = await res.body.text();
    if (res.statusCode === 401 || res.statusCode === 403 || (res.statusCode >= 400 && res.statusCode < 500)) {
      // Remembered: a refused login is not sent again by this client (no retry storm, no lockout).
      this.#loginRefused = new HostAuthError(
        `MoviePilot refused the login of user ${JSON.stringify(c.username)} (HTTP ${res.statusCode}${typeof detailOf(text) === 'string' ? `: ${detailOf(text) as string}` : ''}); check the user name and password`,
        { status: res.statusCode, operation: 'login' },
      );
      throw this.#loginRefused;
    }
    if (res.statusCode !== 200)
      throw new HostAuthError(
        `MoviePilot could not log user ${JSON.stringify(c.username)} in (HTTP ${res.statusCode})`,
        { status: res.statusCode, operation: 'login' },
      );
    const token = JSON.parse(text) as { access_token?: string; super_user?: boolean; user_name?: string };
    if (typeof token.access_token !== 'string') throw new HostAuthError('the login answer has no access_token');
    this.#jwt = {
      token: token.access_token,
      superuser: token.super_user === true,
      username: token.user_name ?? c.username,
    };
    this.#options.logger?.debug('logged in to MoviePilot', {
      user: this.#jwt.username,
      superuser: this.#jwt.superuser,
    });
  }
}

class NotSent extends Error {
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

/**
 * Routes of the MoviePilot 3.x operation catalog that no 2.x document lists (its settings and update
 * services): a host document listing all of them is a 3.x host's.
 */
const V3_ONLY_ROUTES: readonly string[] = ['/api/v1/system/settings', '/api/v1/system/update/status'];

/** Whether a parsed body has the shape of the `{success, message, data}` envelope (every 3.x answer). */
function isEnvelope(body: unknown): boolean {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const keys = Object.keys(body);
  return (
    typeof (body as { success?: unknown }).success === 'boolean' &&
    keys.includes('message') &&
    keys.includes('data') &&
    keys.length === 3
  );
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function generationMismatch(origin: string, found: string, what: string): HostGenerationError {
  return new HostGenerationError(
    'v2',
    found,
    `MoviePilot at ${origin} is a 3.x host, not 2.x: ${what}. This adapter speaks MoviePilot 2.x; use @media-agent/host-adapter-v3 (CLI --host v3) for this host`,
  );
}

function detailOf(text: string): unknown {
  try {
    const body = JSON.parse(text) as { detail?: unknown; message?: unknown };
    return body.detail ?? body.message ?? undefined;
  } catch {
    return text ? text.slice(0, 200) : undefined;
  }
}
