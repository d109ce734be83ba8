// Trial (brief D): breaks found by using the 3.x adapter as a host developer would. Each test fails today.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConsoleLogger } from '@media-agent/sdk';
import { MemoryStorage } from '@media-agent/sdk/storage';
import {
  createV3AgentHost,
  V3AuthError,
  V3Client,
  V3HostError,
  V3TransportError,
  V3UnsupportedError,
} from '@media-agent/host-adapter-v3';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanups, runCleanups, v3Setup } from './helpers';

afterEach(runCleanups);

describe('trial: host settings with secrets reach the model', () => {
  // jxxghp/MoviePilot#5916: every system setting and secret readable through the settings route. The host's
  // own agent policy (contracts/v3-notes.md §2) makes config.system.get with show_secrets=true a
  // sensitive_read: confirmation required, result SECRET, barred from background and sub-agent callers.
  // The adapter offers it as a plain read: an agent gets API_TOKEN, TMDB_API_KEY… with no one asked.
  it('an agent reading config.system.get with show_secrets=true needs a person’s approval; nothing is sent', async () => {
    const { host, sim } = await v3Setup();
    const r = await host.invoke(
      'mp.config.system.get',
      { query: { setting_key: 'API_TOKEN', show_secrets: true } },
      { actor: 'agent:run-x' },
    );
    // Today: succeeded, and the request reached the host.
    expect(r.status).toBe('denied');
    expect(sim.requestsFor('config.system.get')).toHaveLength(0);
  });
});

describe('trial: the deprecated V3 error names keep their old shape', () => {
  it('a refused API token is still a V3HostError with operationId and status, as V3AuthError was', async () => {
    const { sim } = await v3Setup();
    const client = new V3Client({ url: sim.url, auth: { apiKey: 'wrong-key-0000000000' } });
    cleanups.push(() => client.close());
    const e = await client.call('download.tasks.active').then(
      () => undefined,
      (x: unknown) => x as InstanceType<typeof V3AuthError> & { operationId?: string },
    );
    expect(e).toBeInstanceOf(V3AuthError);
    // Today: not a V3HostError (V3AuthError extended it), operationId undefined.
    expect(e).toBeInstanceOf(V3HostError);
    expect(e?.operationId).toBe('download.tasks.active');
  });

  it('the old constructors build the old errors', () => {
    type Old = new (...args: unknown[]) => Error & Record<string, unknown>;
    const host = new (V3HostError as unknown as Old)('download.add', 500, 'boom', { a: 1 });
    const auth = new (V3AuthError as unknown as Old)('login.access_token', 401, 'bad');
    const lost = new (V3TransportError as unknown as Old)('media.search', 'connection refused');
    const sent = new (V3TransportError as unknown as Old)('media.search', 'socket hang up', undefined, true);
    const unsupported = new (V3UnsupportedError as unknown as Old)('task.cancel', 'no catalog operation');
    // Today: status undefined, data null, message "MoviePilot refused download.add: 500".
    expect(host).toMatchObject({ status: 500, data: { a: 1 }, hostMessage: 'boom' });
    // Today: message "login.access_token", status undefined.
    expect(auth).toMatchObject({ code: 'HOST_AUTH_FAILED', status: 401 });
    expect(auth.message).toContain('bad');
    // Today: HOST_TRANSPORT_FAILED (was HOST_UNREACHABLE: nothing sent), and code `true` for sent = true.
    expect(lost.code).toBe('HOST_UNREACHABLE');
    expect(sent.code).toBe('HOST_TRANSPORT_FAILED');
    // Today: "no catalog operation" (the capability no longer named).
    expect(unsupported.message).toContain('task.cancel');
  });
});

describe('trial: a login answered off the contract', () => {
  it('a 200 envelope without a token is a protocol error, not "check the user name and password"', async () => {
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"success":true,"message":null,"data":null}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(
      () =>
        new Promise<void>((r) => {
          server.closeAllConnections();
          server.close(() => r());
        }),
    );
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const v3 = createV3AgentHost({
      url,
      auth: { username: 'admin', password: 'admin-pass' },
      storage: new MemoryStorage(),
      logger: new ConsoleLogger('silent'),
    });
    cleanups.push(() => v3.close());
    const e = await v3.host.start({ workers: false }).then(
      () => undefined,
      (x: unknown) => x as { code: string; message: string },
    );
    // Today: HOST_AUTH_FAILED "… failed (HTTP 200): login failed; … check the user name and password".
    expect(e?.code).toBe('HOST_PROTOCOL_ERROR');
  });
});

describe('trial: V3 says why release.search found nothing, as V2 does', () => {
  const admin = { actor: 'user:admin', taskId: 't' } as const;
  const search = (host: Awaited<ReturnType<typeof v3Setup>>['host'], mediaId: string, mediaSource = 'tmdb') =>
    host.invoke('release.search', { mediaSource, mediaId }, admin);

  it('an id the host does not know is MEDIA_NOT_FOUND naming it, not a success with 0 releases', async () => {
    const { host } = await v3Setup();
    const r = await search(host, '999999999');
    // Today: succeeded {releases: []} (V2: MEDIA_NOT_FOUND "recognised no title for tmdb:999999999").
    expect(r.error?.code).toBe('MEDIA_NOT_FOUND');
    expect(r.error?.message).toContain('999999999');
  });

  // jxxghp/MoviePilot#4221 and #4102: "未开启任何有效站点，无法搜索资源" — a host with no usable indexer site.
  it('a host without indexer sites is HOST_NO_INDEXERS, not "MoviePilot refused search.torrents: 未搜索到任何资源"', async () => {
    const { host, sim } = await v3Setup();
    sim.faults.noIndexerSites = true;
    const r = await search(host, '693134');
    // Today: HOST_OPERATION_FAILED "MoviePilot refused search.torrents (HTTP 200): 未搜索到任何资源".
    expect(r.error?.code).toBe('HOST_NO_INDEXERS');
  });

  // jxxghp/MoviePilot#4071: TMDB unreachable, every search comes back empty.
  it('TMDB lost after start: release.search of a known title is not a success with 0 releases', async () => {
    const { host, sim } = await v3Setup();
    expect((await search(host, '438631')).status).toBe('succeeded');
    sim.faults.metadataUnreachable = true;
    const r = await search(host, '438631');
    // Today: succeeded {releases: []} for Dune, which has a release on this host.
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('MEDIA_NOT_FOUND');
  });

  it('identity.resolve to an id the host does not know is MEDIA_NOT_FOUND, and the release keeps its title', async () => {
    const { host } = await v3Setup();
    const found = await search(host, '693134');
    const releaseId = (found.output as { releases: Array<{ releaseId: string }> }).releases[0]!.releaseId;
    const r = await host.invoke(
      'identity.resolve',
      { subjectType: 'release', subjectId: releaseId, mediaSource: 'tmdb', mediaId: '999999999' },
      admin,
    );
    // Today: succeeded, the release re-bound to tmdb:999999999 (V2: MEDIA_NOT_FOUND).
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('MEDIA_NOT_FOUND');
  });
});
