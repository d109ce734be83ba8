import {
  createAgentContainer,
  resolvePort,
  Tokens,
  type AgentContainer,
  type AgentHost,
  type AgentOptions,
  type Capability,
  type GoalFacts,
} from '@media-agent/sdk';
import { PolicyAuthorizer } from '@media-agent/sdk/authorization';
import { MemoryStorage } from '@media-agent/sdk/storage';
import { registerStandardCapabilities } from '@media-agent/sdk/media';
import { V2SuperuserAuthorizer, type SuperuserResolver } from './authorizer';
import { V2HostView } from './host-view';
import { planInspectCapability } from './plan-inspect';
import { v2StandardCapabilities } from './standard';
import { subscriptionCapabilities } from './subscriptions';
import { V2HostClient, type V2ClientOptions, type V2Credentials, type V2Timeouts } from './client';
import {
  HostAuthError,
  HostGenerationError,
  HostHttpError,
  HostOperationError,
  HostProtocolError,
  HostVersionError,
} from './errors';
import { compareV2Versions, parseV2Version, V2_MIN_VERSION, type V2HostContract } from './host-contract';
import { V2_OPERATIONS, type V2Operation, type V2OperationId } from './operations';
import { V2GoalFacts } from './facts';
import {
  discoverV2PluginCapabilities,
  V2PluginDefinitionError,
  V2PluginHost,
  type V2PluginDeclaration,
} from './plugins';
import { V2CapabilityRegistry } from './registry';
import { startAfter } from './start-check';
import {
  adapterHostOptions,
  closeHostAndClient,
  metadataUnreachableWarning,
  sdkCapabilityRegistry,
} from '@media-agent/host-adapter-kit';
import { V2Tracking } from './tracking';
import { v2DecisionSubjects } from './decisions';
import { organizeRevertCapability } from './organize-revert';
import { V2_ORGANIZE_REVERT } from './standard/organize';
import { policyRevertCapability } from './standard/policy';

/**
 * Capabilities that send a MoviePilot 2.x superuser-only request (`contracts/notes-v2.md` §3: `POST /transfer/manual`,
 * `DELETE /history/transfer`);
 * they are denied before any request to actors that are not host superusers.
 * @public
 */
export const V2_ADMIN_ONLY_CAPABILITIES: readonly string[] = Object.freeze(['organize.execute', V2_ORGANIZE_REVERT]);

/** Options of {@link createV2AgentHost}: the SDK's `AgentOptions` plus the host connection. @public */
export interface V2AgentHostOptions extends Omit<AgentOptions, 'goalFacts'> {
  /** Base URL of the MoviePilot 2.x host, e.g. `http://nas:3000`. */
  url: string;
  /**
   * API token, user name and password (JWT), or both: each request carries the credential its route
   * accepts in the host's OpenAPI document (v2.5.x: standard routes the login only, plugin and `/api/v3`
   * routes the API token only). One of `auth` or the deprecated `credentials` is required.
   */
  auth?: V2Credentials;
  /** The former name of `auth`. @deprecated Renamed `auth` (the 3.x adapter's name); kept for one release. */
  credentials?: V2Credentials;
  /** Timeouts (ms) per operation; see {@link V2Timeouts}. */
  timeouts?: V2Timeouts;
  /** Extra attempts for reads after a transport error or a 502/503/504 (default 2). Writes are never retried. */
  readRetries?: number;
  /** Connections in the undici pool (default 8). */
  connections?: number;
  /** The former grouping of the client options. @deprecated Use the top-level `timeouts`, `readRetries` and `connections`; kept for one release. */
  client?: Omit<V2ClientOptions, 'url' | 'credentials' | 'auth'>;
  /**
   * Which actors are MoviePilot superusers: a list of actor ids (default `['user:admin']`) or a
   * function. Agent actors count as the actor that started their run. Unless `identity` is given, the
   * `user:*` actors among them are also the SDK's administrators (they decide approvals, change grants
   * and see every user's runs) and every other person is an ordinary user. Key users by their stable
   * MoviePilot user id, never by name.
   */
  superusers?: readonly string[] | SuperuserResolver;
  /**
   * Plugin APIs as capabilities (default on): `false` to skip reading the host's OpenAPI document, or
   * plugin authors' `declarations` of discovered routes by capability id, and plugin `capabilities`
   * made by `defineV2PluginCapability` (registered by `host.start()` after discovery, so they may
   * declare any route of the host's document; with `false`, only `V2_OPERATIONS` routes, registered at once).
   */
  plugins?:
    | false
    | { declarations?: Record<string, V2PluginDeclaration>; capabilities?: readonly Capability<any, any>[] };
}

/** What {@link createV2AgentHost} returns. @public */
export interface V2AgentHost {
  /**
   * The SDK host. Its `start()` first checks the MoviePilot host (see {@link createV2AgentHost}) and
   * throws `HOST_UNREACHABLE`, `HOST_AUTH_FAILED`, `HOST_CONTRACT_INVALID`, `HOST_GENERATION_MISMATCH`
   * (a 3.x host) or `HOST_VERSION_UNSUPPORTED` before anything runs; a failed check is run again by the next `start()`.
   */
  host: AgentHost;
  /** The dependency-injection container it was resolved from. */
  container: AgentContainer;
  /**
   * The host client, with the adapter's own credentials (an API token is a host superuser). For the
   * host application only: never hand it to plugin code — plugin capabilities
   * (`defineV2PluginCapability`) get a client scoped to their declared routes and the invoking actor.
   */
  client: V2HostClient;
  /** The `GoalFacts` the runtime uses. */
  goalFacts: GoalFacts;
  /** Ids of the plugin capabilities registered (discovered routes, then `plugins.capabilities`; filled by `host.start()`). */
  pluginCapabilities: string[];
  /** What the adapter learned about the host at `host.start()`: version, contract, metadata connectivity. */
  status: V2HostStatus;
  /** Stops the SDK host and closes the client's pool. */
  close(): Promise<void>;
}

/**
 * What {@link createV2AgentHost} learned about a MoviePilot 2.x host.
 * @public
 */
export interface V2HostStatus {
  /** The host's version (`v2.5.6`), or `null` when no route the credentials open reports it. */
  version: string | null;
  /** Where the version came from (`GET /api/v3/system/status`, `GET /api/v1/system/env`), or `null`. */
  versionSource: string | null;
  /** Operations (method + path) of the host's OpenAPI document. */
  operations: number;
  /** Adapter operations ({@link V2_OPERATIONS} ids) this host does not serve: calls to them are `HOST_OPERATION_UNSUPPORTED`. */
  unsupported: string[];
  /**
   * Whether the host can reach its metadata source (TMDB), from its own connectivity check
   * (`GET /api/v1/system/nettest`) at `host.start()`: `unknown` before, or when the check cannot run.
   */
  metadata: 'reachable' | 'unreachable' | 'unknown';
  /** The host's message of a failed connectivity check. */
  metadataMessage: string | null;
}

/** The URL MoviePilot's own network test uses for TMDB (the host substitutes its TMDB API key). */
const TMDB_TEST_URL = 'https://api.themoviedb.org/3/movie/550?api_key={TMDBAPIKEY}';

/** The operations every standard capability sends: a configuration that opens none of them cannot work. */
const CORE_OPERATIONS: readonly V2OperationId[] = ['media.search', 'search.media', 'download.add', 'download.list'];

/**
 * Reads the host's version from the first route the credentials open: `GET /api/v3/system/status`
 * (API token; `version`; its answer holds no secret), then `GET /api/v1/system/env` (a superuser login;
 * `data.VERSION`). The env answer also holds the host's secrets (`API_TOKEN`, `TMDB_API_KEY`,
 * `COOKIECLOUD_PASSWORD`, `GITHUB_TOKEN`, …), so the client reduces it to the version string the moment
 * it is parsed (`select`): nothing else of it is kept, logged, stored or shown. `GET /api/v1/system/global`
 * is not used: it reports the web UI's version (`FRONTEND_VERSION`), not the server's. The first route is
 * also the API token's check: a 401 there (`API_KEY校验不通过`) is `HOST_AUTH_FAILED`.
 */
async function detectVersion(
  client: V2HostClient,
  contract: V2HostContract,
): Promise<{ version: string | null; source: string | null }> {
  const only = (key: string) => (b: unknown) => {
    const v = b && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>)[key] : undefined;
    return typeof v === 'string' ? v : undefined;
  };
  for (const [id, select] of [
    ['system.status', only('version')],
    ['system.env', only('VERSION')],
  ] as const) {
    const op = V2_OPERATIONS[id] as V2Operation;
    const security = contract.security(op.method, op.path);
    if (!security || !client.accepts(security)) continue;
    try {
      const v = await client.call<string | undefined>(id, { select });
      if (typeof v === 'string' && parseV2Version(v)) return { version: v, source: `${op.method} ${op.path}` };
    } catch (error) {
      // The host refused the credential itself (401 wrong API token, 403 bad login token): say so now.
      if (error instanceof HostAuthError && typeof error.details?.status === 'number') throw error;
      if (
        error instanceof HostHttpError ||
        error instanceof HostOperationError ||
        error instanceof HostAuthError ||
        error instanceof HostProtocolError
      )
        continue; // not a superuser, or the route answers otherwise
      throw error;
    }
  }
  return { version: null, source: null };
}

/**
 * Builds an SDK host for one MoviePilot 2.x instance: the SDK defaults (storage, ledger, registry,
 * `PolicyAuthorizer`) composed with the V2 client, the 15 standard capabilities, subscription
 * capabilities, the host's plugin APIs as `plugin.<PluginID>.<path>` capabilities, the read-only
 * verifiers, `GoalFacts` from the host, and an authorizer that denies admin-only capabilities to
 * actors that are not host superusers before any request. Plugin capabilities get a scoped client per
 * invocation and are authorized like the routes they declared (see `defineV2PluginCapability`).
 *
 * Building sends nothing. `host.start()` checks the host before anything runs: it reads the host's
 * OpenAPI document (each route's authentication and existence come from it), checks that the
 * credentials open the standard routes, logs in when a login is configured, checks the API token and
 * the version on `GET /api/v3/system/status`, registers the plugin capabilities, and runs the host's
 * own connectivity check once (TMDB reachable?, see {@link V2HostStatus}).
 *
 * @example
 * ```ts
 * const v2 = createV2AgentHost({ url: 'http://nas:3000', auth: { apiKey: process.env.MP_API_TOKEN! }, model });
 * await v2.host.start(); // HOST_UNREACHABLE, HOST_AUTH_FAILED, … here
 * ```
 *
 * @param options - see {@link V2AgentHostOptions}
 * @returns the host and its parts; call `host.start()` next
 * @throws `HOST_OPTIONS_INVALID` for a bad URL or missing credentials; `OPTIONS_INVALID` from the SDK.
 *   `host.start()` throws `HOST_UNREACHABLE` when the host cannot be reached; `HOST_CONTRACT_INVALID`
 *   when its OpenAPI document cannot be fetched or parsed; `HOST_AUTH_FAILED` when the login or the API
 *   token is refused (HTTP 401/403), or when the credentials open none of the standard routes on this
 *   host (e.g. only an API token on v2.5.x, whose standard routes accept only a login — refused before
 *   any request, naming the credential to add); `HOST_GENERATION_MISMATCH` ({@link HostGenerationError})
 *   for a MoviePilot 3.x host (its version, or its 3.x envelope where a 2.x host serves its OpenAPI document);
 *   `HOST_VERSION_UNSUPPORTED` for a host older than {@link V2_MIN_VERSION}; {@link V2PluginDefinitionError} `PLUGIN_KIND_TOO_WEAK` (a
 *   declaration weaker than its route), `PLUGIN_DECLARATION_INVALID` (a plugin capability declaring a
 *   route the host does not serve)
 * @public
 */
export function createV2AgentHost(options: V2AgentHostOptions): V2AgentHost {
  const client = new V2HostClient({
    ...options.client,
    url: options.url,
    auth: (options.auth ?? options.credentials)!,
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    ...(options.readRetries !== undefined ? { readRetries: options.readRetries } : {}),
    ...(options.connections !== undefined ? { connections: options.connections } : {}),
    ...(options.logger && !options.client?.logger ? { logger: options.logger } : {}),
  });
  const status: V2HostStatus = {
    version: null,
    versionSource: null,
    operations: 0,
    unsupported: [],
    metadata: 'unknown',
    metadataMessage: null,
  };
  const warn = (message: string, details?: Record<string, unknown>) =>
    (options.logger ?? { warn: () => undefined }).warn(message, details);
  const storage = options.storage ?? new MemoryStorage();
  const tracking = new V2Tracking(storage);
  const view = new V2HostView(client, tracking);
  // When the host recognises nothing, its TMDB test runs again: a TMDB lost after start is then named.
  view.recheckMetadata = async () => {
    await checkMetadata(client, status);
    view.metadataUnreachable = status.metadata === 'unreachable';
    view.metadataMessage = status.metadataMessage;
  };
  let facts: V2GoalFacts | undefined;
  const goalFacts: GoalFacts = { forRun: (runId, signal) => facts!.forRun(runId, signal) };
  const supers = options.superusers ?? ['user:admin'];
  const isSuperuser: SuperuserResolver =
    typeof supers === 'function'
      ? (supers as SuperuserResolver)
      : (actor) => (supers as readonly string[]).includes(actor);
  const {
    plugins: _plugins,
    url: _url,
    auth: _auth,
    credentials: _credentials,
    client: _client,
    superusers: _superusers,
    timeouts: _timeouts,
    readRetries: _readRetries,
    connections: _connections,
    ...sdkOptions
  } = options;
  const plugins: V2PluginHost = new V2PluginHost({
    client,
    authorizer: (): V2SuperuserAuthorizer => authorizer,
    services: () => ({
      storage: resolvePort(container, Tokens.StorageAdapter),
      ids: resolvePort(container, Tokens.IdGenerator),
      clock: resolvePort(container, Tokens.Clock),
    }),
  });
  const authorizer: V2SuperuserAuthorizer = new V2SuperuserAuthorizer(
    new PolicyAuthorizer(),
    new Set(V2_ADMIN_ONLY_CAPABILITIES),
    isSuperuser,
    () => client.credentialIsSuperuser,
    (id) => plugins.routesOf(id),
  );
  let registry: V2CapabilityRegistry | undefined;
  const container = createAgentContainer({
    ...sdkOptions,
    // The media server's credentials are secrets of the host's one redaction step (docs/secrets.md); people
    // the host calls superusers are the SDK's administrators; decisions about downloads are checked against
    // the host's state — each unless the host says otherwise.
    ...adapterHostOptions(sdkOptions, {
      secrets: credentialSecrets(options.auth ?? options.credentials),
      isSuperuser,
      subjects: v2DecisionSubjects(client),
    }),
    storage,
    goalFacts,
    configure: (c) => {
      c.register(Tokens.Authorizer, { useValue: authorizer });
      c.register(Tokens.CapabilityRegistry, {
        useFactory: (d) => (registry ??= new V2CapabilityRegistry(sdkCapabilityRegistry(d), plugins)),
      });
      options.configure?.(c);
    },
  });
  const host = resolvePort(container, Tokens.AgentHost);
  facts = new V2GoalFacts(view, host.plans);
  registerStandardCapabilities(host.capabilities, v2StandardCapabilities({ view, plans: host.plans }));
  host.capabilities.register(planInspectCapability(host.plans));
  for (const c of subscriptionCapabilities(view)) host.capabilities.register(c);
  // The inverses of organize.execute and policy.apply (host.undo runs them).
  host.capabilities.register(organizeRevertCapability(view));
  host.capabilities.register(policyRevertCapability(client));
  const pluginCapabilities: string[] = [];
  const registerPlugin = (c: Capability<any, any>) => {
    if (host.capabilities.has(c.id)) return;
    host.capabilities.register(c);
    pluginCapabilities.push(c.id);
  };
  /** The check `host.start()` runs first: connectivity, credentials, version, plugins, TMDB (once). */
  const check = async () => {
    Object.assign(status, await connect(client));
    if (options.plugins !== false) await registerPlugins(client, plugins, options.plugins ?? {}, registerPlugin, warn);
    await checkMetadata(client, status);
    view.metadataUnreachable = status.metadata === 'unreachable';
    view.metadataMessage = status.metadataMessage;
    if (view.metadataUnreachable) warn(metadataUnreachableWarning(status.metadataMessage));
  };
  startAfter(host, check);
  return {
    host,
    container,
    client,
    goalFacts,
    pluginCapabilities,
    status,
    close: closeHostAndClient(host, client),
  };
}

/** Discovers the host's plugin routes, then registers the plugin authors' own capabilities. */
async function registerPlugins(
  client: V2HostClient,
  plugins: V2PluginHost,
  options: { declarations?: Record<string, V2PluginDeclaration>; capabilities?: readonly Capability<any, any>[] },
  register: (c: Capability<any, any>) => void,
  warn: (message: string, details?: Record<string, unknown>) => void,
): Promise<void> {
  try {
    const found = await discoverV2PluginCapabilities(client, options.declarations ?? {});
    plugins.document = found.document;
    for (const s of found.skipped)
      warn('a MoviePilot plugin route was left out: its input schema cannot be offered to model providers', {
        capabilityId: s.capabilityId,
        code: s.error.code,
        error: s.error.message,
      });
    for (const c of found.capabilities) register(c);
  } catch (error) {
    if (error instanceof V2PluginDefinitionError) throw error;
    warn('MoviePilot plugin APIs were not read; no plugin capabilities', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  for (const c of options.capabilities ?? []) register(c);
}

/** Reads the contract, logs in, checks the credentials against it and reads the version. */
async function connect(client: V2HostClient): Promise<V2HostStatus> {
  const contract = await client.loadContract();
  const unsupported = Object.values(V2_OPERATIONS as Record<string, V2Operation>)
    .filter((o) => !contract.has(o.method, o.path))
    .map((o) => o.id);
  const core = CORE_OPERATIONS.map((id) => V2_OPERATIONS[id] as V2Operation).filter((o) =>
    contract.has(o.method, o.path),
  );
  const closed = core.filter((o) => !client.accepts(contract.security(o.method, o.path) ?? []));
  if (closed.length > 0) {
    const needsLogin = closed.every((o) =>
      (contract.security(o.method, o.path) ?? []).includes('OAuth2PasswordBearer'),
    );
    throw new HostAuthError(
      needsLogin
        ? `this MoviePilot host's standard routes (${closed.map((o) => `${o.method} ${o.path}`).join(', ')}) accept only a login (OAuth2PasswordBearer), not the API token: configure a user name and password (auth.username/password; CLI --user/--password), with the API token too for plugin routes. Nothing was sent.`
        : `this MoviePilot host's standard routes (${closed.map((o) => `${o.method} ${o.path}`).join(', ')}) accept none of the configured credentials: configure the API token (auth.apiKey; CLI --api-key). Nothing was sent.`,
      { missing: needsLogin ? 'login' : 'apiKey', beforeRequest: true },
    );
  }
  await client.login();
  const { version, source } = await detectVersion(client, contract);
  if (version !== null) {
    const major = parseV2Version(version)![0];
    if (major >= 3)
      throw new HostGenerationError(
        'v2',
        version,
        `MoviePilot at ${client.origin} is ${version}, a 3.x host: this adapter speaks MoviePilot 2.x (from v${V2_MIN_VERSION}); use @media-agent/host-adapter-v3 (CLI --host v3) for this host`,
      );
    if (major !== 2)
      throw new HostVersionError(
        version,
        `MoviePilot ${version} is not a 2.x host: this adapter supports MoviePilot 2.x from v${V2_MIN_VERSION} (use @media-agent/host-adapter-v3 for 3.x)`,
      );
    if (compareV2Versions(version, V2_MIN_VERSION) < 0)
      throw new HostVersionError(
        version,
        `MoviePilot ${version} is older than the oldest supported version, v${V2_MIN_VERSION}: update the host to v${V2_MIN_VERSION} or later`,
      );
  }
  return {
    version,
    versionSource: source,
    operations: contract.size,
    unsupported,
    metadata: 'unknown',
    metadataMessage: null,
  };
}

/** The host's own network test of TMDB (`GET /api/v1/system/nettest`), when the credentials open it. */
async function checkMetadata(client: V2HostClient, status: V2HostStatus): Promise<void> {
  const contract = client.contract;
  const op = V2_OPERATIONS['system.nettest'] as V2Operation;
  const security = contract?.security(op.method, op.path);
  if (!contract || !security || !client.accepts(security)) return;
  const params = new Set(
    (
      (contract.document.paths as Record<string, Record<string, { parameters?: Array<{ name: string }> }>>)[op.path]
        ?.get?.parameters ?? []
    ).map((p) => p.name),
  );
  try {
    const answer = (await client.call('system.nettest', {
      query: { url: TMDB_TEST_URL, ...(params.has('proxy') ? { proxy: true } : {}) },
    })) as { success?: unknown; message?: unknown } | null;
    if (typeof answer?.success !== 'boolean') return;
    status.metadata = answer.success ? 'reachable' : 'unreachable';
    status.metadataMessage = answer.success
      ? null
      : typeof answer.message === 'string' && answer.message
        ? answer.message
        : null;
  } catch {
    // The check is advisory: a host that cannot run it leaves the state unknown.
  }
}

/** The secret values of the adapter's credentials (API token, password, one-time password; never the user name). */
function credentialSecrets(auth: unknown): string[] {
  const a = (typeof auth === 'object' && auth !== null ? auth : {}) as Record<string, unknown>;
  return ['apiKey', 'password', 'otpPassword'].map((k) => a[k]).filter((v): v is string => typeof v === 'string');
}
