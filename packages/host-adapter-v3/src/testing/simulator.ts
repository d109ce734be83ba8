import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type HostSimulatorFaults, hostSimulatorFaults, takeFault } from '@media-agent/host-adapter-kit';
import { MediaAgentError } from '@media-agent/sdk';
import { v3Operation } from '../contract/catalog';
import { validateV3Request } from '../contract/validate';
import { SIM_DEFAULT_LIBRARY, SIM_RELEASES, SIM_TITLES, type SimRelease, type SimTitle } from './data';
import type { V3ErrorCode } from '../error-codes';

/** A host user of the simulator. @public */
export interface SimUser {
  /** Login name. */
  username: string;
  /** Password. */
  password: string;
  /** Superuser (may call admin-only operations). */
  superuser: boolean;
}

/**
 * Fault switches of the 3.x simulator: the switches both MoviePilot simulators share
 * ({@link HostSimulatorFaults}: `dropAfterAccept`, `fail5xx`, `slowSearchMs`, `metadataUnreachable`,
 * `noIndexerSites`, an operation named by its catalog operation id, e.g. `download.add`) and the 3.x
 * simulator's own. Change them at any time. On 3.x:
 * - `slowSearchMs` delays the resource searches of the sites (`search.torrents`, `search.title`,
 *   `subtitle.search.*`), not the reading of the last results (`search.results`);
 * - `metadataUnreachable`: the network test (`system.network.test`) of TMDB fails, `media.search` and
 *   `search.torrents` answer empty lists, `media.detail` answers `success:false`, `media.recognize`
 *   recognises nothing;
 * - `noIndexerSites`: `site.list` lists no site, and `search.torrents` and `search.title` answer HTTP 200
 *   `{success:false, message:"未搜索到任何资源", data:null}`, as a real 3.x host whose search found no
 *   resource on any site does; `search.results` keeps the previous search's results.
 * @public
 */
export interface SimFaults extends HostSimulatorFaults {
  /**
   * Real-time delay (ms) by operation id between executing a request and answering it: the host has applied
   * it, the client does not know yet (a client killed meanwhile never learns the outcome). Not one-shot.
   */
  answerDelayMs: Record<string, number>;
  /** `download.add` cannot recognise the media and answers `requires_confirmation` unless `allow_unrecognized` is true. */
  requireConfirmation: boolean;
  /** State new `transfer.file` receipts get instead of `completed` (e.g. `accepted`, `retry_wait`, `failed`). */
  transferState: 'completed' | 'accepted' | 'retry_wait' | 'failed' | 'partial';
  /**
   * Answers by operation id that replace the host's own, byte for byte (a 2.x-style bare list, an HTML
   * proxy page, a file, a malformed envelope): `status` (default 200), `contentType` (default
   * `application/json`), `body`. Not one-shot: delete the entry to restore the host's answer.
   */
  rawAnswer: Record<string, { status?: number; contentType?: string; body: string }>;
}

/**
 * All faults off, with the switches given: the one-shot lists and the records are copied, so two
 * simulators made from one options object never share (and consume) each other's faults.
 * @param overrides - switches to set at once
 * @returns a new {@link SimFaults}
 */
function simFaults(overrides: Partial<SimFaults> = {}): SimFaults {
  const { answerDelayMs, requireConfirmation, transferState, rawAnswer, ...shared } = overrides;
  return {
    ...hostSimulatorFaults(shared),
    answerDelayMs: { ...answerDelayMs },
    requireConfirmation: requireConfirmation ?? false,
    transferState: transferState ?? 'completed',
    rawAnswer: { ...rawAnswer },
  };
}

/** A downloader task of the simulator. @public */
export interface SimDownload {
  /** Torrent hash (40 hex). */
  hash: string;
  /** Torrent title. */
  title: string;
  /** Size in bytes. */
  size: number;
  /** Identity `<source>:<id>`, or null for an unrecognised add. */
  media: string | null;
  /** Save path. */
  path: string;
  /** When it was added (ms of the simulator clock). */
  addedAt: number;
  /** History record id. */
  historyId: number;
}

/** A transfer history record of the simulator. @public */
export interface SimTransfer {
  /** Record id. */
  id: number;
  /** Source path. */
  src: string;
  /** Destination path. */
  dest: string;
  /** Identity. */
  media: string;
  /** Title. */
  title: string;
  /** Download hash it organized, when known. */
  download_hash: string | null;
  /** Receipt state. */
  state: 'accepted' | 'retry_wait' | 'completed' | 'failed';
  /** Mode. */
  mode: string;
  /** When (ms). */
  at: number;
}

/** A request the simulator received. @public */
export interface SimRequest {
  /** Method. */
  method: string;
  /** Path with query. */
  url: string;
  /** Operation id matched (or `login.access_token`), undefined when none. */
  operationId: string | undefined;
  /** User the credentials map to, when valid. */
  user: string | undefined;
  /** HTTP status answered (0 when the connection was dropped). */
  status: number;
  /** Parsed JSON body, when any. */
  body: unknown;
}

/** Options of {@link MoviePilotV3Simulator}. @public */
export interface SimOptions {
  /** Time source for downloads and tokens (default `Date.now`); give it the host's `ManualClock` in tests. */
  clock?: { now(): number };
  /** API token (default `sim-api-token-0123456789`). */
  apiKey?: string;
  /** Users (default: `admin`/`admin-pass` superuser and `viewer`/`viewer-pass` not). */
  users?: SimUser[];
  /** Catalog (default {@link SIM_TITLES}). */
  titles?: readonly SimTitle[];
  /** Releases (default {@link SIM_RELEASES}). */
  releases?: readonly SimRelease[];
  /** Library at start, `<source>:<id>` (default {@link SIM_DEFAULT_LIBRARY}). */
  library?: readonly string[];
  /** Downloader phases in ms of the clock: queued, then downloading (defaults 1 000 and 10 000). */
  durations?: { queuedMs?: number; downloadMs?: number; transferMs?: number };
  /** Transfer completed downloads into the library by itself, like MoviePilot's download monitor (default false). */
  autoTransfer?: boolean;
  /** JWT lifetime in ms of the clock (default 1 h). */
  tokenTtlMs?: number;
  /** Faults (all off by default). */
  faults?: Partial<SimFaults>;
  /**
   * The local disk that holds the download and library directories (one volume, so hardlinks work): its size
   * and free bytes at start (defaults 4 TB and 1.2 TB). Downloaded bytes (size × progress of each task) and
   * copies into the library take from it; deletes give back.
   */
  disk?: { totalBytes?: number; freeBytes?: number };
  /** The host's directory settings (`storage.settings`, `download.paths`; default {@link SIM_DIRECTORIES}). */
  directories?: readonly SimDirectory[];
}

/**
 * One directory setting of a MoviePilot 3.x host (a `TransferDirectoryConf`): where downloads of a media type
 * land, which library they are organized into, how, and whether an existing file there is overwritten. @public
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

/** The default directory settings: downloads to `/downloads`, films and series organized into `/media/library/电影` by hardlink, never overwriting. @public */
export const SIM_DIRECTORIES: readonly SimDirectory[] = Object.freeze([
  {
    name: '影视',
    storage: 'local',
    download_path: '/downloads',
    priority: 0,
    media_type: '',
    media_category: '',
    library_storage: 'local',
    library_path: '/media/library/电影',
    transfer_type: 'link',
    overwrite_mode: 'never',
  },
]);

/** A contract violation: a request the real host would reject. @public */
export interface SimViolation {
  /** Method and URL. */
  request: string;
  /** Operation matched, when any. */
  operationId: string | undefined;
  /** Rules broken. */
  violations: string[];
}

/**
 * A request reached the simulator that the real MoviePilot 3.x host would reject. Code
 * `SIM_CONTRACT_VIOLATION`.
 * @public
 */
export class SimContractViolationError extends MediaAgentError<V3ErrorCode> {
  /** @param violations - what was received and which rules it broke */
  constructor(violations: readonly SimViolation[]) {
    super(
      'SIM_CONTRACT_VIOLATION',
      `${violations.length} request(s) broke the MoviePilot V3 contract:\n${violations.map((v) => `${v.request} (${v.operationId ?? 'no operation'}): ${v.violations.join('; ')}`).join('\n')}`,
      {
        violations: violations.map((v) => ({ ...v })),
      },
    );
  }
}

const HOST_USERS: SimUser[] = [
  { username: 'admin', password: 'admin-pass', superuser: true },
  { username: 'viewer', password: 'viewer-pass', superuser: false },
];
const SECRET = 'moviepilot-v3-simulator-secret';

/** The operations that search the indexer sites (what `slowSearchMs` delays). */
const SITE_SEARCHES = new Set(['search.torrents', 'search.title', 'subtitle.search.title', 'subtitle.search.media']);

const key = (source: string, id: string) => `${source}:${id}`;
const hashOf = (enclosure: string) => createHash('sha1').update(enclosure).digest('hex');

/**
 * A MoviePilot 3.x host simulator: a real HTTP server on 127.0.0.1 with state —
 * catalog, releases, downloads that move over the clock, transfer queue and history, library,
 * subscriptions, a superuser and a normal user. Every request is validated against the V3 contract
 * (`validateV3Request`: operation exists, method and path, credentials, paired identity, paging
 * bounds, required fields); a violation is recorded and answered like the host would (HTTP 422/404),
 * and {@link MoviePilotV3Simulator.assertNoViolations} fails the test. Answers use the V3 envelope and
 * paging headers. Faults ({@link SimFaults}, the same switches as the 2.x simulator's and
 * its own): accept then drop, 5xx, expired tokens, slow search, unrecognised media, TMDB unreachable, no
 * indexer sites, raw answers.
 * @public
 */
export class MoviePilotV3Simulator {
  /** API token the host accepts as `X-API-KEY`. */
  readonly apiKey: string;
  /** Fault switches; change them at any time. */
  readonly faults: SimFaults;
  /** Every request received, in order. */
  readonly requests: SimRequest[] = [];
  /** Contract violations received. */
  readonly violations: SimViolation[] = [];
  readonly #clock: { now(): number };
  readonly #users: SimUser[];
  readonly #titles: SimTitle[];
  readonly #releases: SimRelease[];
  readonly #library = new Map<string, { id: string; path: string }>();
  readonly #downloads: SimDownload[] = [];
  readonly #transfers: SimTransfer[] = [];
  readonly #subscriptions: Array<Record<string, unknown> & { id: number }> = [];
  readonly #durations: { queuedMs: number; downloadMs: number; transferMs: number };
  readonly #autoTransfer: boolean;
  readonly #tokenTtlMs: number;
  readonly #disk: { total: number; free: number };
  readonly #directories: SimDirectory[];
  #tokenEpoch = 0;
  #counter = 100;
  #lastSearch: unknown[] = [];
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();
  #url = '';

  /** @param options - clock, credentials, users, catalog, releases, library, durations, faults */
  constructor(options: SimOptions = {}) {
    this.#clock = options.clock ?? { now: () => Date.now() };
    this.apiKey = options.apiKey ?? 'sim-api-token-0123456789';
    this.#users = [...(options.users ?? HOST_USERS)];
    this.#titles = [...(options.titles ?? SIM_TITLES)];
    this.#releases = [...(options.releases ?? SIM_RELEASES)];
    for (const m of options.library ?? SIM_DEFAULT_LIBRARY)
      this.#library.set(m, { id: `item-${m}`, path: `/media/library/${m}` });
    this.#durations = {
      queuedMs: options.durations?.queuedMs ?? 1_000,
      downloadMs: options.durations?.downloadMs ?? 10_000,
      transferMs: options.durations?.transferMs ?? 2_000,
    };
    this.#autoTransfer = options.autoTransfer ?? false;
    this.#tokenTtlMs = options.tokenTtlMs ?? 3_600_000;
    this.faults = simFaults(options.faults);
    this.#disk = { total: options.disk?.totalBytes ?? 4e12, free: options.disk?.freeBytes ?? 1.2e12 };
    this.#directories = (options.directories ?? SIM_DIRECTORIES).map((d) => ({ ...d }));
  }

  /** Base URL once started, e.g. `http://127.0.0.1:40123`. */
  get url(): string {
    if (!this.#url) throw new MediaAgentError<V3ErrorCode>('SIM_NOT_STARTED', 'the simulator is not started');
    return this.#url;
  }

  /** Starts listening on 127.0.0.1 on a free port. @returns the base URL */
  async start(): Promise<string> {
    const server = createServer((req, res) => void this.#handle(req, res));
    server.on('connection', (s) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#server = server;
    this.#url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.#url;
  }

  /** Stops the server and closes open connections. */
  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }

  /** Invalidates every JWT issued so far (the next call with one gets 401). */
  expireTokens(): void {
    this.#tokenEpoch++;
  }

  /**
   * Fails the test when any request broke the contract.
   * @throws {@link SimContractViolationError} listing them
   */
  assertNoViolations(): void {
    if (this.violations.length > 0) throw new SimContractViolationError(this.violations);
  }

  /** Requests for one operation. @param operationId - e.g. `download.add` */
  requestsFor(operationId: string): SimRequest[] {
    return this.requests.filter((r) => r.operationId === operationId);
  }

  /** Downloader tasks with their status now. */
  downloads(): Array<SimDownload & { state: 'queued' | 'downloading' | 'completed'; progress: number }> {
    this.#tick();
    return this.#downloads.map((d) => ({ ...d, ...this.#phase(d) }));
  }

  /** Transfer history. */
  transfers(): SimTransfer[] {
    this.#tick();
    return this.#transfers.map((t) => ({ ...t }));
  }

  /** Whether `<source>:<id>` is in the library. @param media - e.g. `themoviedb:693134` */
  inLibrary(media: string): boolean {
    this.#tick();
    return this.#library.has(media);
  }

  /** Subscriptions. */
  subscriptions(): Array<Record<string, unknown>> {
    return this.#subscriptions.map((s) => ({ ...s }));
  }

  /**
   * Free bytes of the local disk now: its free bytes at start, less what the downloader's tasks hold
   * (size × progress) and what copies into the library wrote.
   */
  freeBytes(): number {
    this.#tick();
    const held = this.#downloads.reduce((n, d) => n + Math.round(d.size * this.#fraction(d)), 0);
    const copied = this.#transfers
      .filter((t) => t.state === 'completed' && t.mode === 'copy')
      .reduce((n, t) => n + (this.#downloads.find((d) => d.hash === t.download_hash)?.size ?? 0), 0);
    return this.#disk.free - held - copied;
  }

  /** Puts a title's files at its library path, as an earlier import or a person would have (`library.exists` then finds it). @param media - e.g. `themoviedb:693134` */
  placeInLibrary(media: string): void {
    this.#library.set(media, { id: `item-${media}`, path: this.#libraryDir(media) });
  }

  /** The directory setting serving a title's media type (the first by priority). */
  #directoryFor(media: string | null): SimDirectory | undefined {
    const type = this.#title(media)?.type ?? '';
    return [...this.#directories]
      .sort((a, b) => a.priority - b.priority)
      .find((d) => !d.media_type || d.media_type === type);
  }

  /** Where a title is organized to. */
  #libraryDir(media: string): string {
    const t = this.#title(media);
    return `${this.#directoryFor(media)?.library_path ?? '/media/library/电影'}/${t?.title ?? media} (${t?.year ?? ''})`;
  }

  /** How much of a task is downloaded (0–1). */
  #fraction(d: SimDownload): number {
    const t = this.#clock.now() - d.addedAt - this.#durations.queuedMs;
    return t <= 0 ? 0 : Math.min(1, t / this.#durations.downloadMs);
  }

  // ── request handling ──────────────────────────────────────────────────────────────────────────

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim');
    const raw = await new Promise<string>((resolve) => {
      let s = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (s += c));
      req.on('end', () => resolve(s));
    });
    const contentType = String(req.headers['content-type'] ?? '');
    let body: unknown;
    const record: SimRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      operationId: undefined,
      user: undefined,
      status: 0,
      body: undefined,
    };
    this.requests.push(record);
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(payload));
    };
    const envelope = (
      status: number,
      success: boolean,
      message: string,
      data: unknown,
      headers: Record<string, string> = {},
    ) => send(status, { success, message, data }, headers);
    if (raw) {
      if (contentType.includes('application/json')) {
        try {
          body = JSON.parse(raw);
        } catch {
          this.#violate(record, undefined, ['body is not JSON']);
          return envelope(422, false, 'invalid JSON', [
            { location: ['body'], message: 'invalid JSON', error_type: 'json_invalid' },
          ]);
        }
      } else body = raw;
      if (contentType.includes('json')) record.body = body;
    }
    const check = validateV3Request({
      method: record.method,
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: contentType.includes('json') ? body : undefined,
    });
    record.operationId = check.operationId;
    if (check.operationId === 'login.access_token')
      return this.#login(typeof body === 'string' ? body : '', record, send);
    if (check.violations.length > 0) {
      this.#violate(record, check.operationId, check.violations);
      if (!check.operationId) return envelope(404, false, 'Not Found', null);
      return envelope(
        422,
        false,
        'request validation failed',
        check.violations.map((m) => ({ location: ['request'], message: m, error_type: 'value_error' })),
      );
    }
    const op = v3Operation(check.operationId!);
    // auth
    const user = this.#authenticate(req, url);
    if (user === 'missing') return envelope(401, false, 'Not authenticated', null, { 'www-authenticate': 'Bearer' });
    if (user === 'bad-key' || user === 'expired')
      return envelope(
        user === 'expired' ? 401 : 401,
        false,
        user === 'expired' ? 'token expired' : 'invalid API key',
        null,
      );
    if (user === 'bad-token') return envelope(403, false, 'Could not validate credentials', null);
    record.user = user.username;
    if (op.admin_only && !user.superuser) return envelope(400, false, '用户权限不足', null);
    if (takeFault(this.faults.fail5xx, [op.operation_id])) return envelope(500, false, 'Internal Server Error', null);
    const replaced = this.faults.rawAnswer[op.operation_id];
    if (replaced) {
      record.status = replaced.status ?? 200;
      res.writeHead(record.status, { 'content-type': replaced.contentType ?? 'application/json' });
      res.end(replaced.body);
      return;
    }
    if (SITE_SEARCHES.has(op.operation_id) && this.faults.slowSearchMs > 0)
      await new Promise((r) => setTimeout(r, this.faults.slowSearchMs));
    this.#tick();
    let answer: {
      status?: number;
      success?: boolean;
      message?: string;
      data: unknown;
      headers?: Record<string, string>;
    };
    try {
      answer = this.#operate(op.operation_id, check.params, url.searchParams, (body ?? {}) as Record<string, unknown>);
    } catch (error) {
      answer = { status: 500, success: false, message: (error as Error).message, data: null };
    }
    const hold = this.faults.answerDelayMs[op.operation_id];
    if (hold) await new Promise((r) => setTimeout(r, hold));
    if (takeFault(this.faults.dropAfterAccept, [op.operation_id])) {
      record.status = 0;
      req.socket.destroy();
      return;
    }
    envelope(answer.status ?? 200, answer.success ?? true, answer.message ?? '', answer.data, answer.headers);
  }

  #violate(record: SimRequest, operationId: string | undefined, violations: string[]): void {
    this.violations.push({ request: `${record.method} ${record.url}`, operationId, violations });
  }

  #login(form: string, record: SimRequest, send: (status: number, payload: unknown) => void): void {
    const p = new URLSearchParams(form);
    const user = this.#users.find((u) => u.username === p.get('username') && u.password === p.get('password'));
    if (!user) {
      send(401, { success: false, message: '用户名或密码不正确', data: null });
      return;
    }
    record.user = user.username;
    const claims = {
      sub: user.username,
      username: user.username,
      super_user: user.superuser,
      level: 2,
      purpose: 'authentication',
      exp: this.#clock.now() + this.#tokenTtlMs,
      epoch: this.#tokenEpoch,
    };
    const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
    const token = `${unsigned}.${createHmac('sha256', SECRET).update(unsigned).digest('base64url')}`;
    send(200, {
      access_token: token,
      token_type: 'bearer',
      super_user: user.superuser,
      user_name: user.username,
      level: 2,
    });
  }

  #authenticate(req: IncomingMessage, url: URL): SimUser | 'missing' | 'bad-key' | 'bad-token' | 'expired' {
    const apiKey =
      (req.headers['x-api-key'] as string | undefined) ??
      url.searchParams.get('apikey') ??
      url.searchParams.get('token');
    const admin = this.#users.find((u) => u.superuser)!;
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    if (bearer) {
      const [h, c, s] = bearer.split('.');
      if (!h || !c || !s || createHmac('sha256', SECRET).update(`${h}.${c}`).digest('base64url') !== s)
        return 'bad-token';
      const claims = JSON.parse(Buffer.from(c, 'base64url').toString('utf8')) as {
        username: string;
        exp: number;
        epoch: number;
      };
      if (claims.exp <= this.#clock.now() || claims.epoch !== this.#tokenEpoch) return 'expired';
      return this.#users.find((u) => u.username === claims.username) ?? 'bad-token';
    }
    if (apiKey !== undefined) return apiKey === this.apiKey ? admin : 'bad-key';
    return 'missing';
  }

  // ── state ─────────────────────────────────────────────────────────────────────────────────────

  #phase(d: SimDownload): { state: 'queued' | 'downloading' | 'completed'; progress: number } {
    const t = this.#clock.now() - d.addedAt;
    if (t < this.#durations.queuedMs) return { state: 'queued', progress: 0 };
    const p = Math.min(1, (t - this.#durations.queuedMs) / this.#durations.downloadMs);
    return p >= 1
      ? { state: 'completed', progress: 100 }
      : { state: 'downloading', progress: Math.round(p * 1000) / 10 };
  }

  /** Moves time-driven state: background transfers finish, completed downloads are auto-transferred. */
  #tick(): void {
    const now = this.#clock.now();
    for (const t of this.#transfers) {
      if (t.state === 'accepted' && now - t.at >= this.#durations.transferMs) {
        t.state = 'completed';
        this.#library.set(t.media, { id: `item-${t.media}`, path: t.dest });
      }
    }
    if (!this.#autoTransfer) return;
    for (const d of this.#downloads) {
      if (d.media && this.#phase(d).state === 'completed' && !this.#transfers.some((t) => t.download_hash === d.hash))
        this.#transfer(d.path, d.media, d.hash, 'completed', 'link');
    }
  }

  #title(media: string | null): SimTitle | undefined {
    return this.#titles.find((t) => key(t.media_source, t.media_id) === media);
  }

  #mediaInfo(t: SimTitle): Record<string, unknown> {
    return {
      media_source: t.media_source,
      media_id: t.media_id,
      tmdb_id: t.media_source === 'themoviedb' ? Number(t.media_id) : null,
      title: t.title,
      original_title: t.original_title,
      cn_title: t.cn_title,
      year: String(t.year),
      type: t.type,
      overview: t.overview,
    };
  }

  #context(r: SimRelease): Record<string, unknown> {
    const t = this.#title(r.media);
    return {
      meta_info: {
        name: t?.title ?? r.title,
        year: t ? String(t.year) : null,
        resource_pix: r.resource_pix,
        resource_type: r.resource_type,
        video_encode: r.video_encode,
      },
      media_info: t ? this.#mediaInfo(t) : null,
      torrent_info: {
        title: r.title,
        description: r.description,
        enclosure: r.enclosure,
        page_url: r.enclosure.replace('/download/', '/details/'),
        site_name: r.site_name,
        size: r.size,
        seeders: r.seeders,
        peers: 3,
        pubdate: r.pubdate,
        downloadvolumefactor: 1,
        uploadvolumefactor: 1,
      },
    };
  }

  #transfer(src: string, media: string, hash: string | null, state: SimTransfer['state'], mode: string): SimTransfer {
    const t = this.#title(media);
    const dest = this.#libraryDir(media);
    const rec: SimTransfer = {
      id: ++this.#counter,
      src,
      dest,
      media,
      title: t?.title ?? media,
      download_hash: hash,
      state,
      mode,
      at: this.#clock.now(),
    };
    this.#transfers.push(rec);
    if (state === 'completed') this.#library.set(media, { id: `item-${media}`, path: dest });
    return rec;
  }

  #downloadView(d: SimDownload): Record<string, unknown> {
    const t = this.#title(d.media);
    const ph = this.#phase(d);
    return {
      hash: d.hash,
      title: d.title,
      name: t?.title ?? d.title,
      year: t ? String(t.year) : '',
      season_episode: '',
      size: d.size,
      progress: ph.progress,
      state: ph.state,
      dlspeed: ph.state === 'downloading' ? '10.0M' : '0',
      upspeed: '0',
      media: t ? this.#mediaInfo(t) : {},
      left_time: '',
    };
  }

  #historyView(d: SimDownload): Record<string, unknown> {
    const [source, id] = d.media ? d.media.split(':') : [null, null];
    return {
      id: d.historyId,
      path: d.path,
      type: this.#title(d.media)?.type ?? '',
      title: this.#title(d.media)?.title ?? d.title,
      media_source: source,
      media_id: id,
      download_hash: d.hash,
      torrent_name: d.title,
      torrent_site: 'PTSite',
      date: new Date(d.addedAt).toISOString(),
    };
  }

  /** Answers one validated, authorised operation. */
  #operate(
    operationId: string,
    params: Record<string, string>,
    q: URLSearchParams,
    body: Record<string, unknown>,
  ): { status?: number; success?: boolean; message?: string; data: unknown; headers?: Record<string, string> } {
    const list = (items: unknown[], exactTotal = true) => {
      const page = q.get('page');
      const count = q.get('count');
      if (page === null && count === null) return { data: items, headers: { 'x-result-count': String(items.length) } };
      const p = Number(page ?? 1);
      const c = Number(count ?? 50);
      const window = items.slice((p - 1) * c, p * c);
      const headers: Record<string, string> = {
        'x-result-count': String(window.length),
        'x-page': String(p),
        'x-page-size': String(c),
      };
      if (exactTotal) headers['x-total-count'] = String(items.length);
      return { data: window, headers };
    };
    const offline = this.faults.metadataUnreachable;
    // A 3.x host's resource search that found nothing on any site (no active site, or none has it).
    const noResource = { success: false, message: '未搜索到任何资源', data: null };
    switch (operationId) {
      case 'system.network.test': {
        const target = q.get('url') ?? '';
        if (/themoviedb\.org/.test(target) && offline) return { success: false, message: '网络连接失败！', data: null };
        return { data: { time: 120 } };
      }
      case 'media.search': {
        if (offline) return { data: [], headers: { 'x-result-count': '0' } };
        const title = (q.get('title') ?? '').toLowerCase();
        const found = this.#titles.filter((t) =>
          [t.title, t.original_title, t.cn_title ?? ''].some(
            (n) => n && (n.toLowerCase().includes(title) || title.includes(n.toLowerCase())),
          ),
        );
        const c = Number(q.get('count') ?? 8);
        const p = Number(q.get('page') ?? 1);
        const items = found.slice((p - 1) * c, p * c).map((t) => this.#mediaInfo(t));
        return { data: items, headers: { 'x-result-count': String(items.length) } };
      }
      case 'media.detail': {
        const t = offline ? undefined : this.#title(key(q.get('media_source')!, params.media_id!));
        return t ? { data: this.#mediaInfo(t) } : { success: false, message: '未识别到媒体信息', data: null };
      }
      case 'media.recognize': {
        const title = q.get('title') ?? '';
        const r = this.#releases.find((x) => x.title === title);
        const t = offline
          ? undefined
          : r
            ? this.#title(r.media)
            : this.#titles.find((x) => title.toLowerCase().includes(x.title.toLowerCase()));
        return { data: { meta_info: { name: title }, media_info: t ? this.#mediaInfo(t) : null } };
      }
      case 'search.torrents': {
        if (this.faults.noIndexerSites) return noResource;
        const media = key(q.get('media_source')!, params.media_id!);
        this.#lastSearch = offline ? [] : this.#releases.filter((r) => r.media === media).map((r) => this.#context(r));
        return list(this.#lastSearch);
      }
      case 'search.results':
        return list(this.#lastSearch);
      case 'search.title':
        if (this.faults.noIndexerSites) return noResource;
        return list([]);
      case 'library.exists': {
        const s = q.get('media_source');
        const item = s ? this.#library.get(key(s, q.get('media_id')!)) : undefined;
        return { data: { item: item ? { id: item.id } : {} } };
      }
      case 'download.add': {
        const torrent = body.torrent_in as Record<string, unknown>;
        const media = body.media_source
          ? key(String(body.media_source), String(body.media_id))
          : (this.#releases.find((r) => r.enclosure === torrent.enclosure)?.media ?? null);
        if ((this.faults.requireConfirmation || media === null) && body.allow_unrecognized !== true)
          return { success: false, message: '无法识别媒体信息', data: { requires_confirmation: true } };
        const hash = hashOf(String(torrent.enclosure));
        const d: SimDownload = {
          hash,
          title: String(torrent.title),
          size: Number(torrent.size ?? 0),
          media,
          path: `${typeof body.save_path === 'string' ? body.save_path.replace(/^[a-z0-9_-]+:/i, '') : (this.#directoryFor(media)?.download_path ?? '/downloads')}/${String(torrent.title)}`,
          addedAt: this.#clock.now(),
          historyId: ++this.#counter,
        };
        this.#downloads.push(d);
        return { data: { download_id: hash } };
      }
      case 'download.tasks.active': {
        const name = q.get('name');
        return list(this.#downloads.filter((d) => !name || d.title.includes(name)).map((d) => this.#downloadView(d)));
      }
      case 'download.history.list':
        return list([...this.#downloads].reverse().map((d) => this.#historyView(d)));
      case 'transfer.history': {
        const title = q.get('title');
        const p = Number(q.get('page') ?? 1);
        const c = Number(q.get('count') ?? 30);
        const all = [...this.#transfers]
          .reverse()
          .filter((t) => !title || t.title.includes(title) || t.src.includes(title));
        const view = all.slice((p - 1) * c, p * c).map((t) => {
          const [source, id] = t.media.split(':');
          return {
            id: t.id,
            src: t.src,
            dest: t.dest,
            mode: t.mode,
            title: t.title,
            media_source: source,
            media_id: id,
            download_hash: t.download_hash,
            status: t.state === 'completed',
            state: t.state,
            errmsg: t.state === 'failed' ? 'transfer failed' : '',
            date: new Date(t.at).toISOString(),
          };
        });
        return { data: { list: view, total: all.length } };
      }
      case 'transfer.queue':
        return list(
          this.#transfers
            .filter((t) => t.state === 'accepted' || t.state === 'retry_wait')
            .map((t) => ({ id: t.id, src: t.src, state: t.state })),
        );
      case 'transfer.file': {
        const items = [body.fileitem, ...((body.fileitems as unknown[]) ?? [])].filter(Boolean) as Array<{
          path: string;
        }>;
        const media = body.media_source
          ? key(String(body.media_source), String(body.media_id))
          : (this.#downloads.find((d) => d.path === items[0]?.path)?.media ?? null);
        if (!media) return { success: false, message: '未识别到媒体信息', data: { items: [] } };
        const dest = this.#libraryDir(media);
        if (body.preview === true)
          return {
            data: {
              summary: { total: items.length },
              items: items.map((i) => ({
                source: i.path,
                target: `${dest}/${i.path.split('/').pop()}.mkv`,
                target_dir: dest,
                state: 'preview',
              })),
              message: 'preview',
            },
          };
        const receipts = items.map((i, n) => {
          const state =
            this.faults.transferState === 'partial' ? (n === 0 ? 'accepted' : 'failed') : this.faults.transferState;
          const download = this.#downloads.find((d) => d.path === i.path);
          const rec = this.#transfer(
            i.path,
            media,
            download?.hash ?? null,
            state,
            String(body.transfer_type ?? 'link'),
          );
          return {
            source: i.path,
            target: `${rec.dest}/${i.path.split('/').pop()}.mkv`,
            target_dir: rec.dest,
            success: state === 'completed',
            message: state === 'failed' ? 'transfer failed' : '',
            failure_stage: state === 'failed' ? 'transfer' : null,
            recovery_action: state === 'retry_wait' ? 'retry' : null,
            overwrite_skipped: false,
            state,
            history_id: rec.id,
          };
        });
        const ok = receipts.every((r) => r.state !== 'failed');
        return { success: ok, message: ok ? '' : 'some items failed', data: { items: receipts } };
      }
      case 'download.paths':
        // The download directories by priority, with the `<storage>:<path>` URI download.add takes.
        return list(
          [...this.#directories]
            .sort((a, b) => a.priority - b.priority)
            .map((d, i) => ({
              name: d.name,
              storage: d.storage,
              download_path: d.download_path,
              save_path: `${d.storage}:${d.download_path}`,
              priority: d.priority,
              media_type: d.media_type,
              media_category: d.media_category,
              media_category_id: i,
            })),
        );
      case 'storage.settings':
        return { data: this.#directories.map((d) => ({ ...d })) };
      case 'dashboard.downloader':
        return {
          data: {
            download_speed: this.#downloads.some((d) => this.#phase(d).state === 'downloading') ? 10e6 : 0,
            upload_speed: 0,
            download_size: this.#downloads.reduce((n, d) => n + Math.round(d.size * this.#fraction(d)), 0),
            upload_size: 0,
            free_space: this.freeBytes(),
          },
        };
      case 'dashboard.storage':
        // The local library directories' volume: total and used bytes.
        return { data: { total_storage: this.#disk.total, used_storage: this.#disk.total - this.freeBytes() } };
      case 'transfer.history.delete': {
        // deletedest deletes the library files, deletesrc the source files (the download), then the record goes.
        const at = this.#transfers.findIndex((t) => t.id === Number(body.id));
        if (at < 0) return { status: 404, success: false, message: '记录不存在', data: null };
        const rec = this.#transfers[at]!;
        this.#transfers.splice(at, 1);
        if (q.get('deletedest') === 'true' && this.#library.get(rec.media)?.path === rec.dest)
          this.#library.delete(rec.media);
        if (q.get('deletesrc') === 'true') {
          const d = this.#downloads.findIndex((x) => x.hash === rec.download_hash);
          if (d >= 0) this.#downloads.splice(d, 1);
        }
        return { data: null };
      }
      case 'transfer.history.redo': {
        // Organizes the record's source again, as the transfer would now go (the fault switch decides).
        const rec = this.#transfers.find((t) => String(t.id) === params.history_id);
        if (!rec) return { status: 404, success: false, message: '转移记录不存在', data: null };
        rec.state = this.faults.transferState === 'partial' ? 'completed' : this.faults.transferState;
        rec.at = this.#clock.now();
        if (rec.state === 'completed') this.#library.set(rec.media, { id: `item-${rec.media}`, path: rec.dest });
        return { data: { history_id: rec.id, state: rec.state } };
      }
      case 'subscription.add': {
        if (!body.media_source !== !body.media_id)
          return { success: false, message: 'media_source and media_id must be paired', data: null };
        const existing = this.#subscriptions.find(
          (s) => s.media_source === body.media_source && s.media_id === body.media_id,
        );
        if (existing) return { success: true, message: '已存在', data: { id: existing.id } };
        const sub = { ...body, id: ++this.#counter, state: 'R' };
        this.#subscriptions.push(sub);
        return { data: { id: sub.id } };
      }
      case 'subscription.list':
        return list(this.#subscriptions);
      case 'subscription.get': {
        const s = this.#subscriptions.find((x) => String(x.id) === params.subscribe_id);
        return s ? { data: s } : { status: 404, success: false, message: '订阅不存在', data: null };
      }
      case 'subscription.find': {
        const s = this.#subscriptions.find(
          (x) => x.media_source === q.get('media_source') && String(x.media_id) === params.media_id,
        );
        return { data: s ?? {} };
      }
      case 'subscription.delete': {
        const i = this.#subscriptions.findIndex((x) => String(x.id) === params.subscribe_id);
        if (i >= 0) this.#subscriptions.splice(i, 1);
        return { data: null };
      }
      case 'subscription.delete_by_media': {
        const i = this.#subscriptions.findIndex(
          (x) => x.media_source === q.get('media_source') && String(x.media_id) === params.media_id,
        );
        if (i >= 0) this.#subscriptions.splice(i, 1);
        return { data: null };
      }
      case 'site.list': {
        // The indexer sites the releases come from, all active; none when the host has no usable site.
        const status = q.get('status') ?? 'all';
        const name = q.get('name');
        const sites = this.faults.noIndexerSites ? [] : [...new Set(this.#releases.map((r) => r.site_name))];
        return list(
          sites
            .map((site, n) => ({
              id: n + 1,
              name: site,
              domain: `${site.toLowerCase()}.example`,
              url: `https://${site.toLowerCase()}.example/`,
              pri: n + 1,
              public: 0,
              is_active: true,
            }))
            .filter((x) => status !== 'inactive' && (!name || x.name.includes(name))),
        );
      }
      case 'transfer.manual_reviews':
        return { data: { items: [], total: 0 } };
      default: {
        const op = v3Operation(operationId);
        if (op.method === 'GET') return list([]);
        return { data: null };
      }
    }
  }
}
