/**
 * An MCP server over stdio that publishes the sandbox media world's 15 standard capabilities, for any MCP
 * client (Claude Desktop, an IDE, the MCP Inspector, the official SDK's `Client`).
 *
 * Every tool call goes through the host's one invocation path as the actor this process grants the client
 * that spawned it (`MCP_ACTOR`, default `apikey:mcp-client`): reads run freely; the console administrator
 * (this process) grants the client standing `download.plan` (propose) calls; anything that executes — a
 * download submit, a task cancel — is denied until a person approves it, and the result names the approval.
 *
 * Storage: memory (everything is gone when the client closes the server), or the SQLite file
 * `$MEDIA_AGENT_DATA_DIR/agent.sqlite` when that variable is set (approve there from another host process).
 * Logs go to stderr; stdout carries only MCP messages.
 *
 * With `MCP_HTTP_PORT` set, the same tools are served over Streamable HTTP on 127.0.0.1 instead
 * (`createMcpHttpHandler`), to a client that sends `Authorization: Bearer $MCP_TOKEN`; the handler answers only
 * a local `Host`/`Origin` (DNS-rebinding protection).
 *
 *   node --import tsx examples/mcp-server/main.ts
 *   MCP_HTTP_PORT=8808 MCP_TOKEN=secret node --import tsx examples/mcp-server/main.ts
 */
import { createServer } from 'node:http';
import { join } from 'node:path';
import { ConsoleLogger, createAgentHost, type Actor, type StorageAdapter } from '@media-agent/sdk';
import { createMcpHttpHandler, serveMcpStdio, type McpServing } from '@media-agent/sdk/mcp';
import { SqliteStorage } from '@media-agent/sdk/sqlite';
import { MemoryStorage } from '@media-agent/sdk/storage';
import { registerSandboxCapabilities, SandboxWorld } from '@media-agent/sdk/testing';

const actor = (process.env.MCP_ACTOR ?? 'apikey:mcp-client') as Actor;
const dataDir = process.env.MEDIA_AGENT_DATA_DIR;
const storage: StorageAdapter = dataDir
  ? new SqliteStorage({ path: join(dataDir, 'agent.sqlite') })
  : new MemoryStorage();

const host = createAgentHost({ storage, logger: new ConsoleLogger('warn') });
const world = new SandboxWorld();
registerSandboxCapabilities(host, world);
await host.start({ workers: false });
if (!(await host.grants.list({})).some((g) => g.action === 'download.plan' && g.status === 'active'))
  await host.grants.create({ action: 'download.plan', actor: 'user:admin' });

const httpPort = process.env.MCP_HTTP_PORT;
let serving: McpServing;
if (httpPort) {
  const token = process.env.MCP_TOKEN;
  if (!token) throw new Error('MCP_HTTP_PORT needs MCP_TOKEN: the bearer token a client must send');
  const mcp = createMcpHttpHandler(host, {
    name: 'media-agent-sandbox',
    // The client that knows the token acts as `actor`; a request without it is 401.
    authenticate: ({ headers }) => (headers?.authorization === `Bearer ${token}` ? actor : undefined),
  });
  const http = createServer((req, res) => {
    if (req.url === '/mcp') void mcp.handle(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(Number(httpPort), '127.0.0.1', resolve));
  serving = {
    close: async () => {
      await mcp.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  process.stderr.write(`media-agent MCP server on http://127.0.0.1:${httpPort}/mcp, acting as ${actor}\n`);
} else {
  serving = await serveMcpStdio(host, {
    name: 'media-agent-sandbox',
    // The spawning process is the caller; nothing in a request can name another actor.
    authenticate: () => actor,
  });
  process.stderr.write(`media-agent MCP server on stdio, acting as ${actor}\n`);
}

const shutdown = async () => {
  await serving.close();
  await host.stop();
  process.exit(0);
};
if (!httpPort) process.stdin.on('close', () => void shutdown());
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
