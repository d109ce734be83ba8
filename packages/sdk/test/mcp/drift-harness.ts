// Shared setup for the tests that consume the drift MCP server (fixtures/drift-mcp-server.ts): a real AgentHost on
// MemoryStorage, the official StreamableHTTPClientTransport, and the resources each test must close afterwards.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ConsoleLogger, createAgentHost, type AgentHost, type Logger } from '../../src/index';
import { registerMcpServer, type McpToolChange } from '../../src/mcp';
import { MemoryStorage } from '../../src/storage';
import { ScriptedProvider } from '../../src/testing';
import { startDriftMcpServer, type DriftMcpServer } from './fixtures/drift-mcp-server';

/** Hosts, drift servers and client transports a test opened; {@link closeDriftResources} closes them. */
export const hosts: AgentHost[] = [];
export const servers: DriftMcpServer[] = [];
export const transports: StreamableHTTPClientTransport[] = [];

/** For `afterEach`: stops the hosts, closes the transports, stops the servers (in that order). */
export async function closeDriftResources(): Promise<void> {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const t of transports.splice(0)) await t.close().catch(() => undefined);
  for (const s of servers.splice(0)) await s.stop().catch(() => undefined);
}

/** A started host with no model, on MemoryStorage and a silent logger. */
export async function startScriptedHost(): Promise<AgentHost> {
  const host = createAgentHost({
    storage: new MemoryStorage(),
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: [] }) },
  });
  hosts.push(host);
  await host.start();
  return host;
}

/** A client transport to `url`, closed after the test. */
export function trackedTransport(url: URL): StreamableHTTPClientTransport {
  const transport = new StreamableHTTPClientTransport(url);
  transports.push(transport);
  return transport;
}

/** A drift server and a host (not started, no model) that owns a connected official Client to it. */
export async function hostOwnedClient(): Promise<{ server: DriftMcpServer; host: AgentHost; client: Client }> {
  const server = await startDriftMcpServer();
  servers.push(server);
  const host = createAgentHost({ storage: new MemoryStorage(), logger: new ConsoleLogger('silent') });
  hosts.push(host);
  const client = new Client({ name: 'host-app', version: '1.0.0' });
  await client.connect(trackedTransport(server.url));
  return { server, host, client };
}

/**
 * Announces a tool-list change until the client listed the tools again: its event stream may open after a moment,
 * and a notification sent before it is lost. Each announcement waits up to 1 s for the listing before the next, so a
 * loaded machine does not pile up notifications (each a listing of its own); 30 s in all.
 */
export async function announceUntilListed(server: DriftMcpServer): Promise<void> {
  const lists = server.stats.lists;
  const deadline = Date.now() + 30_000;
  for (let sent = 0; server.stats.lists <= lists; sent++) {
    if (Date.now() > deadline)
      throw new Error(`the client did not list the tools again within 30 s of ${sent} announcements`);
    await server.notifyToolsChanged();
    for (let polls = 0; polls < 50 && server.stats.lists <= lists; polls++) await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A drift server and a started host; `register()` consumes the server as `idx` (read-only `search`) over a fresh
 * transport, recording tool changes in `changes`. Nothing is registered until `register()` is called.
 */
export async function driftSetup(options: { before?: (host: AgentHost) => void; logger?: Logger } = {}) {
  const server = await startDriftMcpServer();
  servers.push(server);
  const host = await startScriptedHost();
  options.before?.(host);
  const changes: McpToolChange[] = [];
  const register = () =>
    registerMcpServer(host, {
      name: 'idx',
      transport: trackedTransport(server.url),
      readOnlyTools: ['search'],
      onToolChange: (c) => changes.push(c),
      ...(options.logger ? { logger: options.logger } : {}),
    });
  const announce = () => announceUntilListed(server);
  return { server, host, changes, register, announce };
}
