// The MCP HTTP endpoint's Host/Origin checks (DNS-rebinding protection) over real HTTP (node:http + undici).
// Public reports turned into tests here:
// - modelcontextprotocol/typescript-sdk GHSA-w48q-cv73-mx4w and typescript-sdk#2676: Streamable HTTP servers
//   answered any Host/Origin (DNS rebinding) — a request with `Host: evil.example.com` ran.
// - modelcontextprotocol/kotlin-sdk#840 and modelcontextprotocol/conformance#103: by default an Origin must be
//   checked, not only the Host — a loopback Host with a foreign Origin is a page calling the local server.
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentHost, createAgentHost, isMediaAgentError } from '../../src/index';
import { createMcpHttpHandler } from '../../src/mcp';
import { MemoryStorage } from '../../src/storage';
import { initialize, post, type Serving, serve, stop } from './http-serving';

let host: AgentHost;
beforeAll(async () => {
  host = createAgentHost({ storage: new MemoryStorage() });
  await host.start({ workers: false });
});
afterAll(async () => {
  await host.stop();
});

describe('DNS-rebinding protection (typescript-sdk GHSA-w48q-cv73-mx4w, typescript-sdk#2676)', () => {
  let s: Serving;
  beforeAll(async () => {
    s = await serve(host);
  });
  afterAll(() => stop(s));

  it('refuses Host: evil.example.com with 403 MCP_HOST_FORBIDDEN, before authentication and MCP', async () => {
    const before = s.authCalls;
    const r = await post(s, initialize(LATEST_PROTOCOL_VERSION), {
      host: 'evil.example.com',
      origin: 'http://evil.example.com',
    });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.text)).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { data: { code: 'MCP_HOST_FORBIDDEN' } },
    });
    expect(s.authCalls).toBe(before); // the hook never ran
    // even with the server's own port, a foreign name is refused
    expect((await post(s, initialize(LATEST_PROTOCOL_VERSION), { host: `evil.example.com:${s.port}` })).status).toBe(
      403,
    );
  });

  it('refuses a foreign Origin on a local Host with 403 MCP_ORIGIN_FORBIDDEN, and Origin: null', async () => {
    for (const origin of ['http://evil.example.com', 'null', 'not a url']) {
      const r = await post(s, initialize(LATEST_PROTOCOL_VERSION), { host: `localhost:${s.port}`, origin });
      expect(r.status).toBe(403);
      expect(JSON.parse(r.text).error.data.code).toBe('MCP_ORIGIN_FORBIDDEN');
    }
  });

  it('accepts the loopback names with any port, and the server’s own Origin', async () => {
    for (const [hostHeader, origin] of [
      [`localhost:${s.port}`, `http://localhost:${s.port}`],
      [`127.0.0.1:${s.port}`, undefined],
      ['LOCALHOST', undefined],
      [`LOCALHOST:${s.port}`, `http://localhost:${s.port}`],
      [`[::1]:${s.port}`, `http://[::1]:${s.port}`],
    ] as const) {
      const r = await post(s, initialize(LATEST_PROTOCOL_VERSION), { host: hostHeader, ...(origin ? { origin } : {}) });
      expect(r.status, hostHeader).toBe(200);
      expect(JSON.parse(r.text).result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    }
  });

  // modelcontextprotocol/kotlin-sdk#840 (a valid Host with a hostile Origin was accepted by default) and
  // modelcontextprotocol/conformance#103 (a local server's only protection from pages is the Origin check): a
  // loopback Origin on another port is another web app, not this server's page.
  it('refuses another local web app (a loopback Origin on another port or name) by default', async () => {
    for (const origin of [
      'http://localhost:3000',
      'http://localhost:5173',
      `http://localhost:${s.port + 1}`,
      `http://127.0.0.1:${s.port}`,
      'https://localhost',
    ]) {
      const r = await post(s, initialize(LATEST_PROTOCOL_VERSION), { host: `localhost:${s.port}`, origin });
      expect(r.status, origin).toBe(403);
      expect(JSON.parse(r.text).error.data.code, origin).toBe('MCP_ORIGIN_FORBIDDEN');
    }
    // a Host without a port: only an origin on the scheme's default port is the same origin
    expect(
      (await post(s, initialize(LATEST_PROTOCOL_VERSION), { host: 'localhost', origin: 'http://localhost' })).status,
    ).toBe(200);
    expect(
      (await post(s, initialize(LATEST_PROTOCOL_VERSION), { host: 'localhost', origin: 'http://localhost:3000' }))
        .status,
    ).toBe(403);
  });

  it('with cookie authentication, a cross-origin local page is refused before the hook; a listed one passes', async () => {
    let hookCalls = 0;
    const cookieAuth = (listed?: string[]) =>
      serve(host, {
        authenticate: ({ headers }) => {
          hookCalls++;
          return String(headers?.cookie ?? '').includes('session=ok') ? 'apikey:browser' : undefined;
        },
        ...(listed ? { allowedOrigins: listed } : {}),
      });
    const strict = await cookieAuth();
    const listed = await cookieAuth(['http://localhost:3000']);
    try {
      const init = initialize(LATEST_PROTOCOL_VERSION);
      const fromApp = (t: Serving) => ({
        host: `localhost:${t.port}`,
        origin: 'http://localhost:3000',
        cookie: 'session=ok',
      });
      const refused = await post(strict, init, fromApp(strict));
      expect(refused.status).toBe(403);
      expect(hookCalls).toBe(0);
      expect((await post(listed, init, fromApp(listed))).status).toBe(200);
      expect(hookCalls).toBe(1);
      // the server's own page still passes on the strict one
      const own = { host: `localhost:${strict.port}`, origin: `http://localhost:${strict.port}`, cookie: 'session=ok' };
      expect((await post(strict, init, own)).status).toBe(200);
    } finally {
      await stop(strict);
      await stop(listed);
    }
  });

  it('accepts the address and port the request arrived at, and no other port of it', async () => {
    // 127.0.0.2 is a loopback address but not one of the loopback names: only the local-address rule admits it.
    const wide = await serve(host, {}, '0.0.0.0');
    try {
      const target = `http://127.0.0.2:${wide.port}/mcp`;
      expect((await post(wide, initialize(LATEST_PROTOCOL_VERSION), {}, target)).status).toBe(200);
      const other = await post(
        wide,
        initialize(LATEST_PROTOCOL_VERSION),
        { host: `127.0.0.2:${wide.port + 1}` },
        target,
      );
      expect(other.status).toBe(403);
      const viaOtherAddress = await post(
        wide,
        initialize(LATEST_PROTOCOL_VERSION),
        { host: `127.0.0.3:${wide.port}` },
        target,
      );
      expect(viaOtherAddress.status).toBe(403);
    } finally {
      await stop(wide);
    }
  });

  it('allowedHosts replaces the default; "*" opts out; allowedOrigins is exact and adds to the own origin', async () => {
    const proxied = await serve(host, {
      allowedHosts: ['mcp.example.com'],
      allowedOrigins: ['https://console.example.com'],
    });
    const open = await serve(host, { allowedHosts: '*' });
    try {
      const init = initialize(LATEST_PROTOCOL_VERSION);
      expect((await post(proxied, init, { host: 'mcp.example.com' })).status).toBe(200);
      expect((await post(proxied, init, { host: 'MCP.example.com:443' })).status).toBe(200);
      expect((await post(proxied, init, { host: `localhost:${proxied.port}` })).status).toBe(403);
      expect(
        (await post(proxied, init, { host: 'mcp.example.com', origin: 'https://console.example.com' })).status,
      ).toBe(200);
      // the server's own origin passes besides the list (a Host without a port: the origin scheme's default port)
      expect((await post(proxied, init, { host: 'mcp.example.com', origin: 'https://mcp.example.com' })).status).toBe(
        200,
      );
      expect(
        (await post(proxied, init, { host: 'mcp.example.com', origin: 'https://mcp.example.com:8443' })).status,
      ).toBe(403);
      expect((await post(proxied, init, { host: 'mcp.example.com', origin: 'https://other.example.com' })).status).toBe(
        403,
      );
      expect((await post(open, init, { host: 'anything.example' })).status).toBe(200);
      // '*' for hosts still keeps browsers to same-origin pages unless allowedOrigins says otherwise
      expect((await post(open, init, { host: 'anything.example', origin: 'http://anything.example' })).status).toBe(
        200,
      );
      expect((await post(open, init, { host: 'anything.example', origin: 'http://evil.example.com' })).status).toBe(
        403,
      );
    } finally {
      await stop(proxied);
      await stop(open);
    }
  });

  it('refuses entries that are not hosts or origins with MCP_OPTIONS_INVALID', () => {
    const auth = () => 'apikey:x' as const;
    for (const bad of [
      { allowedHosts: ['http://mcp.example.com'] },
      { allowedHosts: ['mcp.example.com/mcp'] },
      { allowedHosts: 'localhost' as never },
      { allowedOrigins: ['mcp.example.com'] },
      { allowedOrigins: ['https://mcp.example.com/path'] },
    ]) {
      let thrown: unknown;
      try {
        createMcpHttpHandler(host, { authenticate: auth, ...bad });
      } catch (error) {
        thrown = error;
      }
      expect(isMediaAgentError(thrown, 'MCP_OPTIONS_INVALID'), JSON.stringify(bad)).toBe(true);
    }
  });
});
