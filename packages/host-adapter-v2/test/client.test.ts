import { isMediaAgentError } from '@media-agent/sdk';
import { MoviePilotV2Simulator } from '@media-agent/host-adapter-v2/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { HostAuthError, HostOperationError, V2HostClient } from '../src/index';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const x of open.splice(0)) await x.close();
});

async function setup(credentials?: ConstructorParameters<typeof V2HostClient>[0]['auth']) {
  const sim = new MoviePilotV2Simulator();
  const url = await sim.start();
  const client = new V2HostClient({ url, auth: credentials ?? { apiKey: sim.apiKey } });
  open.push(sim, client);
  return { sim, client };
}

describe('V2 host client (undici Pool against the simulator)', () => {
  it('sends the API token as the X-API-KEY header, never as ?token=, and the host accepts it', async () => {
    const { sim, client } = await setup();
    await client.call('media.search', { query: { title: 'Dune' } });
    expect(sim.requests.at(-1)).toMatchObject({ principal: 'apikey', status: 200 });
    sim.assertNoViolations();
  });

  it('bare-array endpoints are returned as they are', async () => {
    const { client } = await setup();
    const items = await client.call<Array<{ tmdb_id: number }>>('media.search', { query: { title: 'Dune' } });
    expect(Array.isArray(items)).toBe(true);
    expect(items.map((i) => i.tmdb_id)).toContain(693134);
  });

  it('endpoints declared with the Response schema are unwrapped to data', async () => {
    const { client } = await setup();
    const data = await client.call<unknown[]>('search.media', {
      path: { mediaid: 'tmdb:693134' },
      query: { mtype: '电影' },
    });
    expect(Array.isArray(data)).toBe(true);
    expect(data).toHaveLength(3);
  });

  it('success:false becomes a typed HostOperationError carrying the host message', async () => {
    const { client } = await setup();
    const error = await client.call('search.media', { path: { mediaid: 'tmdb:1' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostOperationError);
    expect(error).toMatchObject({ code: 'HOST_OPERATION_FAILED', hostMessage: '未搜索到任何资源' });
  });

  it('user name and password: a JWT from the login form, sent as a Bearer token', async () => {
    const { sim, client } = await setup({ username: 'admin', password: 'password' });
    await client.call('user.current');
    expect(sim.requestCount('POST /api/v1/login/access-token')).toBe(1);
    expect(sim.requests.at(-1)).toMatchObject({ principal: 'user:admin', status: 200 });
    expect(client.credentialIsSuperuser).toBe(true);
    sim.assertNoViolations();
  });

  it('an expired token is refreshed once on 401 and the request is sent again', async () => {
    const { sim, client } = await setup({ username: 'admin', password: 'password' });
    await client.call('user.current');
    sim.expireTokens();
    await client.call('user.current');
    expect(client.stats.logins).toBe(2);
    expect(sim.requests.map((r) => `${r.status} ${r.path}`)).toEqual([
      '200 /api/v1/openapi.json',
      '200 /api/v1/login/access-token',
      '200 /api/v1/user/current',
      '401 /api/v1/user/current',
      '200 /api/v1/login/access-token',
      '200 /api/v1/user/current',
    ]);
  });

  it('a wrong password is a typed HostAuthError', async () => {
    const { client } = await setup({ username: 'admin', password: 'nope' });
    await expect(client.call('user.current')).rejects.toBeInstanceOf(HostAuthError);
  });

  it('a read retries after a 502 and succeeds', async () => {
    const { sim, client } = await setup();
    sim.failWith('GET', '/api/v1/download/', 502, 1);
    await expect(client.call('download.list')).resolves.toEqual([]);
    expect(sim.requestCount('GET /api/v1/download/')).toBe(2);
  });

  it('a write whose connection drops after the host accepted it is an unknown outcome, never retried', async () => {
    const { sim, client } = await setup();
    const [ctx] = await client.call<Array<{ media_info: unknown; torrent_info: unknown }>>('search.media', {
      path: { mediaid: 'tmdb:693134' },
    });
    sim.dropAfterAccept('POST', '/api/v1/download/');
    const error = await client
      .call('download.add', { body: { media_in: ctx!.media_info, torrent_in: ctx!.torrent_info } })
      .catch((e: unknown) => e);
    expect(isMediaAgentError(error, 'OUTCOME_UNKNOWN')).toBe(true);
    expect(sim.requestCount('POST /api/v1/download/')).toBe(1);
    expect(sim.downloads()).toHaveLength(1);
  });

  it('a write answered with a 5xx is an unknown outcome, not retried', async () => {
    const { sim, client } = await setup();
    sim.failWith('POST', '/api/v1/subscribe/', 500, 1);
    const error = await client
      .call('subscribe.create', { body: { name: 'Dune', tmdbid: 438631, type: '电影' } })
      .catch((e: unknown) => e);
    expect(isMediaAgentError(error, 'OUTCOME_UNKNOWN')).toBe(true);
    expect(sim.requestCount('POST /api/v1/subscribe/')).toBe(1);
  });
});
