import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ContractValidator,
  loadV2Contract,
  refName,
  type OpenApiDocument,
  type OpenApiOperation,
  type V2ContractName,
} from './contract';
import {
  hostPluginSegments,
  hostSimulatorFaults,
  takeFault,
  type HostSimulatorFaults,
} from '@media-agent/host-adapter-kit';
import { V2_OPERATIONS } from '../operations';
import { SIM_RELEASES, SIM_TITLES, type SimRelease, type SimTitle } from './data';

/** The `V2_OPERATIONS` ids of each `METHOD /path-template`, so a fault may name an operation either way. */
const OPERATION_IDS = new Map<string, string[]>();
for (const op of Object.values(V2_OPERATIONS)) {
  const key = `${op.method} ${op.path}`;
  OPERATION_IDS.set(key, [...(OPERATION_IDS.get(key) ?? []), op.id]);
}

/** A user of the simulated host. @public */
export interface SimUser {
  /** Login name (the 3.x simulator's field name). */
  username: string;
  /** Password. */
  password: string;
  /** Host superuser. */
  superuser: boolean;
}

/** Options of {@link MoviePilotV2Simulator}. @public */
export interface V2SimulatorOptions {
  /** Fault switches at start (all off by default), the same as the 3.x simulator's; see {@link MoviePilotV2Simulator.faults}. */
  faults?: Partial<HostSimulatorFaults>;
  /** The host's `API_TOKEN` (default `sim-api-token-0123456789abcdef`). */
  apiKey?: string;
  /** The former name of `apiKey`. @deprecated Renamed `apiKey` (the 3.x simulator's name); kept for one release. */
  apiToken?: string;
  /** Users (default `admin`/`password` superuser and `guest`/`password` not). */
  users?: SimUser[];
  /** Catalog (default {@link SIM_TITLES}). */
  titles?: readonly SimTitle[];
  /** Releases (default {@link SIM_RELEASES}). */
  releases?: readonly SimRelease[];
  /** TMDB ids in the media server library at start (default `[329865]`, Arrival). */
  library?: number[];
  /** Time source for downloads and transfers (default `Date.now`). */
  clock?: { now(): number };
  /** Phase lengths in ms of the clock: queued, downloading, completed-to-transferred (defaults 1 000, 5 000, 1 000). */
  durations?: { queuedMs?: number; downloadMs?: number; transferMs?: number };
  /** Organize completed downloads automatically, as MoviePilot does by default (default true). */
  autoTransfer?: boolean;
  /**
   * The OpenAPI document to validate against and serve, and whose per-route security to enforce:
   * `newer` (default, `contracts/openapi-v2.json`), `v2.5.6` (`contracts/openapi-v2.5.6.json`: standard
   * routes accept only a login, so an API-token-only client gets 401 there as from the real server), or
   * a document.
   */
  contract?: OpenApiDocument | V2ContractName;
  /**
   * The version the host reports (`GET /api/v3/system/status` `version`, `GET /api/v1/system/env`
   * `data.VERSION`): default `v2.5.6` with the v2.5.6 contract, else `v2.15.6` (an assumption for the
   * newer document, whose `info.version` names no release).
   */
  version?: string;
  /** Whether the host can reach TMDB (default true). When false it answers lookups 200 `[]` and its network test fails, as a real host offline from TMDB does. */
  metadataReachable?: boolean;
  /**
   * Whether the host has usable indexer sites (default true: the sites of the releases, active). When
   * false, `GET /api/v1/site/` lists none and every resource search answers `未搜索到任何资源`, as a real
   * host without sites does.
   */
  indexerSites?: boolean;
  /**
   * Secret values the host's settings hold (`GET /api/v1/system/env` returns them next to `VERSION`, as a
   * real 2.x host does); defaults are distinctive strings a test can search for. `API_TOKEN` is always
   * the simulator's API key.
   */
  secrets?: Partial<V2SimSecrets>;
  /**
   * The local disk that holds the download and library directories (one volume, so hardlinks work): its size
   * and free bytes at start (defaults 4 TB and 1.2 TB). Downloaded bytes (size × progress of each download
   * in the downloader) and copies into the library take from it; deletes give back.
   */
  disk?: { totalBytes?: number; freeBytes?: number };
  /** The host's directory settings (`GET /api/v1/system/setting/Directories`; default {@link SIM_DIRECTORIES}). */
  directories?: readonly SimDirectory[];
}

/**
 * One directory setting of a MoviePilot 2.x host (`TransferDirectoryConf`, the `Directories` system setting):
 * where downloads of a media type land and which library they are organized into, how, and whether an
 * existing file there is overwritten. @public
 */
export interface SimDirectory {
  /** Name. */
  name: string;
  /** Storage of the download path (`local`). */
  storage: string;
  /** Download directory. */
  download_path: string;
  /** Priority (lower first). */
  priority: number;
  /** Media type it serves (`电影`, `电视剧`; empty: all). */
  media_type: string;
  /** Category it serves (empty: all). */
  media_category: string;
  /** Storage of the library path (`local`). */
  library_storage: string;
  /** Library directory. */
  library_path: string;
  /** Transfer type (`link`, `copy`, `move`, `softlink`). */
  transfer_type: string;
  /** What to do with an existing file at the target: `never`, `always`, `size`, `latest`. */
  overwrite_mode: string;
}

/** The default directory settings: films and series downloaded to `/downloads`, organized into `/media/电影` and `/media/电视剧` by hardlink, never overwriting. @public */
export const SIM_DIRECTORIES: readonly SimDirectory[] = Object.freeze(
  (['电影', '电视剧'] as const).map((type, i) => ({
    name: type,
    storage: 'local',
    download_path: '/downloads',
    priority: i,
    media_type: type,
    media_category: '',
    library_storage: 'local',
    library_path: `/media/${type}`,
    transfer_type: 'link',
    overwrite_mode: 'never',
  })),
);

/** Secret values a simulated host's settings and sites hold (see {@link V2SimulatorOptions.secrets}). @public */
export interface V2SimSecrets {
  /** The host's TMDB API key (`TMDB_API_KEY` of `GET /api/v1/system/env`). */
  TMDB_API_KEY: string;
  /** The CookieCloud password (`COOKIECLOUD_PASSWORD`). */
  COOKIECLOUD_PASSWORD: string;
  /** The GitHub token (`GITHUB_TOKEN`). */
  GITHUB_TOKEN: string;
  /** Each indexer site's cookie (`cookie` of `GET /api/v1/site/`). */
  SITE_COOKIE: string;
}

/** A request the real host would reject (or a response that does not match the contract). @public */
export interface ContractViolation {
  /** `request` (path, method, parameters, body, security) or `response` (the simulator's own answer). */
  kind: 'request' | 'response';
  /** `METHOD /path?query`. */
  request: string;
  /** What is wrong. */
  issues: string[];
}

/** One request as the simulator received it. @public */
export interface SimRequestRecord {
  /** Method. */
  method: string;
  /** Query parameters (credentials — `token`, `apikey` — left out). */
  query: Record<string, string>;
  /** Path without query. */
  path: string;
  /** Matched template, when any. */
  template: string | undefined;
  /** Status answered (0 when the connection was dropped). */
  status: number;
  /** Principal: `apikey`, `user:<name>`, or `anonymous`. */
  principal: string;
}

/** A download in the simulated downloader. @public */
export interface SimDownload {
  /** Info hash (40 hex). */
  hash: string;
  /** Torrent title. */
  name: string;
  /** TMDB id. */
  tmdbId: number;
  /** Size in bytes. */
  size: number;
  /** Added at (clock ms). */
  addedAt: number;
  /** Save path. */
  savePath: string;
  /** `active`, `paused` (stopped or stalled) or `deleted`. */
  state: 'active' | 'paused' | 'deleted';
  /** Progress frozen when paused (0–1). */
  frozenProgress: number | null;
  /** Who added it. */
  username: string;
  /** Download history id. */
  historyId: number;
  /** Torrent site. */
  site: string;
}

/** A transfer (organize) history record. @public */
export interface SimTransfer {
  /** Id. */
  id: number;
  /** Source path. */
  src: string;
  /** Library path. */
  dest: string;
  /** TMDB id. */
  tmdbId: number;
  /** Success. */
  status: boolean;
  /** Download hash it came from. */
  downloadHash: string | null;
  /** `link`, `copy`, `move`. */
  mode: string;
  /** Clock ms. */
  at: number;
  /** Error message. */
  errmsg: string | null;
}

/** A `failWith` fault: the next `times` requests to `METHOD /template` answer `status`. */
interface Fault {
  method: string;
  template: string;
  status: number;
  times: number;
}

const PLUGIN_RESERVED = new Set([
  'clone',
  'dashboard',
  'folders',
  'form',
  'install',
  'installed',
  'page',
  'reload',
  'reset',
  'sidebar_nav',
  'statistic',
]);

/**
 * A MoviePilot 2.x host simulator: a real HTTP server (node:http on 127.0.0.1, port 0) with state —
 * catalog, releases, a downloader whose tasks move over the clock, transfer queue and history, the
 * media server library, subscriptions, users with and without superuser — that validates every
 * request against `openapi-v2.json` (path, method, parameters, body schema, security scheme) and
 * records each request the real host would reject as a violation (see {@link MoviePilotV2Simulator.assertNoViolations}).
 * Faults: accept-then-drop, 5xx, expired tokens, slow search.
 * @public
 */
export class MoviePilotV2Simulator {
  /** The host's API token (`API_TOKEN`), accepted as `X-API-KEY`, `?apikey=` or `?token=` where a route declares it. */
  readonly apiKey: string;
  /** Requests received, in order. */
  readonly requests: SimRequestRecord[] = [];
  /** Contract violations recorded. */
  readonly violations: ContractViolation[] = [];
  /** Plugin route calls received (`METHOD /path`, body). */
  readonly pluginCalls: Array<{ method: string; path: string; query: Record<string, string>; body: unknown }> = [];
  /**
   * Fault switches, the same as the 3.x simulator's (`@media-agent/host-adapter-kit` `HostSimulatorFaults`);
   * change them at any time. Operations are named `METHOD /path-template` or by their `V2_OPERATIONS` id.
   */
  readonly faults: HostSimulatorFaults;
  /** The version the host reports. */
  readonly version: string;
  /** The secret values the host's settings hold, by setting name (see {@link V2SimulatorOptions.secrets}), `API_TOKEN` included. */
  readonly secrets: Readonly<V2SimSecrets & { API_TOKEN: string }>;
  /**
   * When set, `GET /api/v1/search/media/{mediaid}` answers `{"success": false, "message": searchFailure}`
   * for every title, e.g. `未识别到媒体信息` (media not recognized) or a site-authentication message.
   */
  searchFailure: string | undefined;

  readonly #validator: ContractValidator;
  readonly #nullsOptional: boolean;
  readonly #users: SimUser[];
  readonly #titles: SimTitle[];
  readonly #releases: SimRelease[];
  readonly #clock: { now(): number };
  readonly #durations: { queuedMs: number; downloadMs: number; transferMs: number };
  #autoTransfer: boolean;
  readonly #tokens = new Map<string, { user: string; expired: boolean }>();
  readonly #faults: Fault[] = [];
  readonly #library = new Map<number, { path: string; addedAt: number; itemId: string }>();
  readonly #downloads: SimDownload[] = [];
  readonly #downloadHistory: Array<{
    id: number;
    hash: string;
    tmdbId: number;
    name: string;
    path: string;
    at: number;
    username: string;
    site: string;
    description: string;
  }> = [];
  readonly #transfers: SimTransfer[] = [];
  readonly #subscriptions: Array<Record<string, unknown>> = [];
  readonly #userConfig = new Map<string, unknown>();
  readonly #disk: { total: number; free: number };
  readonly #directories: SimDirectory[];
  #lastSearch: Array<Record<string, unknown>> = [];
  #server: Server | undefined;
  #url = '';
  #seq = 1;

  /** @param options - see {@link V2SimulatorOptions} */
  constructor(options: V2SimulatorOptions = {}) {
    this.apiKey = options.apiKey ?? options.apiToken ?? 'sim-api-token-0123456789abcdef';
    this.#users = options.users ?? [
      { username: 'admin', password: 'password', superuser: true },
      { username: 'guest', password: 'password', superuser: false },
    ];
    this.#titles = [...(options.titles ?? SIM_TITLES)];
    this.#releases = [...(options.releases ?? SIM_RELEASES)];
    this.#clock = options.clock ?? { now: () => Date.now() };
    this.#durations = { queuedMs: 1000, downloadMs: 5000, transferMs: 1000, ...options.durations };
    this.#autoTransfer = options.autoTransfer ?? true;
    const contract = options.contract ?? 'newer';
    this.#validator = new ContractValidator(typeof contract === 'string' ? loadV2Contract(contract) : contract);
    this.#nullsOptional = !JSON.stringify(this.#validator.document.components.schemas).includes('"type":"null"');
    this.version = options.version ?? (contract === 'v2.5.6' ? 'v2.5.6' : 'v2.15.6');

    this.searchFailure = undefined;
    this.faults = hostSimulatorFaults({
      ...(options.metadataReachable === false ? { metadataUnreachable: true } : {}),
      ...(options.indexerSites === false ? { noIndexerSites: true } : {}),
      ...options.faults,
    });
    this.secrets = Object.freeze({
      API_TOKEN: this.apiKey,
      TMDB_API_KEY: 'sim-secret-tmdb-5f1c2a9e77d04b3c',
      COOKIECLOUD_PASSWORD: 'sim-secret-cookiecloud-b82e61d4',
      GITHUB_TOKEN: 'github_pat_sim_secret_0c9d8e7f6a5b4c3d',
      SITE_COOKIE: 'uid=1; pass=sim-secret-site-cookie-a41f0b',
      ...options.secrets,
    });
    this.#disk = { total: options.disk?.totalBytes ?? 4e12, free: options.disk?.freeBytes ?? 1.2e12 };
    this.#directories = (options.directories ?? SIM_DIRECTORIES).map((d) => ({ ...d }));
    for (const id of options.library ?? [329865])
      this.#library.set(id, { path: this.#libraryPath(id), addedAt: this.#clock.now(), itemId: `item-${id}` });
  }

  /** Base URL, e.g. `http://127.0.0.1:41234` (after {@link MoviePilotV2Simulator.start}). */
  get url(): string {
    return this.#url;
  }

  /** Starts listening on 127.0.0.1, a free port. @returns the base URL */
  async start(): Promise<string> {
    const server = createServer((req, res) => void this.#handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#server = server;
    this.#url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.#url;
  }

  /** The former name of `apiKey`. @deprecated Renamed `apiKey` (the 3.x simulator's name); kept for one release. */
  get apiToken(): string {
    return this.apiKey;
  }

  /** The former name of `close()`. @deprecated Renamed `close()` (the 3.x simulator's name); kept for one release. */
  async stop(): Promise<void> {
    return this.close();
  }

  /** Stops the server (open connections are closed). */
  async close(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /**
   * Throws when any request violated the contract (or a response did not match it), listing them.
   * @throws `Error` with every violation
   */
  assertNoViolations(): void {
    if (this.violations.length > 0)
      throw new Error(
        `MoviePilot V2 contract violations:\n${this.violations.map((v) => `- [${v.kind}] ${v.request}: ${v.issues.join('; ')}`).join('\n')}`,
      );
  }

  /** Requests received for one `METHOD /template` (e.g. `POST /api/v1/transfer/manual`). */
  requestCount(methodAndTemplate: string): number {
    return this.requests.filter((r) => `${r.method} ${r.template ?? r.path}` === methodAndTemplate).length;
  }

  /**
   * Fault: the next `times` requests to `METHOD /template` are processed, then the connection is dropped without an answer.
   * @deprecated Push `METHOD /template` (or the operation id) onto `faults.dropAfterAccept`, as on the 3.x simulator.
   */
  dropAfterAccept(method: string, template: string, times = 1): void {
    for (let i = 0; i < times; i++) this.faults.dropAfterAccept.push(`${method} ${template}`);
  }

  /** Delay in ms before a resource search is answered. @deprecated Use `faults.slowSearchMs`, as on the 3.x simulator. */
  get searchDelayMs(): number {
    return this.faults.slowSearchMs;
  }
  set searchDelayMs(ms: number) {
    this.faults.slowSearchMs = ms;
  }

  /** Whether the host can reach TMDB. @deprecated Use `faults.metadataUnreachable`, as on the 3.x simulator. */
  get metadataReachable(): boolean {
    return !this.faults.metadataUnreachable;
  }
  set metadataReachable(reachable: boolean) {
    this.faults.metadataUnreachable = !reachable;
  }

  /** Whether the host has usable indexer sites. @deprecated Use `faults.noIndexerSites`, as on the 3.x simulator. */
  get indexerSites(): boolean {
    return !this.faults.noIndexerSites;
  }
  set indexerSites(usable: boolean) {
    this.faults.noIndexerSites = !usable;
  }

  /**
   * Fault: the next `times` requests to `METHOD /template` answer `status` (default 500) without being
   * processed (any status; for a 500 `faults.fail5xx` does the same, as on the 3.x simulator).
   */
  failWith(method: string, template: string, status = 500, times = 1): void {
    this.#faults.push({ method, template, status, times });
  }

  /** Fault: every JWT issued so far is expired (requests with it get 401). */
  expireTokens(): void {
    for (const t of this.#tokens.values()) t.expired = true;
  }

  /** Turns automatic organizing of completed downloads on or off. */
  setAutoTransfer(on: boolean): void {
    this.#autoTransfer = on;
  }

  /** Pauses (stalls) a download. */
  stallDownload(hash: string): void {
    const d = this.#downloads.find((x) => x.hash === hash);
    if (d && d.state === 'active') {
      d.frozenProgress = this.#progress(d);
      d.state = 'paused';
    }
  }

  /** Downloads in the downloader (not deleted), with their phase now. */
  downloads(): Array<SimDownload & { phase: 'queued' | 'downloading' | 'completed' | 'paused'; progress: number }> {
    return this.#downloads
      .filter((d) => d.state !== 'deleted')
      .map((d) => ({ ...d, phase: this.#phase(d), progress: this.#progress(d) }));
  }

  /** Transfer history (auto and manual). */
  transfers(): SimTransfer[] {
    this.#settle();
    return [...this.#transfers];
  }

  /** True when the media server library has the title. */
  inLibrary(tmdbId: number): boolean {
    this.#settle();
    return this.#library.has(tmdbId);
  }

  /** Subscriptions. */
  subscriptions(): Array<Record<string, unknown>> {
    return [...this.#subscriptions];
  }

  /**
   * Free bytes of the local disk now: its free bytes at start, less what the downloads in the downloader
   * hold (size × progress) and what copies into the library wrote.
   */
  freeBytes(): number {
    this.#settle();
    const held = this.#downloads
      .filter((d) => d.state !== 'deleted')
      .reduce((n, d) => n + Math.round(d.size * this.#progress(d)), 0);
    const copied = this.#transfers
      .filter((t) => t.status && t.mode === 'copy')
      .reduce((n, t) => n + (this.#downloads.find((d) => d.hash === t.downloadHash)?.size ?? 0), 0);
    return this.#disk.free - held - copied;
  }

  /** The directory settings (`Directories`). */
  directories(): SimDirectory[] {
    return this.#directories.map((d) => ({ ...d }));
  }

  /** Puts a title's files at its library path, as an earlier import or a person would have (the media server then lists it). */
  placeInLibrary(tmdbId: number): void {
    this.#library.set(tmdbId, {
      path: this.#libraryPath(tmdbId),
      addedAt: this.#clock.now(),
      itemId: `item-${tmdbId}`,
    });
  }

  // ---- state over time -------------------------------------------------------------------------

  #progress(d: SimDownload): number {
    if (d.frozenProgress !== null) return d.frozenProgress;
    const t = this.#clock.now() - d.addedAt - this.#durations.queuedMs;
    return t <= 0 ? 0 : Math.min(1, t / this.#durations.downloadMs);
  }

  #phase(d: SimDownload): 'queued' | 'downloading' | 'completed' | 'paused' {
    if (d.state === 'paused') return 'paused';
    const p = this.#progress(d);
    if (p >= 1) return 'completed';
    return this.#clock.now() - d.addedAt < this.#durations.queuedMs ? 'queued' : 'downloading';
  }

  #completedAt(d: SimDownload): number {
    return d.addedAt + this.#durations.queuedMs + this.#durations.downloadMs;
  }

  /** Runs the automatic transfer of completed downloads whose transfer time has come. */
  #settle(): void {
    if (!this.#autoTransfer) return;
    const now = this.#clock.now();
    for (const d of this.#downloads) {
      if (d.state !== 'active' || this.#phase(d) !== 'completed') continue;
      if (now < this.#completedAt(d) + this.#durations.transferMs) continue;
      if (this.#transfers.some((t) => t.downloadHash === d.hash)) continue;
      this.#transfer(d, d.tmdbId, 'link', this.#completedAt(d) + this.#durations.transferMs);
    }
  }

  #transfer(d: SimDownload, tmdbId: number, mode: string, at: number): SimTransfer {
    const record: SimTransfer = {
      id: this.#seq++,
      src: `${d.savePath}/${d.name}`,
      dest: this.#libraryPath(tmdbId),
      tmdbId,
      status: true,
      downloadHash: d.hash,
      mode,
      at,
      errmsg: null,
    };
    this.#transfers.push(record);
    if (!this.#library.has(tmdbId))
      this.#library.set(tmdbId, { path: record.dest, addedAt: at, itemId: `item-${tmdbId}` });
    return record;
  }

  #libraryPath(tmdbId: number): string {
    const t = this.#titles.find((x) => x.tmdbId === tmdbId);
    if (!t) return `/media/unknown/${tmdbId}`;
    const type = t.kind === 'movie' ? '电影' : '电视剧';
    const dir = this.#directories.find((d) => d.media_type === type || d.media_type === '');
    return `${dir?.library_path ?? `/media/${type}`}/${t.localizedTitle} (${t.year})`;
  }

  // ---- HTTP ------------------------------------------------------------------------------------

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://sim');
    const method = (req.method ?? 'GET').toUpperCase();
    const label = `${method} ${url.pathname}${url.search}`;
    const record: SimRequestRecord = {
      method,
      path: url.pathname,
      query: Object.fromEntries([...url.searchParams].filter(([k]) => k !== 'token' && k !== 'apikey')),
      template: undefined,
      status: 0,
      principal: 'anonymous',
    };
    this.requests.push(record);
    const send = (status: number, payload: unknown, operation?: OpenApiOperation) => {
      record.status = status;
      if (operation && status === 200) {
        const schema = operation.responses?.['200']?.content?.['application/json']?.schema;
        // A pydantic v1 document (v2.5.6) renders `Optional[X] = None` as plain `X`; the server still sends null.
        const issues = this.#validator.validate(schema, this.#nullsOptional ? withoutNulls(payload) : payload);
        if (issues.length) this.violations.push({ kind: 'response', request: label, issues });
      }
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    const violation = (status: number, issues: string[], detail: unknown = issues.join('; ')) => {
      this.violations.push({ kind: 'request', request: label, issues });
      send(status, { detail });
    };

    // The OpenAPI document itself (FastAPI openapi_url), and the login route (the OAuth2 tokenUrl).
    if (method === 'GET' && url.pathname === '/api/v1/openapi.json') return send(200, this.#validator.document);
    const tokenUrl =
      this.#validator.document.components.securitySchemes.OAuth2PasswordBearer?.flows?.password?.tokenUrl;
    if (url.pathname === tokenUrl) {
      record.template = tokenUrl;
      if (method !== 'POST') return violation(405, [`${method} is not allowed on the token URL`], 'Method Not Allowed');
      const issues = this.#validator.validateRequest(
        {
          requestBody: {
            required: true,
            content: {
              'application/x-www-form-urlencoded': {
                schema: { $ref: '#/components/schemas/Body_login_access_token_api_v1_login_access_token_post' },
              },
            },
          },
        },
        {
          pathParams: {},
          query: url.searchParams,
          headers: req.headers,
          contentType: req.headers['content-type'],
          body,
        },
      );
      if (issues.length) return violation(422, issues);
      const form = new URLSearchParams(body);
      const user = this.#users.find((u) => u.username === form.get('username') && u.password === form.get('password'));
      if (!user) {
        record.status = 401;
        res.writeHead(401, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ detail: '用户名或密码不正确' }));
      }
      const token = randomBytes(24).toString('hex');
      this.#tokens.set(token, { user: user.username, expired: false });
      return send(200, {
        access_token: token,
        token_type: 'bearer',
        super_user: user.superuser,
        user_id: this.#users.indexOf(user) + 1,
        user_name: user.username,
        avatar: null,
        level: 2,
        permissions: {},
        wizard: false,
      });
    }

    const match = this.#validator.match(method, url.pathname);
    if (!match) return violation(404, [`no path ${url.pathname} in the contract`], 'Not Found');
    record.template = match.template;
    if (!match.operation)
      return violation(405, [`${method} is not declared for ${match.template}`], 'Method Not Allowed');
    const operation = match.operation;

    // Security: one of the declared alternatives must carry a valid credential.
    const auth = this.#authenticate(operation, req, url);
    if (auth.kind === 'violation') return violation(auth.status, auth.issues, auth.detail);
    if (auth.kind === 'expired') {
      record.status = 401;
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
      return void res.end(JSON.stringify({ detail: 'token校验不通过' }));
    }
    record.principal = auth.principal;

    const issues = this.#validator.validateRequest(operation, {
      pathParams: match.pathParams,
      query: url.searchParams,
      headers: req.headers,
      contentType: req.headers['content-type'],
      body,
    });
    if (issues.length)
      return violation(
        422,
        issues,
        issues.map((msg) => ({ loc: [], msg, type: 'value_error' })),
      );

    const names = [`${method} ${match.template}`, ...(OPERATION_IDS.get(`${method} ${match.template}`) ?? [])];
    const fault = this.#faults.find((f) => f.times > 0 && f.method === method && f.template === match.template);
    const fail5xx = takeFault(this.faults.fail5xx, names);
    if (fault || fail5xx) {
      if (fault) fault.times--;
      record.status = fault?.status ?? 500;
      res.writeHead(record.status, { 'content-type': 'text/plain' });
      return void res.end('Internal Server Error');
    }
    if (match.template === '/api/v1/search/media/{mediaid}' && this.faults.slowSearchMs > 0)
      await new Promise((r) => setTimeout(r, this.faults.slowSearchMs));

    if (method === 'GET' && match.template === '/api/v1/plugin/file/{plugin_id}/{filepath}') {
      // MoviePilot serves a plugin's static files here (a FileResponse: the file's bytes, not JSON; it
      // served `plugin_id "."` a Python source file), and a missing file is a 404 naming the server path.
      const file = `/app/app/plugins/${match.pathParams.plugin_id}/${match.pathParams.filepath}`.toLowerCase();
      record.status = file.endsWith('.js') || file.endsWith('.py') ? 200 : 404;
      if (record.status === 404) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ detail: `${file} 不存在` }));
      }
      res.writeHead(200, { 'content-type': file.endsWith('.js') ? 'text/javascript' : 'text/x-python' });
      return void res.end(
        file.endsWith('.js') ? 'export const remoteEntry = {};\n' : 'import os\nAPI_TOKEN = os.environ\n',
      );
    }
    let result: { status: number; body: unknown };
    try {
      const parsed =
        body && (req.headers['content-type'] ?? '').startsWith('application/json')
          ? (JSON.parse(body) as unknown)
          : undefined;
      result = this.#route(
        method,
        match.template,
        match.pathParams,
        url.searchParams,
        parsed,
        auth.principal,
        auth.superuser,
      );
    } catch (error) {
      result = { status: 500, body: { detail: error instanceof Error ? error.message : String(error) } };
    }
    if (takeFault(this.faults.dropAfterAccept, names)) {
      record.status = 0;
      req.socket.destroy();
      return;
    }
    send(result.status, result.body, operation);
  }

  #authenticate(
    operation: OpenApiOperation,
    req: IncomingMessage,
    url: URL,
  ):
    | { kind: 'ok'; principal: string; superuser: boolean }
    | { kind: 'expired' }
    | { kind: 'violation'; status: number; issues: string[]; detail: string } {
    const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s));
    if (schemes.length === 0) return { kind: 'ok', principal: 'anonymous', superuser: false };
    const bearer = /^Bearer (.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
    const header = req.headers['x-api-key'] as string | undefined;
    const apikey = url.searchParams.get('apikey') ?? undefined;
    const token = url.searchParams.get('token') ?? undefined;
    const offered: Array<[string, string | undefined]> = [
      ['OAuth2PasswordBearer', bearer],
      ['api_key_header', header],
      ['api_key_query', apikey],
      ['api_token_query', token],
    ];
    const present = offered.filter(([, v]) => v !== undefined);
    const undeclared = present.filter(([name]) => !schemes.includes(name)).map(([name]) => name);
    if (present.length === 0)
      return {
        kind: 'violation',
        status: 401,
        issues: [`no credential of ${schemes.join(' | ')}`],
        detail: 'Not authenticated',
      };
    if (undeclared.length > 0 && present.length === undeclared.length)
      return {
        kind: 'violation',
        status: 401,
        issues: [
          `credential sent by ${undeclared.join(', ')}, which the operation does not accept (${schemes.join(' | ')})`,
        ],
        detail: 'Not authenticated',
      };
    for (const [name, value] of present) {
      if (!schemes.includes(name)) continue;
      if (name === 'OAuth2PasswordBearer') {
        const t = this.#tokens.get(value!);
        if (!t) return { kind: 'violation', status: 403, issues: ['unknown bearer token'], detail: 'token校验不通过' };
        if (t.expired) return { kind: 'expired' };
        return {
          kind: 'ok',
          principal: `user:${t.user}`,
          superuser: this.#users.find((u) => u.username === t.user)?.superuser ?? false,
        };
      }
      if (value !== this.apiKey)
        return { kind: 'violation', status: 401, issues: [`wrong API token in ${name}`], detail: 'API_KEY校验不通过' };
      return { kind: 'ok', principal: 'apikey', superuser: true };
    }
    return { kind: 'violation', status: 401, issues: ['no accepted credential'], detail: 'Not authenticated' };
  }

  // ---- endpoints -------------------------------------------------------------------------------

  #route(
    method: string,
    template: string,
    pp: Record<string, string>,
    q: URLSearchParams,
    body: unknown,
    principal: string,
    superuser: boolean,
  ): { status: number; body: unknown } {
    this.#settle();
    const ok = (data: unknown = {}, message = '') => ({ status: 200, body: { success: true, message, data } });
    const fail = (message: string) => ({ status: 200, body: { success: false, message, data: {} } });
    const bare = (b: unknown) => ({ status: 200, body: b });
    const forbidden = () => ({ status: 400, body: { detail: '用户权限不足' } });
    const user = principal.startsWith('user:') ? principal.slice(5) : 'admin';
    const key = `${method} ${template}`;
    switch (key) {
      case 'GET /api/v1/plugin/installed': {
        // The plugins whose own API routes the contract lists (each is installed and loaded on a real host).
        const paths = Object.keys(this.#validator.document.paths);
        const host = hostPluginSegments(paths);
        const ids = paths
          .map((p) => /^\/api\/v1\/plugin\/([A-Za-z0-9_-]+)\/./.exec(p)?.[1])
          .filter((id): id is string => !!id && !host.has(id));
        return bare([...new Set(ids)]);
      }
      case 'GET /api/v1/user/current':
        return bare({ name: user, is_superuser: superuser, is_active: true, id: 1 });
      case 'GET /api/v3/system/status':
        return bare({
          appName: 'MoviePilot',
          instanceName: 'moviepilot',
          version: this.version,
          buildTime: '',
          isDebug: false,
          isProduction: true,
          isAdmin: false,
          isUserInteractive: true,
          startupPath: '/app',
          appData: '/config',
          osName: 'debian',
          isDocker: true,
          isLinux: true,
          isOsx: false,
          isWindows: false,
          mode: 'console',
          branch: 'main',
          authentication: 'apikey',
          migrationVersion: 0,
          urlBase: '',
          runtimeVersion: '3.12',
          startTime: '',
        });
      case 'GET /api/v1/system/env':
        if (!superuser) return forbidden();
        // As a real 2.x host: every setting (secrets included, only SECRET_KEY left out) plus the versions.
        return ok({
          PROJECT_NAME: 'MoviePilot',
          API_TOKEN: this.secrets.API_TOKEN,
          TMDB_API_KEY: this.secrets.TMDB_API_KEY,
          COOKIECLOUD_KEY: 'sim-cookiecloud-key',
          COOKIECLOUD_PASSWORD: this.secrets.COOKIECLOUD_PASSWORD,
          GITHUB_TOKEN: this.secrets.GITHUB_TOKEN,
          RECOGNIZE_SOURCE: 'themoviedb',
          VERSION: this.version,
          AUTH_VERSION: '',
          INDEXER_VERSION: '',
          FRONTEND_VERSION: this.version,
        });
      case 'GET /api/v1/site/': {
        // The Site model carries each site's cookie, API key and token (secrets of the host's sites).
        const sites = new Map<number, string>();
        for (const r of this.#releases) sites.set(r.siteId, r.site);
        return bare(
          !this.faults.noIndexerSites
            ? [...sites].map(([id, name]) => ({
                id,
                name,
                domain: `${name.toLowerCase()}.example`,
                url: `https://${name.toLowerCase()}.example/`,
                pri: id,
                cookie: this.secrets.SITE_COOKIE,
                ua: 'Mozilla/5.0',
                public: 0,
                is_active: true,
              }))
            : [],
        );
      }
      case 'GET /api/v1/system/nettest': {
        const target = q.get('url') ?? '';
        if (/themoviedb\.org/.test(target) && this.faults.metadataUnreachable) return fail('网络连接失败！');
        return ok({ time: 120 });
      }
      case 'GET /api/v1/media/search': {
        if (this.faults.metadataUnreachable) return bare([]);
        const t = (q.get('title') ?? '').toLowerCase();
        const count = Number(q.get('count') ?? 8);
        const found = this.#titles.filter((x) =>
          [x.title, x.originalTitle, x.localizedTitle].some(
            (n) => n.toLowerCase().includes(t) || (t.includes(n.toLowerCase()) && n.length > 1),
          ),
        );
        return bare(found.slice(0, count).map((x) => this.#mediaInfo(x)));
      }
      case 'GET /api/v1/media/{mediaid}': {
        const t = !this.faults.metadataUnreachable
          ? this.#titleByMediaId(pp.mediaid!, kindOfType(q.get('type_name')))
          : undefined;
        return bare(t ? this.#mediaInfo(t) : { release_dates: [] });
      }
      case 'GET /api/v1/media/recognize': {
        const title = q.get('title') ?? '';
        const r = this.#releases.find((x) => x.title === title);
        const t = r
          ? this.#titles.find((x) => x.tmdbId === r.tmdbId)
          : this.#titles.find((x) => title.toLowerCase().includes(x.title.toLowerCase()));
        return bare({
          meta_info: { org_string: title, name: t?.title ?? null },
          media_info: t ? this.#mediaInfo(t) : null,
          torrent_info: null,
        });
      }
      case 'GET /api/v1/search/media/{mediaid}': {
        if (this.searchFailure !== undefined) return fail(this.searchFailure);
        // As MoviePilot's search chain: recognise the media first (TMDB; `mtype` picks movie or series,
        // without it a TMDB id is tried as a series first), then search the active indexer sites. Each
        // failure is answered with the same message.
        const t = !this.faults.metadataUnreachable
          ? this.#titleByMediaId(pp.mediaid!, kindOfType(q.get('mtype')))
          : undefined;
        const found =
          t && !this.faults.noIndexerSites
            ? this.#releases.filter((r) => r.tmdbId === t.tmdbId && (r.kind === undefined || r.kind === t.kind))
            : [];
        if (!t || found.length === 0) return fail('未搜索到任何资源');
        this.#lastSearch = found.map((r) => this.#context(r, t));
        return ok(this.#lastSearch);
      }
      case 'GET /api/v1/search/last':
        return bare(this.#lastSearch);
      case 'POST /api/v1/download/': {
        const b = body as {
          media_in: Record<string, unknown>;
          torrent_in: Record<string, unknown>;
          save_path?: string | null;
        };
        const enclosure = String(b.torrent_in.enclosure ?? '');
        const release = this.#releases.find((r) => r.enclosure === enclosure && r.title === b.torrent_in.title);
        if (!release) return fail('种子下载失败');
        const hash =
          /btih:([0-9a-f]{40})/i.exec(enclosure)?.[1]?.toLowerCase() ??
          createHash('sha1').update(enclosure).digest('hex');
        if (this.#downloads.some((d) => d.hash === hash && d.state !== 'deleted')) return fail('种子已存在');
        const tmdbId = Number(b.media_in.tmdb_id ?? release.tmdbId);
        const historyId = this.#seq++;
        const d: SimDownload = {
          hash,
          name: release.title,
          tmdbId,
          size: release.size,
          addedAt: this.#clock.now(),
          savePath: b.save_path ?? this.#downloadPath(tmdbId),
          state: 'active',
          frozenProgress: null,
          username: user,
          historyId,
          site: release.site,
        };
        this.#downloads.push(d);
        this.#downloadHistory.push({
          id: historyId,
          hash,
          tmdbId,
          name: release.title,
          path: `${d.savePath}/${release.title}`,
          at: d.addedAt,
          username: user,
          site: release.site,
          description: release.description,
        });
        return ok({ download_id: hash });
      }
      case 'GET /api/v1/download/': {
        const name = q.get('name');
        return bare(
          this.#downloads
            .filter((d) => d.state !== 'deleted' && this.#phase(d) !== 'completed' && (!name || d.name.includes(name)))
            .map((d) => {
              const t = this.#titles.find((x) => x.tmdbId === d.tmdbId);
              return {
                hash: d.hash,
                title: t?.title ?? d.name,
                name: d.name,
                year: t ? String(t.year) : null,
                season_episode: '',
                size: d.size,
                progress: Math.round(this.#progress(d) * 1000) / 10,
                state: d.state === 'paused' ? 'paused' : 'downloading',
                dlspeed: d.state === 'paused' ? '0B' : '12.5M',
                upspeed: '1.2M',
                left_time: '',
                downloader: 'qbittorrent',
                media: t
                  ? {
                      tmdbid: t.tmdbId,
                      type: t.kind === 'movie' ? '电影' : '电视剧',
                      title: t.title,
                      year: String(t.year),
                    }
                  : null,
                userid: null,
                username: d.username,
                tags: 'MOVIEPILOT',
              };
            }),
        );
      }
      case 'GET /api/v1/download/start/{hashString}': {
        const d = this.#downloads.find((x) => x.hash === pp.hashString && x.state !== 'deleted');
        if (!d) return fail('下载任务不存在');
        if (d.state === 'paused') {
          // resume from the frozen progress
          const p = d.frozenProgress ?? 0;
          d.addedAt = this.#clock.now() - this.#durations.queuedMs - p * this.#durations.downloadMs;
          d.frozenProgress = null;
          d.state = 'active';
        }
        return ok();
      }
      case 'DELETE /api/v1/download/{hashString}': {
        const d = this.#downloads.find((x) => x.hash === pp.hashString && x.state !== 'deleted');
        if (!d) return fail('下载任务不存在');
        d.state = 'deleted';
        return ok();
      }
      case 'GET /api/v1/history/download': {
        const page = Number(q.get('page') ?? 1);
        const count = Number(q.get('count') ?? 30);
        const list = [...this.#downloadHistory].reverse().slice((page - 1) * count, page * count);
        return bare(
          list.map((h) => {
            const t = this.#titles.find((x) => x.tmdbId === h.tmdbId);
            return {
              id: h.id,
              path: h.path,
              type: t?.kind === 'tv' ? '电视剧' : '电影',
              title: t?.title ?? h.name,
              year: t ? String(t.year) : null,
              tmdbid: h.tmdbId,
              doubanid: t?.doubanId ?? null,
              imdbid: null,
              tvdbid: null,
              seasons: '',
              episodes: '',
              image: null,
              download_hash: h.hash,
              torrent_name: h.name,
              torrent_description: h.description,
              torrent_site: h.site,
              userid: null,
              username: h.username,
              channel: null,
              date: iso(h.at),
              note: null,
              media_category: null,
              episode_group: null,
            };
          }),
        );
      }
      case 'GET /api/v1/history/transfer': {
        const page = Number(q.get('page') ?? 1);
        const count = Number(q.get('count') ?? 30);
        const title = q.get('title');
        const status = q.get('status');
        const list = [...this.#transfers]
          .reverse()
          .filter(
            (t) =>
              (status === null ? true : String(t.status) === status) &&
              (!title || (this.#titles.find((x) => x.tmdbId === t.tmdbId)?.title ?? '').includes(title)),
          );
        return ok({
          list: list.slice((page - 1) * count, page * count).map((t) => this.#transferView(t)),
          total: list.length,
        });
      }
      case 'GET /api/v1/transfer/queue': {
        const queued = this.#downloads.filter(
          (d) =>
            d.state === 'active' &&
            this.#phase(d) === 'completed' &&
            !this.#transfers.some((t) => t.downloadHash === d.hash),
        );
        return bare(
          this.#autoTransfer
            ? queued.map((d) => {
                const t = this.#titles.find((x) => x.tmdbId === d.tmdbId);
                return {
                  media: t ? this.#mediaInfo(t) : null,
                  season: null,
                  tasks: [
                    {
                      download_hash: d.hash,
                      downloader: 'qbittorrent',
                      state: 'waiting',
                      fileitem: { storage: 'local', type: 'dir', path: `${d.savePath}/${d.name}`, name: d.name },
                      meta: { org_string: d.name },
                    },
                  ],
                };
              })
            : [],
        );
      }
      case 'POST /api/v1/transfer/manual': {
        if (!superuser) return forbidden();
        const b = body as {
          fileitem?: { path?: string | null } | null;
          tmdbid?: number | null;
          transfer_type?: string | null;
          logid?: number | null;
        };
        const path = b.fileitem?.path ?? '';
        const d = this.#downloads.find(
          (x) => x.state !== 'deleted' && `${x.savePath}/${x.name}` === path.replace(/\/$/, ''),
        );
        if (!d) return fail(`${path} 不存在`);
        if (this.#phase(d) !== 'completed') return fail(`${d.name} 未下载完成`);
        const done = this.#transfers.find((t) => t.downloadHash === d.hash && t.status);
        if (done) return ok({}, '已整理');
        this.#transfer(d, b.tmdbid ?? d.tmdbId, b.transfer_type ?? 'link', this.#clock.now());
        return ok();
      }
      case 'GET /api/v1/mediaserver/exists': {
        const tmdbid = q.get('tmdbid');
        const title = q.get('title');
        const mkind = kindOfType(q.get('mtype'));
        const t = tmdbid
          ? this.#titles.find((x) => x.tmdbId === Number(tmdbid) && (mkind === undefined || x.kind === mkind))
          : this.#titles.find(
              (x) =>
                title &&
                (mkind === undefined || x.kind === mkind) &&
                [x.title, x.localizedTitle, x.originalTitle].includes(title),
            );
        const item = t ? this.#library.get(t.tmdbId) : undefined;
        if (!t || !item) return fail('');
        return ok({
          item: {
            id: item.itemId,
            title: t.title,
            year: String(t.year),
            type: t.kind === 'movie' ? '电影' : '电视剧',
            tmdbid: t.tmdbId,
            path: item.path,
            server: 'emby',
            added: iso(item.addedAt),
          },
        });
      }
      case 'GET /api/v1/subscribe/':
        return bare(this.#subscriptions);
      case 'POST /api/v1/subscribe/': {
        const b = body as Record<string, unknown>;
        const existing = this.#subscriptions.find(
          (s) => s.tmdbid === b.tmdbid && (s.season ?? null) === (b.season ?? null),
        );
        if (existing) return ok({ id: existing.id }, '订阅已存在');
        const id = this.#seq++;
        this.#subscriptions.push({ ...b, id, state: 'R', username: user });
        return ok({ id });
      }
      case 'GET /api/v1/subscribe/media/{mediaid}': {
        const t = this.#titleByMediaId(pp.mediaid!);
        const s = t ? this.#subscriptions.find((x) => x.tmdbid === t.tmdbId) : undefined;
        return bare(s ?? {});
      }
      case 'DELETE /api/v1/subscribe/{subscribe_id}': {
        const at = this.#subscriptions.findIndex((x) => String(x.id) === pp.subscribe_id);
        if (at >= 0) this.#subscriptions.splice(at, 1);
        return ok();
      }
      case 'GET /api/v1/system/setting/{key}':
        // `app/api/endpoints/system.py` get_setting: superusers only, `data: {value}` (null when unset).
        if (!superuser) return forbidden();
        return ok({ value: pp.key === 'Directories' ? this.directories() : null });
      case 'GET /api/v1/dashboard/downloader':
        // `app/api/endpoints/dashboard.py` downloader: the downloaders' transfer totals and their free space.
        return bare({
          download_speed: this.#downloads.some((d) => d.state === 'active' && this.#phase(d) === 'downloading')
            ? 12.5e6
            : 0,
          upload_speed: 1.2e6,
          download_size: this.#downloads.reduce((n, d) => n + Math.round(d.size * this.#progress(d)), 0),
          upload_size: 0,
          free_space: this.freeBytes(),
        });
      case 'GET /api/v1/dashboard/storage':
        // The local library directories' volume: total and used bytes.
        return bare({ total_storage: this.#disk.total, used_storage: this.#disk.total - this.freeBytes() });
      case 'GET /api/v1/storage/usage/{name}':
        // `StorageChain().storage_usage(name)`: `local` is the library directories' volume; another storage
        // this host has not configured answers the empty model.
        return bare(
          pp.name === 'local' ? { total: this.#disk.total, available: this.freeBytes() } : { total: 0, available: 0 },
        );
      case 'DELETE /api/v1/history/transfer': {
        // `app/api/endpoints/history.py` delete_transfer_history: superusers only; deletedest deletes the
        // library files, deletesrc the source files (the download), then the record goes.
        if (!superuser) return forbidden();
        const b = body as { id: number };
        const at = this.#transfers.findIndex((t) => t.id === b.id);
        if (at < 0) return fail('记录不存在');
        const t = this.#transfers[at]!;
        this.#transfers.splice(at, 1);
        if (q.get('deletedest') === 'true' && this.#library.get(t.tmdbId)?.path === t.dest)
          this.#library.delete(t.tmdbId);
        if (q.get('deletesrc') === 'true') {
          const d = this.#downloads.find((x) => x.hash === t.downloadHash);
          if (d) d.state = 'deleted';
        }
        return ok();
      }
      case 'GET /api/v1/user/config/{key}':
        return ok({ value: this.#userConfig.get(`${user}:${pp.key}`) ?? null });
      case 'POST /api/v1/user/config/{key}':
        this.#userConfig.set(`${user}:${pp.key}`, body);
        return ok();
    }
    const plugin = /^\/api\/v1\/plugin\/([^/]+)\//.exec(template);
    if (plugin && !PLUGIN_RESERVED.has(plugin[1]!)) {
      this.pluginCalls.push({ method, path: template, query: Object.fromEntries(q), body });
      const schema = this.#validator.document.paths[template]?.[method.toLowerCase()]?.responses?.['200']?.content?.[
        'application/json'
      ]?.schema as { type?: string } | undefined;
      if (refName(schema) === 'Response') return ok({ plugin: plugin[1] });
      return bare(schema?.type === 'array' ? [] : { plugin: plugin[1], ok: true });
    }
    return { status: 501, body: { detail: `the simulator does not implement ${key}` } };
  }

  /** The download directory of a title's media type (the first directory setting serving it). */
  #downloadPath(tmdbId: number): string {
    const t = this.#titles.find((x) => x.tmdbId === tmdbId);
    const type = t?.kind === 'tv' ? '电视剧' : '电影';
    return (
      [...this.#directories]
        .sort((a, b) => a.priority - b.priority)
        .find((d) => d.media_type === type || d.media_type === '')?.download_path ?? '/downloads'
    );
  }

  #titleByMediaId(mediaid: string, kind?: 'movie' | 'tv'): SimTitle | undefined {
    const [source, id] = mediaid.split(':');
    const ofKind = (x: SimTitle) => kind === undefined || x.kind === kind;
    if (source === 'tmdb') {
      const same = this.#titles.filter((x) => x.tmdbId === Number(id) && ofKind(x));
      // Without a type, a TMDB id shared by a movie and a series is taken as the series.
      return same.find((x) => x.kind === 'tv') ?? same[0];
    }
    if (source === 'douban') return this.#titles.find((x) => x.doubanId === id && ofKind(x));
    return undefined;
  }

  #mediaInfo(t: SimTitle): Record<string, unknown> {
    return {
      source: 'themoviedb',
      type: t.kind === 'movie' ? '电影' : '电视剧',
      title: t.localizedTitle,
      en_title: t.title,
      original_title: t.originalTitle,
      year: String(t.year),
      title_year: `${t.localizedTitle} (${t.year})`,
      tmdb_id: t.tmdbId,
      douban_id: t.doubanId,
      media_id: String(t.tmdbId),
      mediaid_prefix: 'tmdb',
      overview: t.overview,
      number_of_seasons: t.seasons ?? 0,
      release_dates: [],
      names: [t.title, t.localizedTitle],
    };
  }

  #context(r: SimRelease, t: SimTitle): Record<string, unknown> {
    return {
      meta_info: {
        org_string: r.title,
        name: t.title,
        year: String(t.year),
        resource_pix: /2160p/.test(r.title) ? '2160p' : /1080p/.test(r.title) ? '1080p' : '720p',
      },
      media_info: this.#mediaInfo(t),
      torrent_info: {
        site: r.siteId,
        site_name: r.site,
        title: r.title,
        description: r.description,
        enclosure: r.enclosure,
        page_url: r.pageUrl,
        size: r.size,
        seeders: r.seeders,
        peers: 3,
        grabs: 100,
        pubdate: '2024-05-01 12:00:00',
        downloadvolumefactor: 1,
        uploadvolumefactor: 1,
        labels: [],
      },
    };
  }

  #transferView(t: SimTransfer): Record<string, unknown> {
    const title = this.#titles.find((x) => x.tmdbId === t.tmdbId);
    return {
      id: t.id,
      src: t.src,
      dest: t.dest,
      mode: t.mode,
      type: title?.kind === 'tv' ? '电视剧' : '电影',
      category: null,
      title: title?.title ?? null,
      year: title ? String(title.year) : null,
      tmdbid: t.tmdbId,
      imdbid: null,
      tvdbid: null,
      doubanid: title?.doubanId ?? null,
      seasons: '',
      episodes: '',
      image: null,
      download_hash: t.downloadHash,
      status: t.status,
      errmsg: t.errmsg,
      date: iso(t.at),
      episode_group: null,
    };
  }
}

/** The value with every `null` object property left out (how a pydantic v1 document's optional fields are checked). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}

/** MoviePilot's media type name (`电影`, `电视剧`) as a kind; `undefined` for none or another. */
function kindOfType(type: string | null): 'movie' | 'tv' | undefined {
  return type === '电影' ? 'movie' : type === '电视剧' ? 'tv' : undefined;
}
