import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConsoleLogger, isMediaAgentError, type Logger } from '@media-agent/sdk';
import { MemoryStorage } from '@media-agent/sdk/storage';
import { loadV2Contract, MoviePilotV2Simulator, type V2SimulatorOptions } from '@media-agent/host-adapter-v2/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createV2AgentHost,
  HOST_SUPERUSER_REQUIRED,
  V2_MIN_VERSION,
  V2HostClient,
  type V2Credentials,
} from '../src/index';
import { cleanup, started, v2Setup } from './helpers';

afterEach(cleanup);
const admin = { actor: 'user:admin', taskId: 't' } as const;
const TOKEN = 'sim-api-token-0123456789abcdef';
const LOGIN = { username: 'admin', password: 'password' } as const;

async function sim(options: V2SimulatorOptions = {}): Promise<MoviePilotV2Simulator> {
  const s = new MoviePilotV2Simulator({ contract: 'v2.5.6', ...options });
  await s.start();
  started.push(s);
  return s;
}

const hostOn = async (s: MoviePilotV2Simulator, auth: V2Credentials, logger: Logger = new ConsoleLogger('silent')) => {
  const v2 = createV2AgentHost({ url: s.url, auth, storage: new MemoryStorage(), logger });
  started.push(v2);
  return v2;
};

/** Starts an adapter host (its start-up check runs first), to be closed after the test. */
const startOf = (v2: ReturnType<typeof createV2AgentHost>) => {
  started.push(v2);
  return v2.host.start({ workers: false });
};

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as { code?: string; message: string; details?: Record<string, unknown> },
  );

/** Every standard capability a run uses, in order, as a superuser (auto transfer off: organize.execute sends POST /transfer/manual). */
async function fullFlow(
  host: Awaited<ReturnType<typeof createV2AgentHost>>['host'],
  clock?: { advance(ms: number): void },
) {
  const ok = async (id: string, input: unknown) => {
    const r = await host.invoke(id, input, admin);
    expect(r.status, `${id}: ${JSON.stringify(r.error)}`).toMatch(/succeeded|pending/);
    return r.output as any;
  };
  const item = (await ok('catalog.lookup', { query: 'Dune: Part Two 2024', limit: 2 })).items[0];
  const releases = (await ok('release.search', { mediaSource: 'tmdb', mediaId: '693134' })).releases;
  await ok('release.inspect', { releaseId: releases[0].releaseId });
  const plan = await ok('download.plan', {
    mediaSource: item.mediaSource,
    mediaId: item.mediaId,
    kind: 'movie',
    releaseId: releases[0].releaseId,
  });
  const job = (await ok('download.submit', { planId: plan.plan.id })).download;
  clock?.advance(60_000);
  await ok('task.inspect', { planId: plan.plan.id });
  await ok('inventory.query', { query: 'tmdb:329865' });
  await ok('policy.apply', { kind: 'acquisition', settings: { minResolution: '1080p' } });
  await ok('moviepilot.subscription.add', { mediaSource: 'tmdb', mediaId: '126308', kind: 'tv', name: 'Shōgun' });
  return { job };
}

describe("per-route authentication from the host's own OpenAPI document (MoviePilot v2.5.6)", () => {
  it('a token-only configuration on v2.5.6 is refused before any request, naming the login to configure (HOST_AUTH_FAILED)', async () => {
    const s = await sim();
    const error = await refusal(
      startOf(
        createV2AgentHost({
          url: s.url,
          auth: { apiKey: s.apiKey },
          storage: new MemoryStorage(),
          logger: new ConsoleLogger('silent'),
        }),
      ),
    );
    expect(error).toMatchObject({
      code: 'HOST_AUTH_FAILED',
      details: expect.objectContaining({ missing: 'login', beforeRequest: true }),
    });
    expect(error!.message).toMatch(/accept only a login/);
    expect(error!.message).toMatch(/user name and password/);
    expect(s.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/openapi.json']); // the document only
    s.assertNoViolations();
  });

  it('the client picks the credential each route accepts and refuses, before sending, a route its credentials do not open', async () => {
    const s = await sim();
    const tokenOnly = new V2HostClient({ url: s.url, auth: { apiKey: s.apiKey } });
    started.push(tokenOnly);
    const error = await refusal(tokenOnly.call('media.search', { query: { title: 'Dune' } }));
    expect(error).toMatchObject({
      code: 'HOST_AUTH_FAILED',
      details: expect.objectContaining({ missing: 'login', beforeRequest: true }),
    });
    expect(error!.message).toMatch(/configure a login/);
    expect(s.requestCount('GET /api/v1/media/search')).toBe(0);
    // /api/v3 accepts the API token only: sent as X-API-KEY
    expect(await tokenOnly.call('system.status')).toMatchObject({ version: 'v2.5.6' });
    expect(s.requests.at(-1)).toMatchObject({ path: '/api/v3/system/status', principal: 'apikey', status: 200 });
    // a route that accepts nothing but ?token=
    await tokenOnly
      .send({
        id: 'subscribe.list2',
        method: 'GET',
        path: '/api/v1/subscribe/list',
        envelope: 'bare',
        security: ['api_token_query'],
        write: false,
      })
      .catch(() => undefined);
    expect(s.requests.at(-1)).toMatchObject({ path: '/api/v1/subscribe/list', principal: 'apikey' });
    const loginOnly = new V2HostClient({ url: s.url, auth: LOGIN });
    started.push(loginOnly);
    await expect(loginOnly.call('system.status')).rejects.toMatchObject({
      code: 'HOST_AUTH_FAILED',
      details: expect.objectContaining({ missing: 'apiKey' }),
    });
    expect(s.requestCount('GET /api/v3/system/status')).toBe(1);
    s.assertNoViolations();
  });

  it('a login-only configuration on v2.5.6: every standard capability sends the login (Bearer) and validates against the v2.5.6 document, organize.execute included', async () => {
    const {
      clock,
      sim: s,
      host,
      adapter,
    } = await v2Setup({ sim: { contract: 'v2.5.6', autoTransfer: false }, host: { auth: LOGIN } });
    expect(adapter.client.credentialIsSuperuser).toBe(true);
    const { job } = await fullFlow(host, clock);
    const org = await host.invoke('organize.plan', { downloadId: job.id }, admin);
    expect((await host.invoke('organize.execute', { planId: (org.output as any).plan.id }, admin)).status).toBe(
      'succeeded',
    );
    expect(s.inLibrary(693134)).toBe(true);
    const principals = new Set(
      s.requests
        .filter((r) => r.template && r.template !== '/api/v1/login/access-token' && r.path !== '/api/v1/openapi.json')
        .map((r) => r.principal),
    );
    expect([...principals]).toEqual(['user:admin']);
    expect(adapter.status).toMatchObject({
      version: 'v2.5.6',
      versionSource: 'GET /api/v1/system/env',
      metadata: 'reachable',
    });
    s.assertNoViolations();
  });
});

describe('both credentials at once', () => {
  it('with a login and the API token, standard routes carry the login, /api/v3 the token; the version comes from /api/v3/system/status', async () => {
    const {
      clock,
      sim: s,
      host,
      adapter,
    } = await v2Setup({
      sim: { contract: 'v2.5.6', autoTransfer: false },
      host: { auth: { apiKey: TOKEN, ...LOGIN } },
    });
    await fullFlow(host, clock);
    expect(s.requests.find((r) => r.path === '/api/v1/media/search')?.principal).toBe('user:admin');
    expect(s.requests.find((r) => r.path === '/api/v3/system/status')?.principal).toBe('apikey');
    expect(adapter.status).toMatchObject({ version: 'v2.5.6', versionSource: 'GET /api/v3/system/status' });
    s.assertNoViolations();
  });

  it("authority is the login user's, never the token's: a non-superuser login with the API token is denied organize.execute before any request", async () => {
    const {
      sim: s,
      host,
      adapter,
    } = await v2Setup({
      sim: { contract: 'v2.5.6' },
      host: { auth: { apiKey: TOKEN, username: 'guest', password: 'password' } },
    });
    expect(adapter.client.credentialIsSuperuser).toBe(false);
    const r = await host.invoke('organize.execute', { planId: 'plan-x' }, admin);
    expect(r.status).toBe('denied');
    expect(r.error?.code).toBe(HOST_SUPERUSER_REQUIRED);
    expect(s.requestCount('POST /api/v1/transfer/manual')).toBe(0);
  });

  it('on the newer document both credentials work too, and the login is preferred where a route accepts either', async () => {
    const { sim: s, host } = await v2Setup({ host: { auth: { apiKey: TOKEN, ...LOGIN } } });
    expect((await host.invoke('catalog.lookup', { query: 'Dune' }, admin)).status).toBe('succeeded');
    expect(s.requests.find((r) => r.path === '/api/v1/media/search')?.principal).toBe('user:admin');
    s.assertNoViolations();
  });

  it('options: a user name without a password is HOST_OPTIONS_INVALID', () => {
    expect(
      () => new V2HostClient({ url: 'http://127.0.0.1:1', auth: { apiKey: 'k', username: 'admin' } as never }),
    ).toThrow(expect.objectContaining({ code: 'HOST_OPTIONS_INVALID' }));
  });
});

describe('version-aware contract', () => {
  it('an operation this version does not serve is HOST_OPERATION_UNSUPPORTED, nothing sent, and listed in status.unsupported', async () => {
    const doc = structuredClone(loadV2Contract('v2.5.6'));
    delete doc.paths['/api/v1/subscribe/media/{mediaid}'];
    const s = await sim({ contract: doc });
    const v2 = await hostOn(s, LOGIN);
    await v2.host.start({ workers: false }); // the start-up check reads the host's document
    expect(v2.status.unsupported).toEqual(['subscribe.media']);
    const r = await v2.host.invoke('moviepilot.subscription.find', { mediaSource: 'tmdb', mediaId: '693134' }, admin);
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('HOST_OPERATION_UNSUPPORTED');
    expect(s.requests.some((x) => x.path.startsWith('/api/v1/subscribe/media'))).toBe(false);
  });

  it.each([
    ['v2.4.0', /older than the oldest supported version, v2\.5\.6/],
    ['v1.9.9', /not a 2\.x host/],
  ])(
    'a host reporting %s is refused with the supported versions (HOST_VERSION_UNSUPPORTED)',
    async (version, message) => {
      const s = await sim({ version });
      const error = await refusal(
        startOf(createV2AgentHost({ url: s.url, auth: { apiKey: s.apiKey, ...LOGIN }, storage: new MemoryStorage() })),
      );
      expect(error).toMatchObject({ code: 'HOST_VERSION_UNSUPPORTED', details: { version } });
      expect(error!.message).toMatch(message);
      expect(error!.message).toContain(V2_MIN_VERSION);
    },
  );

  it('an OpenAPI document that cannot be fetched or parsed is HOST_CONTRACT_INVALID (the adapter does not guess); an offline host is HOST_UNREACHABLE', async () => {
    const answers: Array<[number, string]> = [
      [404, '{"detail":"Not Found"}'],
      [200, '<html>not json</html>'],
      [200, '{"hello":"world"}'],
    ];
    for (const [status, body] of answers) {
      const server: Server = createServer((_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body);
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        const error = await refusal(
          startOf(createV2AgentHost({ url, auth: { apiKey: 'k' }, storage: new MemoryStorage() })),
        );
        expect(error?.code, `${status} ${body}`).toBe('HOST_CONTRACT_INVALID');
      } finally {
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
      }
    }
    const gone = new MoviePilotV2Simulator();
    const url = await gone.start();
    await gone.close();
    const offline = await refusal(
      startOf(createV2AgentHost({ url, auth: { apiKey: 'k' }, storage: new MemoryStorage() })),
    );
    expect(offline?.code).toBe('HOST_UNREACHABLE');
  });

  it("a wrong API token is HOST_AUTH_FAILED at start-up, from the host's own 401 on the version route (nothing else sent)", async () => {
    const s = await sim({ contract: 'newer' });
    const v2 = createV2AgentHost({ url: s.url, auth: { apiKey: 'not-the-token' }, storage: new MemoryStorage() });
    expect(s.requests).toHaveLength(0); // building the host sends nothing
    const error = await refusal(startOf(v2));
    expect(error).toMatchObject({ code: 'HOST_AUTH_FAILED', details: { operation: 'system.status', status: 401 } });
    expect(error!.message).toContain('refused the API token');
    expect(s.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'GET /api/v1/openapi.json 200',
      'GET /api/v3/system/status 401',
    ]);
  });

  it('nothing listening at the URL is HOST_UNREACHABLE at start-up, naming the URL', async () => {
    const error = await refusal(
      startOf(createV2AgentHost({ url: 'http://127.0.0.1:9', auth: { apiKey: 'k' }, storage: new MemoryStorage() })),
    );
    expect(error?.code).toBe('HOST_UNREACHABLE');
    expect(error!.message).toContain('cannot connect to http://127.0.0.1:9');
  });

  it('a refused login is HOST_AUTH_FAILED at start-up, sent once, and never sent again by the client (no retry storm)', async () => {
    const s = await sim();
    const error = await refusal(
      startOf(
        createV2AgentHost({ url: s.url, auth: { username: 'admin', password: 'wrong' }, storage: new MemoryStorage() }),
      ),
    );
    expect(error?.code).toBe('HOST_AUTH_FAILED');
    expect(s.requestCount('POST /api/v1/login/access-token')).toBe(1);
    const client = new V2HostClient({ url: s.url, auth: { username: 'admin', password: 'wrong' } });
    started.push(client);
    for (let i = 0; i < 3; i++)
      await expect(client.call('media.search', { query: { title: 'Dune' } })).rejects.toMatchObject({
        code: 'HOST_AUTH_FAILED',
      });
    expect(s.requestCount('POST /api/v1/login/access-token')).toBe(2);
    expect(s.requestCount('GET /api/v1/media/search')).toBe(0);
  });
});

describe('honest failures', () => {
  it.each(['站点未认证，请先完成站点认证'])(
    'release.search: the host\'s "%s" is a failure with its message, not "no releases"',
    async (message) => {
      const { sim: s, host } = await v2Setup({ sim: { contract: 'v2.5.6' }, host: { auth: LOGIN } });
      s.searchFailure = message;
      const r = await host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '693134' }, admin);
      expect(r.status).toBe('failed');
      expect(r.error?.code).toBe('HOST_OPERATION_FAILED');
      expect(r.error?.message).toContain(message);
    },
  );

  it("release.search: only the host's explicit no-result message (未搜索到任何资源) means an empty list", async () => {
    const { host } = await v2Setup();
    const r = await host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '329865' }, admin);
    expect(r.status).toBe('succeeded');
    expect((r.output as any).releases).toEqual([]);
  });

  it.each(['download.submit', 'organize.execute'])(
    '%s of an unknown plan id is MEDIA_NOT_FOUND naming the id',
    async (id) => {
      const { host } = await v2Setup();
      const r = await host.invoke(id, { planId: 'plan-does-not-exist' }, admin);
      expect(r.status).toBe('failed');
      expect(r.error?.code).toBe('MEDIA_NOT_FOUND');
      expect(r.error?.message).toContain('plan-does-not-exist');
    },
  );

  it('a host that cannot reach TMDB: start() reports it once from the host\'s own check, and an empty lookup says "not found (host metadata source unreachable)"', async () => {
    const warnings: string[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      error: () => undefined,
      warn: (m) => void warnings.push(m),
    };
    for (const contract of ['v2.5.6', 'newer'] as const) {
      warnings.length = 0;
      const s = await sim({ contract, metadataReachable: false });
      const v2 = await hostOn(s, { apiKey: s.apiKey, ...LOGIN }, logger);
      expect(v2.status.metadata).toBe('unknown');
      await v2.host.start();
      await v2.host.start({ workers: false });
      expect(v2.status).toMatchObject({ metadata: 'unreachable', metadataMessage: '网络连接失败！' });
      expect(warnings.filter((w) => w.includes('cannot reach TMDB'))).toHaveLength(1);
      expect(s.requestCount('GET /api/v1/system/nettest')).toBe(1);
      const r = await v2.host.invoke('catalog.lookup', { query: 'Dune' }, admin);
      expect(r.status).toBe('failed');
      expect(r.error?.code).toBe('MEDIA_NOT_FOUND');
      expect(r.error?.message).toContain('not found (host metadata source unreachable)');
      s.assertNoViolations();
    }
  });

  it('a host that reaches TMDB: an unknown title is simply not found (an empty list)', async () => {
    const { host, adapter } = await v2Setup({ sim: { contract: 'v2.5.6' }, host: { auth: LOGIN } });
    expect(adapter.status.metadata).toBe('reachable');
    const r = await host.invoke('catalog.lookup', { query: 'No Such Film Anywhere' }, admin);
    expect(r.status).toBe('succeeded');
    expect((r.output as any).items).toEqual([]);
    expect(isMediaAgentError(r.error, 'MEDIA_NOT_FOUND')).toBe(false);
  });
});
