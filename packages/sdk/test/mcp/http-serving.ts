// Shared by the MCP HTTP tests: a real node:http server around createMcpHttpHandler, and one raw POST (undici).
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type { AgentHost } from '../../src/index';
import { createMcpHttpHandler, type McpHttpHandler, type McpHttpHandlerOptions } from '../../src/mcp';

export interface Serving {
  url: URL;
  port: number;
  mcp: McpHttpHandler;
  http: HttpServer;
  /** How many times `authenticate` ran. */
  authCalls: number;
}

/** Serves `host` on a free port of `listenOn`; `authenticate` accepts `Authorization: Bearer t`. */
export async function serve(
  host: AgentHost,
  extra: Partial<McpHttpHandlerOptions> = {},
  listenOn = '127.0.0.1',
): Promise<Serving> {
  const serving = { authCalls: 0 } as Serving;
  serving.mcp = createMcpHttpHandler(host, {
    authenticate: ({ headers }) => {
      serving.authCalls++;
      return headers?.authorization === 'Bearer t' ? 'apikey:client' : undefined;
    },
    ...extra,
  });
  serving.http = createServer((req, res) => void serving.mcp.handle(req, res));
  await new Promise<void>((resolve) => serving.http.listen(0, listenOn, resolve));
  serving.port = (serving.http.address() as AddressInfo).port;
  serving.url = new URL(`http://127.0.0.1:${serving.port}/mcp`);
  return serving;
}

export async function stop(s: Serving): Promise<void> {
  await s.mcp.close();
  await new Promise((resolve) => s.http.close(resolve));
}

export const initialize = (version: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** One raw POST; `host` and `origin` in `headers` set those headers. */
export async function post(
  s: Serving,
  body: unknown,
  headers: Record<string, string> = {},
  target = `http://127.0.0.1:${s.port}/mcp`,
) {
  const response = await request(target, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: 'Bearer t',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, type: String(response.headers['content-type']), text };
}
