// Host/Origin edges of createMcpHttpHandler: origins written with their default port, Origin headers that are not
// origins, and a portless Host behind a TLS-terminating proxy. Real node:http server, undici client; no mocks.
// Public reports: modelcontextprotocol/rust-sdk#1268 (an allowed origin written `https://client.example:443`
// refused the browser's `Origin: https://client.example` — here it was refused at options, MCP_OPTIONS_INVALID).
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMediaAgentError } from '../../src/core/errors';
import { ConsoleLogger, createAgentHost, type AgentHost } from '../../src/index';
import { createMcpHttpHandler } from '../../src/mcp';
import { MemoryStorage } from '../../src/storage';
import { initialize, post, serve, stop, type Serving } from './http-serving';

let host: AgentHost;
beforeAll(async () => {
  host = createAgentHost({ storage: new MemoryStorage(), logger: new ConsoleLogger('silent') });
  await host.start({ workers: false });
});
afterAll(async () => {
  await host.stop();
});

const init = initialize('2025-06-18');

describe('MCP HTTP guard edges', () => {
  it('modelcontextprotocol/rust-sdk#1268: an allowed origin written with its default port matches the browser form', async () => {
    expect(() =>
      createMcpHttpHandler(host, { authenticate: () => 'apikey:x', allowedOrigins: ['https://app.example.com:443'] }),
    ).not.toThrow();
    const s = await serve(host, {
      allowedHosts: ['mcp.example.com'],
      allowedOrigins: ['https://app.example.com:443', 'http://tool.example.com:80/', 'https://wrong.example.com:80'],
    });
    try {
      const at = (origin: string) => post(s, init, { host: 'mcp.example.com', origin }).then((r) => r.status);
      expect(await at('https://app.example.com')).toBe(200);
      expect(await at('https://app.example.com:443')).toBe(200);
      expect(await at('https://APP.example.com')).toBe(200);
      expect(await at('https://app.example.com:8443')).toBe(403);
      expect(await at('http://app.example.com')).toBe(403);
      expect(await at('http://tool.example.com')).toBe(200);
      // 80 is not the default port of https: the entry names https://wrong.example.com:80, not :443
      expect(await at('https://wrong.example.com')).toBe(403);
      expect(await at('https://wrong.example.com:80')).toBe(200);
    } finally {
      await stop(s);
    }
  });

  it('an Origin that is not an origin (path, trailing slash, user info) is refused, even on the own host', async () => {
    const s: Serving = await serve(host);
    const open = await serve(host, { allowedOrigins: '*' });
    try {
      const own = `http://127.0.0.1:${s.port}`;
      for (const origin of [`${own}/evil/page`, `${own}/`, `${own}?x=1`, `http://user@127.0.0.1:${s.port}`]) {
        const r = await request(`${own}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: 'Bearer t',
            origin,
          },
          body: JSON.stringify(init),
        });
        const text = await r.body.text();
        expect(r.statusCode, origin).toBe(403);
        expect(JSON.parse(text).error.data.code, origin).toBe('MCP_ORIGIN_FORBIDDEN');
        expect(r.headers['access-control-allow-origin'], origin).toBeUndefined();
      }
      // the same page's real origin still passes; '*' accepts any origin, and still no non-origin
      expect((await post(s, init, { origin: own })).status).toBe(200);
      const openOwn = `http://127.0.0.1:${open.port}`;
      expect((await post(open, init, { origin: 'https://anyone.example' })).status).toBe(200);
      expect((await post(open, init, { origin: 'null' })).status).toBe(200);
      expect((await post(open, init, { origin: `${openOwn}/evil/page` })).status).toBe(403);
    } finally {
      await stop(s);
      await stop(open);
    }
  });

  it('behind a TLS-terminating proxy, allowedHosts "name:443" accepts the browser’s Host without a port', async () => {
    // https://mcp.example.com/mcp: the browser leaves the default port out of Host; the proxy forwards over plain
    // HTTP. A portless Host matches name:80 and name:443 entries, like the Origin rule's default port.
    const s = await serve(host, {
      allowedHosts: ['mcp.example.com:443', 'plain.example.com:80', 'alt.example.com:8443'],
    });
    try {
      const at = (h: string, origin?: string) =>
        post(s, init, { host: h, ...(origin ? { origin } : {}) }).then((r) => r.status);
      expect(await at('mcp.example.com', 'https://mcp.example.com')).toBe(200);
      expect(await at('mcp.example.com')).toBe(200);
      expect(await at('mcp.example.com:443')).toBe(200);
      expect(await at('plain.example.com')).toBe(200);
      expect(await at('mcp.example.com:8080')).toBe(403);
      // a non-default port must be written out
      expect(await at('alt.example.com')).toBe(403);
      expect(await at('alt.example.com:8443')).toBe(200);
      expect(await at('evil.example.com')).toBe(403);
    } finally {
      await stop(s);
    }
  });

  it('still refuses an allowedOrigins entry with a path or user info', () => {
    for (const bad of ['https://app.example.com/app', 'https://u@app.example.com', 'https://app.example.com?x']) {
      let thrown: unknown;
      try {
        createMcpHttpHandler(host, { authenticate: () => 'apikey:x', allowedOrigins: [bad] });
      } catch (error) {
        thrown = error;
      }
      expect(isMediaAgentError(thrown, 'MCP_OPTIONS_INVALID'), bad).toBe(true);
    }
  });
});
