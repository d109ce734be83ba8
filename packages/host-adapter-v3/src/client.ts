import { OutcomeUnknownError, type Logger } from '@media-agent/sdk';
import { Pool } from 'undici';
import { fillV3Path, v3Operation } from './contract/catalog';
import { checkV3Answer, describeBody, type V3Envelope } from './contract/responses';
import type { V3Operation } from './contract/types';
import {
  HostAuthError,
  HostOperationError,
  HostOptionsError,
  HostPermissionError,
  HostProtocolError,
  HostValidationError,
  type HostValidationIssue,
} from '@media-agent/host-adapter-kit';
import { v3AuthFailed, v3TransportFailed } from './errors';

/** How the adapter authenticates to MoviePilot 3.x (`contracts/v3-notes.md` §5). @public */
export type V3Auth =
  /** The host's `API_TOKEN`, sent as `X-API-KEY`; the host maps it to its configured superuser. */
  | { apiKey: string }
  /** A host user; the client logs in at `/api/v1/login/access-token` and sends `Authorization: Bearer <JWT>`. */
  | { username: string; password: string };

/** Per-operation timeouts in milliseconds. @public */
export interface V3Timeouts {
  /**
   * Every operation not named below; the default is the host gateway's own timeout (`contracts/v3-notes.md` §3).
   * @defaultValue 30 000
   */
  defaultMs?: number;
  /**
   * Resource searches `search.torrents`, `search.title`, `search.recommend`, `subtitle.search.*`.
   * @defaultValue 300 000 (`contracts/v3-notes.md` §3)
   */
  searchMs?: number;
  /** Overrides by operation id. */
  perOperation?: Record<string, number>;
}

/** Options of {@link V3Client}. @public */
export interface V3ClientOptions {
  /** Host root URL, e.g. `http://127.0.0.1:3001` (the `/api/v1` prefix is part of each operation's path). */
  url: string;
  /** Credentials (never logged). */
  auth: V3Auth;
  /** Timeouts (ms). */
  timeouts?: V3Timeouts;
  /**
   * Extra attempts for reads after a transport error or an HTTP 5xx. Writes are never retried.
   * @defaultValue 2
   */
  readRetries?: number;
  /**
   * Connections in the undici pool.
   * @defaultValue 8
   */
  connections?: number;
  /** Logger (receives operation ids and statuses, never credentials). */
  logger?: Logger;
}

/** Query values the client can encode (arrays repeat the key). @public */
export type V3QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string | number>;

/** One call of a catalog operation (the shape of the host gateway's `moviepilot_api` tool). @public */
export interface V3CallInput {
  /** Route parameters, e.g. `{ media_id: '693134' }` (the 2.x client's name too). */
  pathParams?: Record<string, string | number>;
  /** Query parameters (`undefined`/`null` values are left out). */
  query?: Record<string, V3QueryValue>;
  /** JSON body (writes). */
  body?: unknown;
  /** Aborts the call; an aborted write is an unknown outcome. */
  signal?: AbortSignal;
}

/** Paging headers as the host gateway reports them (`contracts/v3-notes.md` §3). @public */
export interface V3Collection {
  /** `X-Result-Count`: items in this answer. */
  result_count?: number;
  /** `X-Total-Count`: exact total, only when the host knows it. */
  total_count?: number;
  /** `X-Page`. */
  page?: number;
  /** `X-Page-Size`. */
  count?: number;
}

/** An unwrapped V3 answer. @public */
export interface V3Response<T = unknown> {
  /** HTTP status (kept, `contracts/v3-notes.md` §4). */
  status: number;
  /** Envelope `success` (business failures are HTTP 200 + `success:false`). */
  success: boolean;
  /** Envelope `message` (localised). */
  message: string;
  /** Envelope `data`. */
  data: T;
  /** Paging headers, when the answer had any. */
  collection: V3Collection | undefined;
}

/** Who the client is on the host. @public */
export interface V3Identity {
  /** True when the host treats the client as a superuser (API key, or the JWT's `super_user`). */
  superuser: boolean;
  /** Host user name, when logged in with a password. */
  username: string | undefined;
}

const SEARCH_OPERATIONS = new Set([
  'search.torrents',
  'search.title',
  'search.recommend',
  'subtitle.search.title',
  'subtitle.search.media',
]);
/** undici/Node error codes raised before any byte of the request left: the host cannot have acted. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
const READ_RETRY_STATUS = new Set([502, 503, 504]);

/** True for catalog effects that never change the host. @internal */
export function isReadEffect(op: V3Operation): boolean {
  return op.effect === 'safe_read' || op.effect === 'sensitive_read';
}

/**
 * HTTP client of one MoviePilot 3.x host on an undici `Pool`: calls catalog
 * operations by id, authenticates (API key, or JWT refreshed once on 401), always unwraps the
 * `{success, message, data}` envelope, keeps the HTTP status, maps 422 to `HostValidationError`
 * and the non-superuser 400 "用户权限不足" to `HostPermissionError`, and returns paging
 * headers as a {@link V3Collection}. Reads may be retried on transport errors; writes never are: a
 * write whose connection fails after it was sent throws `OutcomeUnknownError` for the ledger to settle.
 * @public
 */
export class V3Client {
  readonly #pool: Pool;
  readonly #options: V3ClientOptions;
  #jwt: { token: string; superuser: boolean; username: string } | undefined;
  #login: Promise<void> | undefined;

  /**
   * @param options - URL, credentials, timeouts, retries, pool size, logger
   * @throws `HostOptionsError` (`HOST_OPTIONS_INVALID`) for a bad URL or missing credentials
   */
  constructor(options: V3ClientOptions) {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new HostOptionsError(`invalid host URL ${JSON.stringify(options.url)}`);
    }
    const auth = options.auth as Partial<{ apiKey: string; username: string; password: string }> | undefined;
    if (!auth || (!auth.apiKey && !(auth.username && auth.password)))
      throw new HostOptionsError('auth needs an apiKey, or a username and a password');
    this.#options = options;
    this.#pool = new Pool(url.origin, { connections: options.connections ?? 8 });
  }

  /** Whether the client logs in with a user name and password (else it sends the API token). */
  get usesLogin(): boolean {
    return 'username' in this.#options.auth;
  }

  /** The host root URL. */
  get url(): string {
    return new URL(this.#options.url).origin;
  }

  /**
   * Who the client is on the host (logs in first when using a password).
   * @throws `HostAuthError` when the login fails; {@link HostProtocolError} when the login route answers
   *   no JSON object (e.g. an HTML page: not the MoviePilot backend), or a 2xx answer with no `access_token` that does not refuse (`success:false`)
   */
  async identity(signal?: AbortSignal): Promise<V3Identity> {
    if ('apiKey' in this.#options.auth) return { superuser: true, username: undefined };
    if (!this.#jwt) await this.#ensureLogin(signal, true);
    return { superuser: this.#jwt!.superuser, username: this.#jwt!.username };
  }

  /**
   * The timeout of one operation in ms.
   * @param operationId - operation id
   */
  timeoutOf(operationId: string): number {
    const t = this.#options.timeouts ?? {};
    return (
      t.perOperation?.[operationId] ??
      (SEARCH_OPERATIONS.has(operationId) ? (t.searchMs ?? 300_000) : (t.defaultMs ?? 30_000))
    );
  }

  /**
   * Calls a catalog operation and returns the unwrapped answer, whether `success` is true or not. Every
   * answer is checked against the 3.x envelope `{success, message, data}` (nothing else, `message` a
   * string) and, on success, against the operation's declared shape (`V3_RESPONSE_SHAPES`); anything else
   * is a {@link HostProtocolError}, never a success. A 204 without a body is a success without data.
   * @param operationId - e.g. `download.add`
   * @param input - path parameters, query, body, signal
   * @returns status, success, message, data and paging
   * @throws `HOST_UNKNOWN_OPERATION`; `HOST_REQUEST_INVALID` (missing path parameter);
   *   `HostValidationError` (422); `HostPermissionError` (400 用户权限不足);
   *   `HostAuthError` (401/403 after one refresh); `HostOperationError` (other HTTP ≥ 400);
   *   {@link HostProtocolError} (`HOST_PROTOCOL_ERROR`: an answer that is not the 3.x envelope — a bare list or object
   *   (any status), an all-null model, HTML, a file, an empty body (below HTTP 500: a 5xx page that is not JSON is a
   *   failed call) — or whose `data` is not the operation's declared shape);
   *   `HostTransportError` (`HOST_UNREACHABLE`: not sent; `HOST_TRANSPORT_FAILED`: a read that failed on every attempt);
   *   `OutcomeUnknownError` (a write sent without a readable answer)
   */
  async call<T = unknown>(operationId: string, input: V3CallInput = {}): Promise<V3Response<T>> {
    const op = v3Operation(operationId);
    const path = fillV3Path(op.path, input.pathParams) + encodeQuery(input.query);
    const read = isReadEffect(op);
    const attempts = read ? 1 + (this.#options.readRetries ?? 2) : 1;
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      let answer: { status: number; headers: Record<string, string | string[] | undefined>; text: string };
      try {
        answer = await this.#send(op, path, input, operationId);
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        if (error instanceof HostAuthError) throw error;
        if (!read && !NOT_SENT.has(code)) {
          throw new OutcomeUnknownError(
            `MoviePilot ${operationId}: the request was sent but no answer was read (${code || (error as Error).message}); verify before retrying`,
            { cause: error },
          );
        }
        if (attempt < attempts && !input.signal?.aborted) continue;
        if (NOT_SENT.has(code))
          throw v3TransportFailed(operationId, `cannot connect to ${this.url} (${code}); nothing was sent`, {
            cause: error,
          });
        throw v3TransportFailed(
          operationId,
          `${code || 'transport error'}: ${(error as Error).message}`,
          { cause: error },
          true,
        );
      }
      if ((answer.status === 401 || answer.status === 403) && 'username' in this.#options.auth && !refreshed) {
        refreshed = true;
        this.#jwt = undefined;
        this.#options.logger?.info('MoviePilot token rejected; logging in again', {
          operationId,
          status: answer.status,
        });
        await this.#ensureLogin(input.signal, true);
        attempt--;
        continue;
      }
      const contentType = headerOf(answer.headers, 'content-type');
      let envelope: V3Envelope;
      try {
        envelope = checkV3Answer(operationId, answer.status, contentType, answer.text);
      } catch (error) {
        // A 5xx page that is not JSON (a proxy's or gateway's error page, the server's plain "Internal Server
        // Error") is a failed call, retried for reads. JSON outside the envelope is a protocol answer at any status.
        if (!(error instanceof HostProtocolError) || answer.status < 500 || isJson(answer.text)) throw error;
        envelope = {
          success: false,
          message: `HTTP ${answer.status} with ${describeBody(answer.text, contentType).words}`,
          data: null,
        };
      }
      if (answer.status === 401 || answer.status === 403)
        throw v3AuthFailed(operationId, answer.status, envelope.message);
      if (read && answer.status >= 500 && attempt < attempts) continue;
      if (READ_RETRY_STATUS.has(answer.status)) {
        if (!read)
          throw new OutcomeUnknownError(
            `MoviePilot ${operationId}: HTTP ${answer.status} from a gateway; the write may have reached the host; verify before retrying`,
          );
      }
      if (answer.status === 422)
        throw new HostValidationError(
          operationId,
          envelope.message,
          Array.isArray(envelope.data) ? (envelope.data as HostValidationIssue[]) : [],
        );
      if (answer.status === 400 && envelope.message.includes('用户权限不足'))
        throw new HostPermissionError(operationId, envelope.message);
      if (answer.status >= 400)
        throw new HostOperationError(operationId, envelope.message, { status: answer.status, data: envelope.data });
      this.#options.logger?.debug('MoviePilot call', { operationId, status: answer.status, success: envelope.success });
      return {
        status: answer.status,
        success: envelope.success,
        message: envelope.message,
        data: envelope.data as T,
        collection: collectionOf(answer.headers),
      };
    }
  }

  /**
   * Like {@link V3Client.call} but a `success:false` answer throws.
   * @throws `HostOperationError` (`HOST_OPERATION_FAILED`) carrying the host's message and data, and everything `call` throws
   */
  async ok<T = unknown>(operationId: string, input: V3CallInput = {}): Promise<V3Response<T>> {
    const r = await this.call<T>(operationId, input);
    if (!r.success) throw new HostOperationError(operationId, r.message, { status: r.status, data: r.data });
    return r;
  }

  /**
   * Asks the host for the version a MoviePilot 2.x host reports without secrets: its Servarr-style
   * status route `GET /api/v3/system/status` (`version`), open to the API token only. Used after an
   * answer outside the 3.x protocol, to name the host. The body is reduced to the version at once and
   * never logged or kept.
   * @param signal - aborts the probe
   * @returns the version (e.g. `v2.5.6`), or `null` when the route is closed, absent or says nothing
   * @internal
   */
  async probeLegacyVersion(signal?: AbortSignal): Promise<string | null> {
    if (!('apiKey' in this.#options.auth)) return null;
    try {
      const res = await this.#pool.request({
        method: 'GET',
        path: '/api/v3/system/status',
        headers: { accept: 'application/json', 'x-api-key': this.#options.auth.apiKey },
        headersTimeout: this.timeoutOf('system.status'),
        bodyTimeout: this.timeoutOf('system.status'),
        ...(signal ? { signal } : {}),
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) return null;
      const json = JSON.parse(text) as { version?: unknown; appName?: unknown; data?: { version?: unknown } } | null;
      const version = json?.version ?? json?.data?.version;
      return typeof version === 'string' && /^v?\d+(\.\d+)*/.test(version) ? version : null;
    } catch {
      return null;
    }
  }

  /** Closes the pool. */
  async close(): Promise<void> {
    await this.#pool.close();
  }

  async #headers(signal: AbortSignal | undefined): Promise<Record<string, string>> {
    const h: Record<string, string> = { accept: 'application/json', 'x-moviepilot-locale': 'en-US' };
    if ('apiKey' in this.#options.auth) h['x-api-key'] = this.#options.auth.apiKey;
    else {
      if (!this.#jwt) await this.#ensureLogin(signal, false);
      h.authorization = `Bearer ${this.#jwt!.token}`;
    }
    return h;
  }

  async #send(op: V3Operation, path: string, input: V3CallInput, operationId: string) {
    const headers = await this.#headers(input.signal);
    let body: string | undefined;
    if (input.body !== undefined && op.method !== 'GET') {
      body = JSON.stringify(input.body);
      headers['content-type'] = 'application/json';
    }
    const timeout = this.timeoutOf(operationId);
    const res = await this.#pool.request({
      method: op.method,
      path,
      headers,
      body,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers as Record<string, string | string[] | undefined>, text };
  }

  /** Logs in once (concurrent callers share the login); `force` replaces a token the host rejected. */
  async #ensureLogin(signal: AbortSignal | undefined, force: boolean): Promise<void> {
    if (this.#jwt && !force) return;
    if (!this.#login) {
      this.#login = this.#doLogin(signal).finally(() => (this.#login = undefined));
    }
    await this.#login;
  }

  async #doLogin(signal: AbortSignal | undefined): Promise<void> {
    const auth = this.#options.auth as { username: string; password: string };
    const form = new URLSearchParams({ username: auth.username, password: auth.password }).toString();
    let res;
    try {
      res = await this.#pool.request({
        method: 'POST',
        path: '/api/v1/login/access-token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form,
        headersTimeout: this.timeoutOf('login.access_token'),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (NOT_SENT.has(code))
        throw v3TransportFailed('login.access_token', `cannot connect to ${this.url} (${code}); nothing was sent`, {
          cause: error,
        });
      throw v3TransportFailed(
        'login.access_token',
        `login failed: ${code || (error as Error).message}`,
        { cause: error },
        true,
      );
    }
    const text = await res.body.text();
    let json: Record<string, unknown> = {};
    let isObject = false;
    try {
      const parsed = JSON.parse(text) as unknown;
      isObject = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
      if (isObject) json = parsed as Record<string, unknown>;
    } catch {
      /* not JSON */
    }
    // A login route that answers no JSON object (an HTML page: the web frontend's port, a proxy) did not refuse
    // the credentials: say what came back instead of blaming the password.
    if (!isObject && res.statusCode !== 401 && res.statusCode !== 403) {
      const body = describeBody(
        text,
        headerOf(res.headers as Record<string, string | string[] | undefined>, 'content-type'),
      );
      throw new HostProtocolError(
        'login.access_token',
        `MoviePilot login (POST /api/v1/login/access-token at ${this.url}) answered HTTP ${res.statusCode} with ${body.words}, not an OAuth2 token: check that the URL is the MoviePilot backend's root URL`,
        { status: res.statusCode, kind: body.kind, received: body.words },
      );
    }
    // OAuth2 endpoints keep their native format (`contracts/v3-notes.md` §4); accept an envelope too.
    const token = (json.access_token ?? (json.data as Record<string, unknown> | undefined)?.access_token) as
      | string
      | undefined;
    // A 2xx answer that carries no token and does not refuse (`success:false`) is off the contract: saying
    // "check the user name and password" would send the operator after the wrong thing.
    if (res.statusCode < 400 && typeof token !== 'string' && json.success !== false) {
      const body = describeBody(text, 'application/json');
      throw new HostProtocolError(
        'login.access_token',
        `MoviePilot login (POST /api/v1/login/access-token at ${this.url}) answered HTTP ${res.statusCode} with ${body.words} but no access_token: not the OAuth2 token answer of a MoviePilot backend; check the URL and any proxy in front of it`,
        { status: res.statusCode, kind: body.kind, received: body.words },
      );
    }
    if (res.statusCode >= 400 || typeof token !== 'string')
      throw v3AuthFailed('login.access_token', res.statusCode, String(json.message ?? json.detail ?? 'login failed'));
    const claims = decodeJwtClaims(token);
    const superuser = Boolean(json.super_user ?? claims.super_user);
    this.#jwt = { token, superuser, username: String(json.user_name ?? claims.username ?? auth.username) };
    this.#options.logger?.info('MoviePilot login', { username: this.#jwt.username, superuser });
  }
}

function encodeQuery(query: Record<string, V3QueryValue> | undefined): string {
  if (!query) return '';
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) p.append(k, String(item));
    else p.append(k, String(v));
  }
  const s = p.toString();
  return s ? `?${s}` : '';
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return text.length > 0;
  } catch {
    return false;
  }
}

function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string {
  const v = headers[name];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

function collectionOf(headers: Record<string, string | string[] | undefined>): V3Collection | undefined {
  const num = (name: string) => {
    const v = headers[name];
    const s = Array.isArray(v) ? v[0] : v;
    return s !== undefined && /^\d+$/.test(s) ? Number(s) : undefined;
  };
  const c: V3Collection = {};
  const map: Array<[string, keyof V3Collection]> = [
    ['x-result-count', 'result_count'],
    ['x-total-count', 'total_count'],
    ['x-page', 'page'],
    ['x-page-size', 'count'],
  ];
  for (const [h, k] of map) {
    const n = num(h);
    if (n !== undefined) c[k] = n;
  }
  return Object.keys(c).length ? c : undefined;
}

function decodeJwtClaims(token: string): Record<string, unknown> {
  try {
    return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}
