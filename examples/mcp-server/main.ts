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
 *   node --import tsx examples/mcp-server/main.ts
 */
import { join } from 'node:path';
import { ConsoleLogger, createAgentHost, type Actor, type StorageAdapter } from '@media-agent/sdk';
import { serveMcpStdio } from '@media-agent/sdk/mcp';
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

const serving = await serveMcpStdio(host, {
  name: 'media-agent-sandbox',
  // The spawning process is the caller; nothing in a request can name another actor.
  authenticate: () => actor,
});
process.stderr.write(`media-agent MCP server on stdio, acting as ${actor}\n`);

const shutdown = async () => {
  await serving.close();
  await host.stop();
  process.exit(0);
};
process.stdin.on('close', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
