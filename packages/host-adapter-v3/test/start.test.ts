import { ConsoleLogger } from '@media-agent/sdk';
import { MemoryStorage } from '@media-agent/sdk/storage';
import { createV3AgentHost, type V3Auth } from '@media-agent/host-adapter-v3';
import { MoviePilotV3Simulator } from '@media-agent/host-adapter-v3/testing';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function sim(): Promise<MoviePilotV3Simulator> {
  const s = new MoviePilotV3Simulator();
  await s.start();
  cleanups.push(() => s.close());
  return s;
}

/** Builds a host (which sends nothing) and starts it; resolves to the error `start()` threw, or undefined. */
async function startError(url: string, auth: V3Auth): Promise<{ code?: string; message: string } | undefined> {
  const v3 = createV3AgentHost({ url, auth, storage: new MemoryStorage(), logger: new ConsoleLogger('silent') });
  cleanups.push(() => v3.close());
  return v3.host.start({ workers: false }).then(
    () => undefined,
    (e: unknown) => e as { code?: string; message: string },
  );
}

describe('start() checks the MoviePilot 3.x host before anything runs', () => {
  it('nothing listening at the URL: HOST_UNREACHABLE naming the URL, and building the host sent nothing', async () => {
    const error = await startError('http://127.0.0.1:9', { apiKey: 'k' });
    expect(error?.code).toBe('HOST_UNREACHABLE');
    expect(error?.message).toContain('cannot connect to http://127.0.0.1:9');
    expect(error?.message).toContain('nothing was sent');
  });

  it("a wrong API token: HOST_AUTH_FAILED from the host's 401, naming the credential to check", async () => {
    const s = await sim();
    const error = await startError(s.url, { apiKey: 'not-the-token' });
    expect(error?.code).toBe('HOST_AUTH_FAILED');
    expect(error?.message).toMatch(/HTTP 401/);
    expect(error?.message).toContain('refused the API token');
    expect(s.requests.map((r) => [r.operationId, r.status])).toEqual([['download.clients', 401]]);
  });

  it('the host accepts the API token but answers 403 (an enveloped refusal): HOST_AUTH_FAILED saying what the host answered, not "check the API token"', async () => {
    const s = await sim();
    s.faults.rawAnswer['download.clients'] = {
      status: 403,
      body: '{"success":false,"message":"Forbidden","data":null}',
    };
    const error = await startError(s.url, { apiKey: s.apiKey });
    expect(error?.code).toBe('HOST_AUTH_FAILED');
    expect(error?.message).toContain("answered HTTP 403 to download.clients for the API token's superuser");
    expect(error?.message).not.toMatch(/check the API token/);
  });

  it('a 401 that is not a 3.x envelope (a bare {detail}) is not blamed on the token: the host is not 3.x', async () => {
    const s = await sim();
    s.faults.rawAnswer['download.clients'] = { status: 401, body: '{"detail":"Not authenticated"}' };
    const error = await startError(s.url, { apiKey: s.apiKey });
    expect(error?.code).toBe('HOST_GENERATION_MISMATCH');
    expect(error?.message).not.toMatch(/check the API token/);
  });

  it('a wrong password: HOST_AUTH_FAILED from the refused login, nothing else sent', async () => {
    const s = await sim();
    const error = await startError(s.url, { username: 'admin', password: 'wrong' });
    expect(error?.code).toBe('HOST_AUTH_FAILED');
    expect(error?.message).toContain('refused the login');
    expect(s.requests.map((r) => [r.operationId, r.status])).toEqual([['login.access_token', 401]]);
  });

  it('good credentials: start() succeeds after one login, one read and the TMDB network test, and a second start() does not check again', async () => {
    const s = await sim();
    const v3 = createV3AgentHost({
      url: s.url,
      auth: { username: 'viewer', password: 'viewer-pass' },
      storage: new MemoryStorage(),
      logger: new ConsoleLogger('silent'),
    });
    cleanups.push(() => v3.close());
    expect(s.requests).toHaveLength(0);
    await v3.host.start({ workers: false });
    await v3.host.start({ workers: false });
    expect(s.requests.map((r) => [r.operationId, r.status])).toEqual([
      ['login.access_token', 200],
      ['download.clients', 200],
      ['system.network.test', 200],
    ]);
    expect(v3.status).toEqual({ generation: 'v3', metadata: 'reachable', metadataMessage: null });
    s.assertNoViolations();
  });
});

describe('start() says what really failed when the URL is not the MoviePilot backend', () => {
  it('the login route answers an HTML page (the web frontend): HOST_PROTOCOL_ERROR naming the login and the page, not "check the user name and password"', async () => {
    const s = await sim();
    const { createServer } = await import('node:http');
    // A web frontend in front of nothing: every path is its HTML page.
    const frontend = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><html><body>MoviePilot</body></html>');
    });
    await new Promise<void>((r) => frontend.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => frontend.close(() => r())));
    const url = `http://127.0.0.1:${(frontend.address() as { port: number }).port}`;
    const error = await startError(url, { username: 'admin', password: 'admin-pass' });
    expect(error?.code).toBe('HOST_PROTOCOL_ERROR');
    expect(error?.message).toContain('MoviePilot login (POST /api/v1/login/access-token');
    expect(error?.message).toContain('answered HTTP 200 with an HTML page');
    expect(error?.message).not.toMatch(/check the user name and password/);
    // The same frontend with an API token: a host that does not answer in the 3.x envelope.
    const withKey = await startError(url, { apiKey: s.apiKey });
    expect(withKey?.code).toBe('HOST_GENERATION_MISMATCH');
    expect(withKey?.message).toContain('download.clients answered HTTP 200 with an HTML page');
  });
});
