import {
  createAgentContainer,
  resolvePort,
  Tokens,
  type AgentHost,
  type AgentOptions,
  type Authorizer,
  type Capability,
  type GoalFacts,
} from '@media-agent/sdk';
import { PolicyAuthorizer } from '@media-agent/sdk/authorization';
import { registerStandardCapabilities, type PolicySettings } from '@media-agent/sdk/media';
import { v3OrganizeRevertCapability } from './organize-revert';
import { v3PolicyRevertCapability } from './standard/policy';
import { V3Authorizer, type V3HostRole, type V3PrincipalRole } from './authorizer';
import { TMDB_TEST_URL } from './standard/search-cause';
import { V3Client, type V3Auth, type V3Timeouts } from './client';
import { HostAuthError, HostGenerationError, HostProtocolError } from '@media-agent/host-adapter-kit';
import { v3AuthFailed } from './errors';
import { V3GoalFacts } from './goal-facts';
import { v3DecisionSubjects } from './decisions';
import { V3RunJournal } from './journal';
import { storedRunEvents } from './journal-restore';
import { startAfter } from './start-check';
import {
  adapterHostOptions,
  closeHostAndClient,
  metadataUnreachableWarning,
  sdkCapabilityRegistry,
} from '@media-agent/host-adapter-kit';
import { v3OperationCapabilities } from './operations-capabilities';
import { V3PluginHost } from './plugins';
import { V3CapabilityRegistry } from './registry';
import { v3SubscriptionCapabilities } from './subscriptions';
import { v3StandardCapabilities } from './standard';
import type { V3Context } from './standard/mapping';
import type { V3MediaSettings } from './standard/services';

/** Options of {@link createV3AgentHost}: the SDK's {@link AgentOptions} (except `goalFacts`) plus the host connection. @public */
export interface V3AgentHostOptions extends Omit<AgentOptions, 'goalFacts'> {
  /** MoviePilot 3.x root URL, e.g. `http://127.0.0.1:3001`. */
  url: string;
  /** API token or user name and password (never logged). */
  auth: V3Auth;
  /** Timeouts (ms) per operation; see {@link V3Timeouts}. */
  timeouts?: V3Timeouts;
  /**
   * Extra attempts for reads after a transport error or a 5xx. Writes are never retried.
   * @defaultValue 2
   */
  readRetries?: number;
  /** Connections in the undici pool (default 8). */
  connections?: number;
  /**
   * Host role of a principal (actor, or the actor that started an agent's run). Default: every
   * principal has the client's own role (API key: superuser; password login: the JWT's `super_user`).
   * Unless `identity` is given, the `user:*` actors with role `superuser` are also the SDK's
   * administrators (they decide approvals, change grants and see every user's runs) and every other
   * person is an ordinary user. Key users by their stable MoviePilot user id, never by name.
   */
  principalRole?: V3PrincipalRole;
  /** Downloader, save path, storage of downloaded files. */
  media?: V3MediaSettings;
  /**
   * `mp.*` tools revealed by discovery that stay offered to the model.
   * @defaultValue 16
   */
  maxRevealedTools?: number;
  /**
   * Plugin capabilities made by `defineV3PluginCapability` (`{ capabilities: [...] }`, the 2.x adapter's
   * shape; a bare array is deprecated), registered after the adapter's own (the same as
   * `host.capabilities.register(plugin)` later): each gets a client scoped to its declared operations
   * and the invoking actor.
   */
  plugins?: { capabilities?: readonly Capability<any, any>[] } | readonly Capability<any, any>[];
}

/**
 * What {@link createV3AgentHost} learned about the MoviePilot host at `host.start()`.
 * @public
 */
export interface V3HostStatus {
  /** `v3` once `host.start()` found a host answering in the 3.x envelope; `null` before. */
  generation: 'v3' | null;
  /**
   * Whether the host can reach its metadata source (TMDB), from its own network test
   * (`system.network.test`, `GET /api/v1/system/nettest`) at `host.start()`: `unknown` before, or when
   * the test cannot run. While `unreachable`, lookups that find nothing say so (`MEDIA_NOT_FOUND` with
   * `metadataUnreachable: true`).
   */
  metadata: 'reachable' | 'unreachable' | 'unknown';
  /** The host's message of a failed network test, or `null`. */
  metadataMessage: string | null;
}

/** What {@link createV3AgentHost} returns. @public */
export interface V3AgentHost {
  /**
   * The SDK host: runs, approvals, grants, `invoke`. Its `start()` first checks the MoviePilot host
   * (see {@link createV3AgentHost}) and throws `HOST_UNREACHABLE`, `HOST_GENERATION_MISMATCH` or
   * `HOST_AUTH_FAILED` before anything runs; a failed check is run again by the next `start()`.
   */
  readonly host: AgentHost;
  /**
   * The host client, with the adapter's own credentials (an API key is a host superuser). For the
   * host application only: never hand it to plugin code — plugin capabilities
   * (`defineV3PluginCapability`) get a client scoped to their declared operations and the invoking actor.
   */
  readonly client: V3Client;
  /** What each run touched (feeds `GoalFacts`). */
  readonly journal: V3RunJournal;
  /** The dependency-injection container (resolve any port from it). */
  readonly container: ReturnType<typeof createAgentContainer>;
  /** The `GoalFacts` the runtime uses (what the host's records say about a run's goal). */
  readonly goalFacts: GoalFacts;
  /** What `host.start()` learned about the host: generation, TMDB reachability (filled by `host.start()`). */
  readonly status: V3HostStatus;
  /** Stops the host and closes the client's pool. */
  close(): Promise<void>;
}

/**
 * Builds an `AgentHost` for a MoviePilot 3.x host: the SDK defaults (storage,
 * ledger, plans, approvals, grants, runs) composed with the V3 client, the 15 standard capabilities,
 * every catalog operation as `mp.<operation_id>` behind tool discovery, the {@link V3Authorizer}
 * (admin-only denied before any request; approvals for destructive/confirmed operations), the
 * verifiers and {@link V3GoalFacts}. Plugin capabilities (`defineV3PluginCapability`) registered on
 * its `host.capabilities` get a per-invocation client scoped to their declared operations and are
 * authorized like direct `mp.*` calls of them.
 *
 * Building sends nothing. `host.start()` checks the host before anything runs: it logs in when a
 * user name and password are configured (`POST /api/v1/login/access-token`), then reads
 * `GET /api/v1/download/clients` (`download.clients`, open to every user) with the credentials, which
 * must answer in the 3.x envelope: a host of another generation is refused with
 * `HOST_GENERATION_MISMATCH` naming what was found (e.g. `MoviePilot v2.5.6 (a 2.x host)`). Then it runs
 * the host's own network test of TMDB once (`system.network.test`; see {@link V3HostStatus}) and warns
 * through the logger when the host cannot reach it.
 *
 * @example
 * ```ts
 * const { host, close } = createV3AgentHost({ url: 'http://mp:3001', auth: { apiKey: process.env.MP_API_TOKEN! }, model });
 * await host.start(); // HOST_UNREACHABLE, HOST_AUTH_FAILED here
 * ```
 *
 * @param options - connection, auth, role mapping, media settings, and any SDK option
 * @returns the host, client, journal, goal facts and container; call `host.start()` next
 * @throws `HOST_OPTIONS_INVALID` for a bad URL or missing credentials; `OPTIONS_INVALID` (SDK options);
 *   what registering `plugins` throws (`PLUGIN_OPERATIONS_UNDECLARED`, `CAPABILITY_DUPLICATE`).
 *   `host.start()` throws `HOST_UNREACHABLE` when the host cannot be reached (nothing was sent) and
 *   `HOST_GENERATION_MISMATCH` ({@link HostGenerationError}) when the host is not MoviePilot 3.x (it
 *   answers outside the 3.x envelope; the error's `found` names it), `HOST_PROTOCOL_ERROR` when a host
 *   that says it is 3.x answers outside the envelope, and `HOST_AUTH_FAILED` when the host refuses the
 *   login (HTTP 401), the API token (HTTP 401) or the login token (HTTP 403)
 * @public
 */
export function createV3AgentHost(options: V3AgentHostOptions): V3AgentHost {
  const client = new V3Client({
    url: options.url,
    auth: options.auth,
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    ...(options.readRetries !== undefined ? { readRetries: options.readRetries } : {}),
    ...(options.connections !== undefined ? { connections: options.connections } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const journal = new V3RunJournal();
  let own: Promise<V3HostRole> | undefined;
  const role = async (principal: string): Promise<V3HostRole> => {
    const mapped = await options.principalRole?.(principal);
    if (mapped) return mapped;
    own ??= client.identity().then((i) => (i.superuser ? 'superuser' : 'user'));
    return own;
  };
  let registry: V3CapabilityRegistry | undefined;
  const plugins: V3PluginHost = new V3PluginHost({
    client,
    authorizer: (): V3Authorizer => authorizer,
    services: () => ({
      storage: resolvePort(container, Tokens.StorageAdapter),
      ids: resolvePort(container, Tokens.IdGenerator),
      clock: resolvePort(container, Tokens.Clock),
    }),
  });
  const authorizer: V3Authorizer = new V3Authorizer(new PolicyAuthorizer() as Authorizer, role, (id) =>
    plugins.declared(id),
  );
  // Goal facts complete the in-memory journal from the run's stored receipts: any process may resume a run.
  const goalFacts = new V3GoalFacts(client, journal, (runId) =>
    storedRunEvents(resolvePort(container, Tokens.StorageAdapter), runId),
  );
  // The SDK's options only: the connection settings are this adapter's (the SDK refuses names it does not know).
  const {
    url: _url,
    auth: _auth,
    timeouts: _timeouts,
    readRetries: _readRetries,
    connections: _connections,
    principalRole: _principalRole,
    media: _media,
    maxRevealedTools: _maxRevealedTools,
    plugins: _plugins,
    ...sdkOptions
  } = options;
  const container = createAgentContainer({
    ...sdkOptions,
    // The media server's credentials are secrets of the host's one redaction step (docs/secrets.md); people
    // the host treats as superusers are the SDK's administrators; decisions about downloads and transfer
    // records are checked against the host's state — each unless the host says otherwise.
    ...adapterHostOptions(sdkOptions, {
      secrets: credentialSecrets(options.auth),
      isSuperuser: async (actor) => (await role(actor)) === 'superuser',
      subjects: v3DecisionSubjects(client),
    }),
    goalFacts,
    configure: (c) => {
      c.register(Tokens.Authorizer, { useValue: authorizer });
      c.register(Tokens.CapabilityRegistry, {
        useFactory: (d) =>
          (registry ??= new V3CapabilityRegistry(sdkCapabilityRegistry(d), options.maxRevealedTools, plugins)),
      });
      options.configure?.(c);
    },
  });
  const host = resolvePort(container, Tokens.AgentHost);
  const status: V3HostStatus = { generation: null, metadata: 'unknown', metadataMessage: null };
  const services = {
    status,
    client,
    plans: host.plans,
    journal,
    settings: options.media ?? {},
    policies: new Map<
      string,
      { revision: number; settings: PolicySettings; previous?: { revision: number; settings: PolicySettings } }
    >(),
    releases: new Map<string, { context: V3Context; mediaEntityId: string }>(),
    identities: new Map<string, string>(),
  };
  registerStandardCapabilities(host.capabilities, v3StandardCapabilities(services));
  const reg = host.capabilities;
  for (const capability of v3SubscriptionCapabilities({ client, journal })) reg.register(capability);
  // The inverses of organize.execute and policy.apply (host.undo runs them).
  reg.register(v3OrganizeRevertCapability(client));
  reg.register(v3PolicyRevertCapability(services));
  for (const capability of v3OperationCapabilities({
    client,
    plans: host.plans,
    registry: () => reg,
    reveal: (ids) => (reg instanceof V3CapabilityRegistry ? reg.reveal(ids) : undefined),
  }))
    reg.register(capability);
  const pluginList = Array.isArray(options.plugins)
    ? options.plugins
    : ((options.plugins as { capabilities?: readonly Capability<any, any>[] } | undefined)?.capabilities ?? []);
  for (const plugin of pluginList) reg.register(plugin);
  const logger = resolvePort(container, Tokens.Logger);
  startAfter(host, async () => {
    await checkV3Host(client);
    status.generation = 'v3';
    await checkMetadata(client, status);
    if (status.metadata === 'unreachable') logger.warn(metadataUnreachableWarning(status.metadataMessage));
  });
  return {
    host,
    client,
    journal,
    container,
    goalFacts,
    status,
    close: closeHostAndClient(host, client),
  };
}

/**
 * The start-up check: the login (when configured), then one read every user may make
 * (`download.clients`), which must answer in the 3.x envelope. An unreachable host is
 * `HOST_UNREACHABLE`; a host of another generation (a 2.x host answers that route with a bare list, or
 * refuses the API token there with a bare `{detail}`) is `HOST_GENERATION_MISMATCH` naming what was
 * found; credentials the 3.x host refuses are `HOST_AUTH_FAILED`.
 */
async function checkV3Host(client: V3Client): Promise<void> {
  const credential = client.usesLogin
    ? 'user name and password (auth.username/password; CLI --user/--password)'
    : 'API token (auth.apiKey; CLI --api-key)';
  try {
    await client.identity();
    await client.call('download.clients');
  } catch (error) {
    // A login route that answers no token is not a generation question (both generations share it): say what came back.
    if (error instanceof HostProtocolError)
      throw error.operation === 'login.access_token' ? error : await generationError(client, error);
    if (!(error instanceof HostAuthError)) throw error;
    const { hostMessage: said, operation = 'download.clients' } = error.details as {
      hostMessage?: string;
      operation?: string;
    };
    const hostMessage = said || 'no message';
    const status = error.status ?? 0;
    if (operation === 'login.access_token')
      throw v3AuthFailed(
        operation,
        status,
        `${hostMessage}; MoviePilot at ${client.url} refused the login: check the ${credential}`,
      );
    // 401: the credential itself was refused. 403 with an API key is not about the key (the host maps it
    // to its superuser): say what the host answered instead of blaming the token.
    const refused =
      error.status === 401 || client.usesLogin
        ? `refused the ${client.usesLogin ? 'login token' : 'API token'} (HTTP ${status}): check the ${credential}`
        : `answered HTTP ${status} to download.clients for the API token's superuser`;
    throw v3AuthFailed(operation, status, `${hostMessage}; MoviePilot at ${client.url} ${refused}`);
  }
}

/**
 * The error for a host that answered outside the 3.x protocol at start: `HOST_GENERATION_MISMATCH`
 * naming the host (its version from the 2.x status route when the API token opens it), or the
 * protocol error itself when that route says the host is 3.x after all.
 */
async function generationError(client: V3Client, error: HostProtocolError): Promise<Error> {
  const version = await client.probeLegacyVersion();
  const major = version ? Number.parseInt(version.replace(/^v/, ''), 10) : null;
  if (major === 3) return error;
  const found =
    version && major !== null
      ? `MoviePilot ${version.startsWith('v') ? version : `v${version}`} (a ${major}.x host)`
      : 'a host that does not answer in the MoviePilot 3.x envelope (MoviePilot 2.x or older, or not MoviePilot)';
  const body = (error.details as { received?: string }).received;
  const status = (error.details as { status?: number }).status;
  return new HostGenerationError(
    'v3',
    found,
    `${client.url} is ${found}, not MoviePilot 3.x: ${error.operation} answered HTTP ${status ?? '?'} with ${body ?? 'a body'} where 3.x answers {success, message, data}. This adapter serves MoviePilot 3.x only; nothing was done — use @media-agent/host-adapter-v2 (CLI --host v2) for a 2.x host`,
  );
}

/** The host's own network test of TMDB (`system.network.test`); advisory: failures leave the state unknown. */
async function checkMetadata(client: V3Client, status: V3HostStatus): Promise<void> {
  try {
    const r = await client.call('system.network.test', { query: { url: TMDB_TEST_URL, proxy: true } });
    status.metadata = r.success ? 'reachable' : 'unreachable';
    status.metadataMessage = r.success ? null : r.message || null;
  } catch {
    // The check is advisory: a host that cannot run it (not a superuser, older route) leaves the state unknown.
  }
}

/** The secret values of the adapter's credentials (API token, password, one-time password; never the user name). */
function credentialSecrets(auth: unknown): string[] {
  const a = (typeof auth === 'object' && auth !== null ? auth : {}) as Record<string, unknown>;
  return ['apiKey', 'password', 'otpPassword'].map((k) => a[k]).filter((v): v is string => typeof v === 'string');
}
