import {
  createAgentContainer,
  DefaultCapabilityRegistry,
  MemoryStorage,
  PolicyAuthorizer,
  registerStandardCapabilities,
  resolvePort,
  Tokens,
  type AgentHost,
  type AgentOptions,
  type Capability,
  type GoalFacts,
} from '@media-agent/sdk';
import type { DependencyContainer } from 'tsyringe';
import { V2SuperuserAuthorizer, type SuperuserResolver } from './authorizer';
import { planInspectCapability, subscriptionCapabilities, V2HostView, v2StandardCapabilities } from './capabilities';
import { V2HostClient, type V2ClientOptions, type V2Credentials } from './client';
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
  /** API token (`X-API-KEY`) or user name and password (JWT). */
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
  /** The tsyringe container it was resolved from. */
  container: DependencyContainer;
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
  /** Stops the SDK host and closes the client's pool. */
  close(): Promise<void>;
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
 * @throws `HOST_OPTIONS_INVALID` for a bad URL or missing credentials; `OPTIONS_INVALID` from the SDK;
 *   {@link V2PluginDefinitionError} `PLUGIN_KIND_TOO_WEAK` (a declaration weaker than its route),
 *   `PLUGIN_DECLARATION_INVALID` (a plugin capability declaring a route the host does not serve)
 * @public
 */
export async function createV2AgentHost(options: V2AgentHostOptions): Promise<V2AgentHost> {
  const client = new V2HostClient({ ...options.client, url: options.url, credentials: options.credentials, ...(options.logger && !options.client?.logger ? { logger: options.logger } : {}) });
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
  registerStandardCapabilities(host.capabilities, v2StandardCapabilities({ view, plans: host.plans }));
  host.capabilities.register(planInspectCapability(host.plans));
  for (const c of subscriptionCapabilities(view)) host.capabilities.register(c);
  const pluginCapabilities: string[] = [];
  if (options.plugins !== false) {
    try {
      const found = await discoverV2PluginCapabilities(client, options.plugins?.declarations ?? {});
      plugins.document = found.document;
      for (const s of found.skipped) (options.logger ?? { warn: () => undefined }).warn('a MoviePilot plugin route was left out: its input schema cannot be offered to model providers', { capabilityId: s.capabilityId, code: s.error.code, error: s.error.message });
      for (const c of found.capabilities) {
        if (host.capabilities.has(c.id)) continue;
        host.capabilities.register(c);
        pluginCapabilities.push(c.id);
      }
    } catch (error) {
      if (error instanceof V2PluginDefinitionError) throw error;
      (options.logger ?? { warn: () => undefined }).warn('MoviePilot plugin APIs were not read; no plugin capabilities', { error: error instanceof Error ? error.message : String(error) });
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
    close: async () => {
      await host.stop().catch(() => undefined);
      await client.close();
    },
  };
}
