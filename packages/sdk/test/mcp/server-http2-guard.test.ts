// createMcpHttpHandler under node:http2's compatibility API: HTTP/2 has no Host header, the authority is the
// `:authority` pseudo-header. Real node:http2 server and client. Public report: modelcontextprotocol/rust-sdk#827
// (the DNS-rebinding check read only `Host`, so valid HTTP/2 traffic was refused) — here every HTTP/2 request got
// 403 MCP_HOST_FORBIDDEN "the Host header null ...".
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost } from '../../src/index';
import { createMcpHttpHandler, type McpHttpHandler, type McpHttpHandlerOptions } from '../../src/mcp';
import { MemoryStorage } from '../../src/storage';

let host: AgentHost;
beforeAll(async () => {
  host = createAgentHost({ storage: new MemoryStorage(), logger: new ConsoleLogger('silent') });
  await host.start({ workers: false });
});
afterAll(async () => {
  await host.stop();
});

interface H2Serving {
  mcp: McpHttpHandler;
  server: http2.Http2Server;
  port: number;
}

async function serveH2(extra: Partial<McpHttpHandlerOptions> = {}): Promise<H2Serving> {
  const mcp = createMcpHttpHandler(host, { authenticate: () => 'apikey:x', ...extra });
  const server = http2.createServer((req, res) => void mcp.handle(req as never, res as never));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { mcp, server, port: (server.address() as AddressInfo).port };
}

async function stopH2(s: H2Serving): Promise<void> {
  await s.mcp.close();
  await new Promise((r) => s.server.close(r));
}

/** One HTTP/2 POST of `initialize`; `authority` overrides the `:authority` the client derives from the URL. */
async function post(s: H2Serving, extra: { origin?: string; authority?: string } = {}) {
  const client = http2.connect(`http://127.0.0.1:${s.port}`);
  try {
    const req = client.request({
      ':method': 'POST',
      ':path': '/mcp',
      ...(extra.authority ? { ':authority': extra.authority } : {}),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(extra.origin ? { origin: extra.origin } : {}),
    });
    req.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h2', version: '1' } },
      }),
    );
    const status = await new Promise<number>((r) => req.on('response', (h) => r(Number(h[':status']))));
    let text = '';
    req.on('data', (d) => (text += d));
    await new Promise((r) => req.on('end', r));
    return { status, text };
  } finally {
    client.close();
  }
}

describe('MCP HTTP guard over HTTP/2', () => {
  it('modelcontextprotocol/rust-sdk#827: ":authority: 127.0.0.1:port" passes the default Host rule', async () => {
    const s = await serveH2();
    try {
      const r = await post(s);
      expect(r.status, r.text).toBe(200);
    } finally {
      await stopH2(s);
    }
  });

  it('a page on the server’s own origin is same-origin; another origin and a rebinding name are refused', async () => {
    const s = await serveH2();
    try {
      expect((await post(s, { origin: `http://127.0.0.1:${s.port}` })).status).toBe(200);
      const cross = await post(s, { origin: 'http://evil.example.com' });
      expect(cross.status).toBe(403);
      expect(JSON.parse(cross.text).error.data.code).toBe('MCP_ORIGIN_FORBIDDEN');
      const rebound = await post(s, { authority: `evil.example.com:${s.port}` });
      expect(rebound.status).toBe(403);
      expect(JSON.parse(rebound.text).error.data.code).toBe('MCP_HOST_FORBIDDEN');
    } finally {
      await stopH2(s);
    }
  });

  it('allowedHosts applies to ":authority" (a portless authority matches "name:443")', async () => {
    const s = await serveH2({ allowedHosts: ['mcp.example.com:443'] });
    try {
      expect((await post(s, { authority: 'mcp.example.com', origin: 'https://mcp.example.com' })).status).toBe(200);
      expect((await post(s, { authority: `127.0.0.1:${s.port}` })).status).toBe(403);
    } finally {
      await stopH2(s);
    }
  });
});
