// The drift fixture MCP server closes each connection after its response, and says so: the SDK's transport writes
// `Connection: keep-alive` itself, and a response that said keep-alive on a socket the server then ended let the
// client send its next request on it ("fetch failed: other side closed", seen on CI under load).
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startDriftMcpServer } from './fixtures/drift-mcp-server';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1.0.0' } },
});

describe('the drift fixture MCP server answers Connection: close', () => {
  for (const [name, start] of [['drift', startDriftMcpServer]] as const) {
    it(`${name}: an initialize answered over SSE says close, not the SDK's keep-alive`, async () => {
      const server = await start();
      stops.push(() => server.stop());
      const res = await request(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: initialize,
      });
      const body = await res.body.text();
      expect(res.statusCode).toBe(200);
      expect(body).toContain('"protocolVersion"');
      expect(res.headers.connection).toBe('close');
    });
  }
});
