import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AgentHost } from '../runtime/agent-host';
import { resolveActor, type McpCaller } from './caller';
import { buildMcpServer, createMcpServer, type McpServerOptions } from './mcp-server';

/** A running MCP server. @public */
export interface McpServing {
  /** Closes the transport (stdio: stops reading; HTTP: closes open requests); the host is left running. */
  close(): Promise<void>;
}

/**
 * Serves a host's capabilities over MCP on stdio: the process's stdin and stdout (or the streams given), as
 * an MCP client that spawned this process expects. Nothing else may write to stdout meanwhile (log to
 * stderr).
 *
 * @param host - a started host
 * @param options - the server options; `authenticate` receives `{ transport: 'stdio' }` (the spawning process is
 *   the caller: return the actor the host grants it, e.g. `apikey:desktop`); `stdin`/`stdout` to use other streams
 * @returns the serving handle (close it to stop)
 * @throws {@link MediaAgentError} `MCP_OPTIONS_INVALID` without `authenticate`
 *
 * @example
 * ```ts
 * import { serveMcpStdio } from '@media-agent/sdk/mcp';
 * await host.start();
 * await serveMcpStdio(host, { authenticate: () => 'apikey:claude-desktop' });
 * ```
 * @public
 */
export async function serveMcpStdio(
  host: AgentHost,
  options: McpServerOptions & { stdin?: Readable; stdout?: Writable },
): Promise<McpServing> {
  const server = buildMcpServer(host, options, (): McpCaller => ({ transport: 'stdio' }));
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  await server.connect(transport);
  return { close: () => server.close() };
}

/** A Node HTTP request handler serving MCP over Streamable HTTP. @public */
export interface McpHttpHandler extends McpServing {
  /**
   * Handles one HTTP request to the MCP endpoint (POST with a JSON-RPC message; GET and DELETE are answered
   * 405: the server is stateless). A request `authenticate` does not accept is answered 401 with
   * `WWW-Authenticate: Bearer` and a JSON-RPC error carrying `MCP_UNAUTHENTICATED`, before any MCP handling.
   * @param req - the request; a host that authenticates in middleware sets `req.auth` (passed to `authenticate` as `authInfo`)
   * @param res - the response
   * @param body - the parsed JSON body, when middleware already read it
   */
  handle(req: IncomingMessage & { auth?: McpCaller['authInfo'] }, res: ServerResponse, body?: unknown): Promise<void>;
}

/**
 * Serves a host's capabilities over MCP Streamable HTTP, statelessly: each request gets its own server and
 * transport (no session), with JSON responses. Mount `handle` on the host's HTTP server at its MCP path; the
 * `authenticate` hook receives the request's headers and `req.auth` (never its body).
 *
 * @param host - a started host
 * @param options - the server options
 * @returns the handler
 * @throws {@link MediaAgentError} `MCP_OPTIONS_INVALID` without `authenticate`
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createMcpHttpHandler } from '@media-agent/sdk/mcp';
 *
 * const mcp = createMcpHttpHandler(host, {
 *   authenticate: ({ headers }) => (headers?.authorization === `Bearer ${process.env.MCP_TOKEN}` ? 'apikey:mcp' : undefined),
 * });
 * createServer((req, res) => (req.url === '/mcp' ? mcp.handle(req, res) : res.writeHead(404).end())).listen(8808);
 * ```
 * @public
 */
export function createMcpHttpHandler(host: AgentHost, options: McpServerOptions): McpHttpHandler {
  createMcpServer(host, options); // checks the options once, now
  const open = new Set<{ close(): Promise<void> }>();
  return {
    async handle(req, res, body) {
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            error: { code: -32000, message: 'method not allowed: POST only' },
            id: null,
          }),
        );
        return;
      }
      // Unauthenticated requests stop here, before any MCP handling: 401 with a challenge, nothing listed or run.
      const headers = req.headers as McpCaller['headers'];
      const authenticated = await resolveActor(options.authenticate, {
        transport: 'http',
        ...(headers ? { headers } : {}),
        ...(req.auth ? { authInfo: req.auth } : {}),
      }).then(
        () => true,
        () => false,
      );
      if (!authenticated) {
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            error: {
              code: -32001,
              message: 'the MCP request is not authenticated',
              data: { code: 'MCP_UNAUTHENTICATED' },
            },
            id: null,
          }),
        );
        return;
      }
      const server = createMcpServer(host, options);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      open.add(server);
      res.on('close', () => {
        open.delete(server);
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    },
    async close() {
      await Promise.all([...open].map((s) => s.close()));
      open.clear();
    },
  };
}
