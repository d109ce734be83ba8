/**
 * The media-agent side of the MCP conformance run (`npm run conformance:mcp`): a real host on a SQLite file with
 * the suite's test tools registered as capabilities, served over MCP.
 *
 *   node --import tsx examples/mcp-conformance/server.ts http   <dataDir>   # createMcpHttpHandler on 127.0.0.1
 *   node --import tsx examples/mcp-conformance/server.ts bridge <dataDir>   # HTTP → a serveMcpStdio child per session
 *   node --import tsx examples/mcp-conformance/server.ts stdio  <dataDir>   # serveMcpStdio (what the bridge spawns)
 *
 * In `bridge` mode, MCP_CONFORMANCE_STDIO_BUNDLE may name a JS bundle of this file (esbuild) for the children to
 * run instead of this file under tsx (faster to start; still a real child on real pipes).
 *
 * `http` and `bridge` print one line `{"url":"http://127.0.0.1:PORT/mcp"}` on stdout once listening, and stop on
 * SIGTERM. The suite only speaks HTTP, so `bridge` is how it reaches the stdio server: each HTTP session gets its
 * own child process running `serveMcpStdio` (real pipes), and each JSON-RPC message is forwarded unchanged both
 * ways between the official SDK's `StreamableHTTPServerTransport` and `StdioClientTransport`.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ConsoleLogger, createAgentHost } from '@media-agent/sdk';
import { createMcpHttpHandler, serveMcpStdio, type McpServerOptions } from '@media-agent/sdk/mcp';
import { SqliteStorage } from '@media-agent/sdk/sqlite';
import { registerConformanceCapabilities } from './tools';

const [mode, dataDir = process.env.MEDIA_AGENT_DATA_DIR] = process.argv.slice(2);
if (!dataDir || !['http', 'bridge', 'stdio'].includes(mode ?? '')) {
  process.stderr.write('usage: server.ts http|bridge|stdio <dataDir>\n');
  process.exit(2);
}
mkdirSync(dataDir, { recursive: true });

// The suite's client sends no credentials (and the dns-rebinding scenario calls without any): every request
// acts as one API key. The test tools are all `read` capabilities, which need no approval or grant.
const options: McpServerOptions = { name: 'media-agent-conformance', authenticate: () => 'apikey:conformance' };

async function startHost(file: string) {
  const host = createAgentHost({
    storage: new SqliteStorage({ path: join(dataDir!, file) }),
    // test_error_handling fails on purpose: only errors are logged (stderr).
    logger: new ConsoleLogger('error'),
  });
  registerConformanceCapabilities(host);
  await host.start({ workers: false });
  return host;
}

function listen(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>, onClose: () => Promise<void>) {
  const server = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') return void res.writeHead(404).end();
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`request failed: ${String(error)}\n`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/mcp` })}\n`);
  });
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close();
    void onClose().then(() => process.exit(0));
  });
}

/** One HTTP session of the bridge: its HTTP transport and its stdio child. */
interface BridgeSession {
  http: StreamableHTTPServerTransport;
  close(): Promise<void>;
}
const sessions = new Map<string, BridgeSession>();
const self = fileURLToPath(import.meta.url);
const tsx = pathToFileURL(fileURLToPath(new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url))).href;

async function bridgeRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const id = req.headers['mcp-session-id'];
  const existing = typeof id === 'string' ? sessions.get(id) : undefined;
  if (existing) return existing.http.handleRequest(req, res);
  if (typeof id === 'string') {
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'session not found' }, id: null }));
    return;
  }
  const session = await openSession();
  try {
    await session.http.handleRequest(req, res);
  } finally {
    // Not an accepted initialize (no session id was issued): nothing can reach this session again.
    if (!session.http.sessionId) await session.close();
  }
}

/** A started stdio child running `serveMcpStdio` (its host takes seconds to load, so one is kept ready). */
async function startChild(): Promise<StdioClientTransport> {
  // A prebuilt JS bundle of this file (the conformance script makes one per run) starts in about half the time.
  const bundle = process.env.MCP_CONFORMANCE_STDIO_BUNDLE;
  const child = new StdioClientTransport({
    command: process.execPath,
    args: bundle ? [bundle, 'stdio', dataDir!] : ['--import', tsx, self, 'stdio', dataDir!],
    stderr: 'inherit',
  });
  await child.start();
  return child;
}
let spare: Promise<StdioClientTransport> | undefined;

/** A new session: a stdio child running `serveMcpStdio`, wired to a new HTTP transport message by message. */
async function openSession(): Promise<BridgeSession> {
  const child = await (spare ?? startChild());
  spare = startChild();
  const http = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (sid) => void sessions.set(sid, session),
  });
  // Routing only (the messages themselves pass unchanged): a child's message answering or belonging to a
  // request goes on that request's HTTP stream. Progress notifications name their request by progress token;
  // log messages by the request in flight.
  const inFlight: Array<string | number> = [];
  const byProgressToken = new Map<string | number, string | number>();
  http.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && 'id' in message) {
      inFlight.push(message.id);
      const token = (message.params as { _meta?: { progressToken?: string | number } } | undefined)?._meta
        ?.progressToken;
      if (token !== undefined) byProgressToken.set(token, message.id);
    }
    void child.send(message);
  };
  child.onmessage = (message: JSONRPCMessage) => {
    let related: string | number | undefined;
    if (('result' in message || 'error' in message) && 'id' in message) {
      related = message.id ?? undefined;
      const at = related === undefined ? -1 : inFlight.indexOf(related);
      if (at >= 0) inFlight.splice(at, 1);
    } else if ('method' in message && message.method === 'notifications/progress') {
      related = byProgressToken.get((message.params as { progressToken: string | number }).progressToken);
    } else if ('method' in message) {
      related = inFlight.at(-1);
    }
    void http.send(message, related !== undefined ? { relatedRequestId: related } : undefined);
  };
  let closed = false;
  const session: BridgeSession = {
    http,
    async close() {
      if (closed) return;
      closed = true;
      if (http.sessionId) sessions.delete(http.sessionId);
      await child.close();
      await http.close();
    },
  };
  http.onclose = () => void session.close();
  child.onclose = () => void session.close();
  await http.start();
  return session;
}

if (mode === 'stdio') {
  const host = await startHost(`stdio-${process.pid}.sqlite`);
  const serving = await serveMcpStdio(host, options);
  process.stdin.on(
    'close',
    () =>
      void serving
        .close()
        .then(() => host.stop())
        .then(() => process.exit(0)),
  );
} else if (mode === 'http') {
  const host = await startHost('http.sqlite');
  const mcp = createMcpHttpHandler(host, options);
  listen(
    (req, res) => mcp.handle(req, res),
    async () => {
      await mcp.close();
      await host.stop();
    },
  );
} else {
  spare = startChild();
  listen(bridgeRequest, async () => {
    await Promise.all([...sessions.values()].map((s) => s.close()));
    await (await spare)?.close();
  });
}
