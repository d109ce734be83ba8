// CORS of the MCP HTTP endpoint behind a reverse proxy: a page on a listed origin sends Authorization and
// Content-Type: application/json, so the browser first sends a preflight (OPTIONS); both it and the answer must
// name the origin or the page may not call or read. Before, the preflight got 405 "POST only" without any
// Access-Control-* header and the POST's answer had no Access-Control-Allow-Origin. Real node:http, undici.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost } from '../../src/index';
import { createMcpHttpHandler, type McpHttpHandler } from '../../src/mcp';
import { MemoryStorage } from '../../src/storage';

const ORIGIN = 'https://console.example.com';
let host: AgentHost;
let mcp: McpHttpHandler;
let http: HttpServer;
let url: string;
beforeAll(async () => {
  host = createAgentHost({ storage: new MemoryStorage(), logger: new ConsoleLogger('silent') });
  await host.start({ workers: false });
  mcp = createMcpHttpHandler(host, {
    authenticate: ({ headers }) => (headers?.authorization === 'Bearer t' ? 'apikey:console' : undefined),
    allowedHosts: ['mcp.example.com'],
    allowedOrigins: [ORIGIN],
  });
  http = createServer((req, res) => void mcp.handle(req, res));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  await mcp.close();
  await new Promise((r) => http.close(r));
  await host.stop();
});

it('the CORS preflight of an allowed browser origin is answered with that origin and the MCP headers', async () => {
  const r = await request(url, {
    method: 'OPTIONS',
    headers: {
      host: 'mcp.example.com',
      origin: ORIGIN,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
    },
  });
  await r.body.text();
  expect(r.statusCode).toBeLessThan(300);
  expect(r.headers['access-control-allow-origin']).toBe(ORIGIN);
  expect(String(r.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
});

it('the answer to an allowed origin names it in Access-Control-Allow-Origin, so the page may read it', async () => {
  const r = await request(url, {
    method: 'POST',
    headers: {
      host: 'mcp.example.com',
      origin: ORIGIN,
      authorization: 'Bearer t',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  expect(r.statusCode).toBe(200);
  await r.body.text();
  expect(r.headers['access-control-allow-origin']).toBe(ORIGIN);
});

it('a preflight from an origin that is not accepted is refused 403 and names no origin', async () => {
  const r = await request(url, {
    method: 'OPTIONS',
    headers: { host: 'mcp.example.com', origin: 'https://evil.example', 'access-control-request-method': 'POST' },
  });
  const body = JSON.parse(await r.body.text()) as { error: { data: { code: string } } };
  expect(r.statusCode).toBe(403);
  expect(body.error.data.code).toBe('MCP_ORIGIN_FORBIDDEN');
  expect(r.headers['access-control-allow-origin']).toBeUndefined();
});

it('an unauthenticated call from an allowed origin gets its 401 readable by the page, never with credentials', async () => {
  const r = await request(url, {
    method: 'POST',
    headers: { host: 'mcp.example.com', origin: ORIGIN, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  await r.body.text();
  expect(r.statusCode).toBe(401);
  expect(r.headers['access-control-allow-origin']).toBe(ORIGIN);
  expect(String(r.headers['access-control-expose-headers'])).toContain('www-authenticate');
  expect(r.headers['access-control-allow-credentials']).toBeUndefined();
});

it('a request without Origin (a non-browser client) gets no CORS headers', async () => {
  const r = await request(url, {
    method: 'POST',
    headers: {
      host: 'mcp.example.com',
      authorization: 'Bearer t',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  await r.body.text();
  expect(r.statusCode).toBe(200);
  expect(r.headers['access-control-allow-origin']).toBeUndefined();
});
