import { createAgentContainer, DefaultCapabilityRegistry, PolicyAuthorizer, resolvePort, Tokens, type AgentContainer, type AgentHost, type AgentOptions, type Capability, type GoalFacts } from '@media-agent/sdk';
import { MemoryStorage } from '@media-agent/sdk/storage';
import { registerStandardCapabilities } from '@media-agent/sdk/media';
import { V2SuperuserAuthorizer, type SuperuserResolver } from './authorizer';
import { planInspectCapability, subscriptionCapabilities, V2HostView, v2StandardCapabilities } from './capabilities';
import { V2HostClient, type V2ClientOptions, type V2Credentials } from './client';
import { HostAuthError, HostHttpError, HostOperationError, HostVersionError } from './errors';
import { compareV2Versions, parseV2Version, V2_MIN_VERSION, type V2HostContract } from './host-contract';
import { V2_OPERATIONS, type V2Operation, type V2OperationId } from './operations';
import { V2GoalFacts } from './facts';
import { discoverV2PluginCapabilities, V2PluginDefinitionError, V2PluginHost, type V2PluginDeclaration } from './plugins';
import { V2CapabilityRegistry } from './registry';
import { V2Tracking } from './tracking';

/**
 * Capabilities that send a MoviePilot 2.x superuser-only request (notes §3: `POST /transfer/manual`);
 * they are denied before any request to actors that are not host superusers.
 * @public
 */
export const V2_ADMIN_ONLY_CAPABILITIES: readonly string[] = Object.freeze(['organize.execute']);

/** Options of {@link createV2AgentHost}: the SDK's `AgentOptions` plus the host connection. @public */
export interface V2AgentHostOptions extends Omit<AgentOptions, 'goalFacts'> {
  /** Base URL of the MoviePilot 2.x host, e.g. `http://nas:3000`. */
  url: string;
  /**
   * API token, user name and password (JWT), or both: each request carries the credential its route
   * accepts in the host's OpenAPI document (v2.5.x: standard routes the login only, plugin and `/api/v3`
   * routes the API token only).
   */
  credentials: V2Credentials;
  /** Client tuning (pool size, read retries, timeouts per operation, logger). */
  client?: Omit<V2ClientOptions, 'url' | 'credentials'>;
  /**
   * Which actors are MoviePilot superusers: a list of actor ids (default `['user:admin']`) or a
   * function. Agent actors count as the actor that started their run.
   */
  superusers?: readonly string[] | SuperuserResolver;
  /**
   * Plugin APIs as capabilities (default on): `false` to skip reading the host's OpenAPI document, or
   * plugin authors' `declarations` of discovered routes by capability id, and plugin `capabilities`
   * made by `defineV2PluginCapability` (registered after discovery, so they may declare any route of
   * the host's document; with `false`, only `V2_OPERATIONS` routes).
   */
  plugins?: false | { declarations?: Record<string, V2PluginDeclaration>; capabilities?: readonly Capability<any, any>[] };
}

/** What {@link createV2AgentHost} returns. @public */
export interface V2AgentHost {
  /** The SDK host (call `start()` before use). */
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
  /** Ids of the plugin capabilities registered (discovered routes, then `plugins.capabilities`). */
  pluginCapabilities: string[];
  /** What the adapter learned about the host: version, contract, metadata connectivity (after `host.start()`). */
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
 * (API token; `version`), then `GET /api/v1/system/env` (a superuser login; `data.VERSION`).
 */
async function detectVersion(client: V2HostClient, contract: V2HostContract): Promise<{ version: string | null; source: string | null }> {
  for (const [id, pick] of [
    ['system.status', (b: unknown) => (b as { version?: unknown } | null)?.version],
    ['system.env', (b: unknown) => (b as { VERSION?: unknown } | null)?.VERSION],
  ] as const) {
    const op = V2_OPERATIONS[id] as V2Operation;
    const security = contract.security(op.method, op.path);
    if (!security || !client.accepts(security)) continue;
    try {
      const v = pick(await client.call(id));
      if (typeof v === 'string' && parseV2Version(v)) return { version: v, source: `${op.method} ${op.path}` };
    } catch (error) {
      if (error instanceof HostHttpError || error instanceof HostOperationError || error instanceof HostAuthError) continue; // not a superuser, or the route answers otherwise
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
 * ```ts
 * const v2 = await createV2AgentHost({ url: 'http://nas:3000', credentials: { apiKey: process.env.MP_API_TOKEN! }, plugins: { capabilities: [unfollow] } });
 * await v2.host.start();
 * ```
 *
 * @param options - see {@link V2AgentHostOptions}
 * @returns the host and its parts; call `host.start()` next
 * Before anything else it reads the host's OpenAPI document (each route's authentication and existence
 * come from it), logs in when a login is configured, and reads the host's version; `host.start()` then
 * runs the host's own connectivity check once (TMDB reachable?, see {@link V2HostStatus}).
 *
 * @throws `HOST_OPTIONS_INVALID` for a bad URL or missing credentials; `HOST_UNREACHABLE` when the host
 *   cannot be reached; `HOST_CONTRACT_INVALID` when its OpenAPI document cannot be fetched or parsed;
 *   `HOST_AUTH_FAILED` when the login is refused, or when the credentials open none of the standard
 *   routes on this host (e.g. only an API token on v2.5.x, whose standard routes accept only a login —
 *   refused before any request, naming the credential to add); `HOST_VERSION_UNSUPPORTED` for a host
 *   older than {@link V2_MIN_VERSION} or not 2.x; `OPTIONS_INVALID` from the SDK;
 *   {@link V2PluginDefinitionError} `PLUGIN_KIND_TOO_WEAK` (a declaration weaker than its route),
 *   `PLUGIN_DECLARATION_INVALID` (a plugin capability declaring a route the host does not serve)
 * @public
 */
export async function createV2AgentHost(options: V2AgentHostOptions): Promise<V2AgentHost> {
  const client = new V2HostClient({ ...options.client, url: options.url, credentials: options.credentials, ...(options.logger && !options.client?.logger ? { logger: options.logger } : {}) });
  const status = await connect(client).catch(async (error: unknown) => {
    await client.close().catch(() => undefined);
    throw error;
  });
  const warn = (message: string, details?: Record<string, unknown>) => (options.logger ?? { warn: () => undefined }).warn(message, details);
  const storage = options.storage ?? new MemoryStorage();
  const tracking = new V2Tracking(storage);
  const view = new V2HostView(client, tracking);
  let facts: V2GoalFacts | undefined;
  const goalFacts: GoalFacts = { forRun: (runId, signal) => facts!.forRun(runId, signal) };
  const supers = options.superusers ?? ['user:admin'];
  const isSuperuser: SuperuserResolver = typeof supers === 'function' ? (supers as SuperuserResolver) : (actor) => (supers as readonly string[]).includes(actor);
  const { plugins: _plugins, url: _url, credentials: _credentials, client: _client, superusers: _superusers, ...sdkOptions } = options;
  const plugins: V2PluginHost = new V2PluginHost({
    client,
    authorizer: (): V2SuperuserAuthorizer => authorizer,
    services: () => ({ storage: resolvePort(container, Tokens.StorageAdapter), ids: resolvePort(container, Tokens.IdGenerator), clock: resolvePort(container, Tokens.Clock) }),
  });
  const authorizer: V2SuperuserAuthorizer = new V2SuperuserAuthorizer(new PolicyAuthorizer(), new Set(V2_ADMIN_ONLY_CAPABILITIES), isSuperuser, () => client.credentialIsSuperuser, (id) => plugins.routesOf(id));
  let registry: V2CapabilityRegistry | undefined;
  const container = createAgentContainer({
    ...sdkOptions,
    storage,
    goalFacts,
    configure: (c) => {
      c.register(Tokens.Authorizer, { useValue: authorizer });
      c.register(Tokens.CapabilityRegistry, {
        useFactory: (d) =>
          (registry ??= new V2CapabilityRegistry(
            new DefaultCapabilityRegistry({
              storage: resolvePort(d, Tokens.StorageAdapter),
              authorizer: resolvePort(d, Tokens.Authorizer),
              ledger: resolvePort(d, Tokens.InvocationLedger),
              clock: resolvePort(d, Tokens.Clock),
              ids: resolvePort(d, Tokens.IdGenerator),
              logger: resolvePort(d, Tokens.Logger),
              maxInputBytes: resolvePort(d, Tokens.AgentOptions).maxInputBytes,
            }),
            plugins,
          )),
      });
      options.configure?.(c);
    },
  });
  const host = resolvePort(container, Tokens.AgentHost);
  facts = new V2GoalFacts(view, host.plans);
  // host.start(): the host's own connectivity check, once (a host that cannot reach TMDB answers 200 [] to every lookup).
  const sdkStart = host.start.bind(host);
  let checked: Promise<void> | undefined;
  (host as { start: AgentHost['start'] }).start = async (startOptions) => {
    checked ??= checkMetadata(client, status).then(() => {
      view.metadataUnreachable = status.metadata === 'unreachable';
      if (view.metadataUnreachable) warn(`the MoviePilot host cannot reach TMDB (its metadata source): lookups will find nothing until it can${status.metadataMessage ? ` — host said: ${status.metadataMessage}` : ''}`);
    });
    await checked;
    return sdkStart(startOptions);
  };
  registerStandardCapabilities(host.capabilities, v2StandardCapabilities({ view, plans: host.plans }));
  host.capabilities.register(planInspectCapability(host.plans));
  for (const c of subscriptionCapabilities(view)) host.capabilities.register(c);
  const pluginCapabilities: string[] = [];
  if (options.plugins !== false) {
    try {
      const found = await discoverV2PluginCapabilities(client, options.plugins?.declarations ?? {});
      plugins.document = found.document;
      for (const s of found.skipped) warn('a MoviePilot plugin route was left out: its input schema cannot be offered to model providers', { capabilityId: s.capabilityId, code: s.error.code, error: s.error.message });
      for (const c of found.capabilities) {
        if (host.capabilities.has(c.id)) continue;
        host.capabilities.register(c);
        pluginCapabilities.push(c.id);
      }
    } catch (error) {
      if (error instanceof V2PluginDefinitionError) throw error;
      warn('MoviePilot plugin APIs were not read; no plugin capabilities', { error: error instanceof Error ? error.message : String(error) });
    }
  }
  for (const c of (options.plugins !== false && options.plugins?.capabilities) || []) {
    host.capabilities.register(c);
    pluginCapabilities.push(c.id);
  }
  return {
    host,
    container,
    client,
    goalFacts,
    pluginCapabilities,
    status,
    close: async () => {
      await host.stop().catch(() => undefined);
      await client.close();
    },
  };
}

/** Reads the contract, logs in, checks the credentials against it and reads the version. */
async function connect(client: V2HostClient): Promise<V2HostStatus> {
  const contract = await client.loadContract();
  const unsupported = Object.values(V2_OPERATIONS as Record<string, V2Operation>)
    .filter((o) => !contract.has(o.method, o.path))
    .map((o) => o.id);
  const core = CORE_OPERATIONS.map((id) => V2_OPERATIONS[id] as V2Operation).filter((o) => contract.has(o.method, o.path));
  const closed = core.filter((o) => !client.accepts(contract.security(o.method, o.path) ?? []));
  if (closed.length > 0) {
    const needsLogin = closed.every((o) => (contract.security(o.method, o.path) ?? []).includes('OAuth2PasswordBearer'));
    throw new HostAuthError(
      needsLogin
        ? `this MoviePilot host's standard routes (${closed.map((o) => `${o.method} ${o.path}`).join(', ')}) accept only a login (OAuth2PasswordBearer), not the API token: configure a user name and password (credentials.username/password; CLI --user/--password), with the API token too for plugin routes. Nothing was sent.`
        : `this MoviePilot host's standard routes (${closed.map((o) => `${o.method} ${o.path}`).join(', ')}) accept none of the configured credentials: configure the API token (credentials.apiKey; CLI --api-key). Nothing was sent.`,
      { missing: needsLogin ? 'login' : 'apiKey', beforeRequest: true },
    );
  }
  await client.login();
  const { version, source } = await detectVersion(client, contract);
  if (version !== null) {
    const major = parseV2Version(version)![0];
    if (major !== 2) throw new HostVersionError(version, `MoviePilot ${version} is not a 2.x host: this adapter supports MoviePilot 2.x from v${V2_MIN_VERSION} (use @media-agent/host-adapter-v3 for 3.x)`);
    if (compareV2Versions(version, V2_MIN_VERSION) < 0) throw new HostVersionError(version, `MoviePilot ${version} is older than the oldest supported version, v${V2_MIN_VERSION}: update the host to v${V2_MIN_VERSION} or later`);
  }
  return { version, versionSource: source, operations: contract.size, unsupported, metadata: 'unknown', metadataMessage: null };
}

/** The host's own network test of TMDB (`GET /api/v1/system/nettest`), when the credentials open it. */
async function checkMetadata(client: V2HostClient, status: V2HostStatus): Promise<void> {
  const contract = client.contract;
  const op = V2_OPERATIONS['system.nettest'] as V2Operation;
  const security = contract?.security(op.method, op.path);
  if (!contract || !security || !client.accepts(security)) return;
  const params = new Set(((contract.document.paths as Record<string, Record<string, { parameters?: Array<{ name: string }> }>>)[op.path]?.get?.parameters ?? []).map((p) => p.name));
  try {
    const answer = (await client.call('system.nettest', { query: { url: TMDB_TEST_URL, ...(params.has('proxy') ? { proxy: true } : {}) } })) as { success?: unknown; message?: unknown } | null;
    if (typeof answer?.success !== 'boolean') return;
    status.metadata = answer.success ? 'reachable' : 'unreachable';
    status.metadataMessage = answer.success ? null : typeof answer.message === 'string' && answer.message ? answer.message : null;
  } catch {
    // The check is advisory: a host that cannot run it leaves the state unknown.
  }
}
