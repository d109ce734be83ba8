import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AgentHost } from '../runtime/agent-host';
import { resolveActor, type McpCaller } from './caller';
import { buildMcpServer, createMcpServer, type McpServerOptions } from './mcp-server';
import { answerPreflight, isPreflight, setCorsHeaders } from './http-cors';
import { requestGuard, type McpHttpGuardOptions } from './http-guard';

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
 * @throws `MCP_OPTIONS_INVALID` (a `MediaAgentError`) without `authenticate`
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
   * 405: the server is stateless). In order:
   * 1. a `Host` or `Origin` the handler's {@link McpHttpHandlerOptions.allowedHosts | allowedHosts} /
   *    {@link McpHttpHandlerOptions.allowedOrigins | allowedOrigins} do not accept is answered 403 with a
   *    JSON-RPC error carrying `MCP_HOST_FORBIDDEN` or `MCP_ORIGIN_FORBIDDEN` in `error.data.code`;
   * 2. a browser's CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) from an accepted
   *    origin is answered 204 allowing `POST` with the MCP request headers; every answer to an accepted origin
   *    names it in `Access-Control-Allow-Origin` (never `*`, never with credentials);
   * 3. a request `authenticate` does not accept is answered 401 with `WWW-Authenticate: Bearer` and a JSON-RPC
   *    error carrying `MCP_UNAUTHENTICATED`;
   * 4. a body over 4 MiB is answered 413, a body that is not JSON 400 (`-32700`), an `MCP-Protocol-Version`
   *    header naming a revision the installed MCP SDK does not support 400;
   * 5. a POST holding a `tools/call` is answered as an SSE stream (`text/event-stream`: the call's progress and log
   *    notifications, then its result); any other POST as one JSON response.
   * @param req - the request; a host that authenticates in middleware sets `req.auth` (passed to `authenticate` as `authInfo`)
   * @param res - the response
   * @param body - the parsed JSON body, when middleware already read it
   */
  handle(req: IncomingMessage & { auth?: McpCaller['authInfo'] }, res: ServerResponse, body?: unknown): Promise<void>;
}

/**
 * Options of {@link createMcpHttpHandler}: the server's options and the endpoint's Host/Origin rules.
 * @public
 */
export interface McpHttpHandlerOptions extends McpServerOptions, McpHttpGuardOptions {}

/** Largest request body read, in bytes: 4 MiB (as the MCP SDK's own limit). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A JSON-RPC error answer with no id (the request was not read as a message). */
function refuse(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  data?: unknown,
): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(
      JSON.stringify({ jsonrpc: '2.0', error: { code, message, ...(data !== undefined ? { data } : {}) }, id: null }),
    );
}

/** The request body as JSON; `too_large` past the limit, `invalid` when it is not JSON. */
async function readJson(
  req: IncomingMessage,
): Promise<{ ok: true; value: unknown } | { ok: false; reason: 'too_large' | 'invalid' }> {
  if (Number(req.headers['content-length']) > MAX_BODY_BYTES) return { ok: false, reason: 'too_large' };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer | string>) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return { ok: false, reason: 'too_large' };
    chunks.push(buffer);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { ok: false, reason: 'invalid' };
  }
}

/** True when the message (or a message of the batch) is a `tools/call` request. */
function holdsToolCall(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'tools/call' && 'id' in m,
  );
}

/**
 * Serves a host's capabilities over MCP Streamable HTTP, statelessly: each request gets its own server and
 * transport (no session). Mount `handle` on the host's HTTP server at its MCP path; the `authenticate` hook
 * receives the request's headers and `req.auth` (never its body).
 *
 * @remarks
 * - DNS-rebinding protection is on by default: only a `Host` naming a loopback name (`localhost`, `127.0.0.1`,
 *   `[::1]`, any port) or the address and port the request arrived at is answered, and an `Origin`, when sent,
 *   must be the request's own (host and port of its `Host`) or listed in `allowedOrigins`; anything else is 403
 *   before authentication. Behind a reverse proxy that forwards the
 *   public name, list it in `allowedHosts` (or pass `'*'`); see {@link McpHttpGuardOptions}.
 * - A `tools/call` is answered as an SSE stream so the call's `ctx.progress` (when the client sent
 *   `_meta.progressToken`) and `ctx.logToCaller` reach the client before the result; a JSON response cannot
 *   carry them. Other requests (`initialize`, `tools/list`, `ping`, …) are answered as one JSON response.
 * - Protocol revisions are the installed MCP SDK's (`SUPPORTED_PROTOCOL_VERSIONS`; `initialize` with another
 *   revision is answered with its `LATEST_PROTOCOL_VERSION`); an unsupported `MCP-Protocol-Version` header is 400.
 *
 * @param host - a started host
 * @param options - the server options, and `allowedHosts` / `allowedOrigins`
 * @returns the handler
 * @throws `MCP_OPTIONS_INVALID` (a `MediaAgentError`) without `authenticate`, or for an `allowedHosts` /
 *   `allowedOrigins` entry that is not a host / an origin
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createMcpHttpHandler } from '@media-agent/sdk/mcp';
 *
 * const mcp = createMcpHttpHandler(host, {
 *   authenticate: ({ headers }) => (headers?.authorization === `Bearer ${process.env.MCP_TOKEN}` ? 'apikey:mcp' : undefined),
 *   // behind a reverse proxy that forwards Host: mcp.example.com
 *   allowedHosts: ['mcp.example.com', 'localhost'],
 * });
 * createServer((req, res) => (req.url === '/mcp' ? mcp.handle(req, res) : res.writeHead(404).end())).listen(8808);
 * ```
 * @public
 */
export function createMcpHttpHandler(host: AgentHost, options: McpHttpHandlerOptions): McpHttpHandler {
  createMcpServer(host, options); // checks the options once, now
  const guard = requestGuard(options);
  const open = new Set<{ close(): Promise<void> }>();
  return {
    async handle(req, res, body) {
      // DNS rebinding: a Host or Origin this server does not answer to stops here, before anything else.
      const refused = guard(req);
      if (refused) {
        refuse(res, 403, -32000, refused.message, {}, { code: refused.code });
        return;
      }
      // A page on an accepted origin may call and read the answers (its preflight is answered here).
      if (isPreflight(req)) {
        answerPreflight(req, res);
        return;
      }
      setCorsHeaders(req, res);
      if (req.method !== 'POST') {
        refuse(res, 405, -32000, 'method not allowed: POST only', { allow: 'POST' });
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
        refuse(
          res,
          401,
          -32001,
          'the MCP request is not authenticated',
          { 'www-authenticate': 'Bearer' },
          { code: 'MCP_UNAUTHENTICATED' },
        );
        return;
      }
      let message = body;
      if (message === undefined) {
        const read = await readJson(req);
        if (!read.ok) {
          if (read.reason === 'too_large') refuse(res, 413, -32000, `the request body is over ${MAX_BODY_BYTES} bytes`);
          else refuse(res, 400, -32700, 'Parse error: the request body is not JSON');
          return;
        }
        message = read.value;
      }
      const server = createMcpServer(host, options);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        // A tool call streams (its progress and log notifications travel before the result); the rest is JSON.
        enableJsonResponse: !holdsToolCall(message),
      });
      open.add(server);
      res.on('close', () => {
        open.delete(server);
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, message);
    },
    async close() {
      await Promise.all([...open].map((s) => s.close()));
      open.clear();
    },
  };
}
