import { ConsoleLogger } from '@media-agent/sdk';
import { MemoryStorage } from '@media-agent/sdk/storage';
import {
  MoviePilotV2Simulator,
  SIM_RELEASES,
  SIM_TITLES,
  type V2SimulatorOptions,
} from '@media-agent/host-adapter-v2/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createV2AgentHost, type V2Credentials } from '../src/index';
import { cleanup, started, TWIN, TWIN_RELEASE } from './helpers';

afterEach(cleanup);
const admin = { actor: 'user:admin', taskId: 't' } as const;
const LOGIN = { username: 'admin', password: 'password' } as const;

/** Both 2.x documents: v2.5.6 (standard routes open to a login only) and the newer one (the API token too). */
const HOSTS: Array<[string, V2SimulatorOptions['contract'], (s: MoviePilotV2Simulator) => V2Credentials]> = [
  ['v2.5.6, login', 'v2.5.6', () => LOGIN],
  ['newer, API token', 'newer', (s) => ({ apiKey: s.apiKey })],
];

async function hostOn(
  contract: V2SimulatorOptions['contract'],
  auth: (s: MoviePilotV2Simulator) => V2Credentials,
  options: V2SimulatorOptions = {},
) {
  const sim = new MoviePilotV2Simulator({ contract, ...options });
  await sim.start();
  started.push(sim);
  const v2 = createV2AgentHost({
    url: sim.url,
    auth: auth(sim),
    storage: new MemoryStorage(),
    logger: new ConsoleLogger('silent'),
  });
  started.push(v2);
  await v2.host.start({ workers: false });
  return { sim, v2, host: v2.host };
}

const search = (host: Awaited<ReturnType<typeof hostOn>>['host'], mediaId: string) =>
  host.invoke('release.search', { mediaSource: 'tmdb', mediaId }, admin);

describe.each(HOSTS)('release.search says why it found nothing (%s)', (_name, contract, auth) => {
  it('a title no site has: success with an empty list (the host searched and found nothing)', async () => {
    const { host, sim } = await hostOn(contract, auth);
    const r = await search(host, '329865'); // Arrival: recognised, no release on any site
    expect(r.status, JSON.stringify(r.error)).toBe('succeeded');
    expect((r.output as { releases: unknown[] }).releases).toEqual([]);
    expect(sim.requestCount('GET /api/v1/search/media/{mediaid}')).toBe(1);
    sim.assertNoViolations();
  });

  // jxxghp/MoviePilot#4071: "TheMovieDb无法连通" while searches find no resources — the host answers
  // 未搜索到任何资源 as if no site had the title. Before: success with 0 releases. After: MEDIA_NOT_FOUND
  // naming the cause start() had already detected.
  it('a host that cannot reach TMDB (known at start): MEDIA_NOT_FOUND naming TMDB, not "no releases"', async () => {
    const { host, sim, v2 } = await hostOn(contract, auth, { metadataReachable: false });
    expect(v2.status.metadata).toBe('unreachable');
    const r = await search(host, '693134');
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('MEDIA_NOT_FOUND');
    expect(r.error?.message).toContain('cannot reach TMDB');
    expect(r.error?.message).toContain('tmdb:693134');
    expect(r.error?.message).toContain('网络连接失败！');
    sim.assertNoViolations();
  });

  it('TMDB lost after start (switchable): the no-result answer is re-checked and the title is reported not recognised', async () => {
    const { host, sim } = await hostOn(contract, auth);
    const looked = await host.invoke('catalog.lookup', { query: 'Dune: Part Two 2024' }, admin);
    expect(looked.status).toBe('succeeded');
    sim.metadataReachable = false;
    const r = await search(host, '693134');
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('MEDIA_NOT_FOUND');
    expect(r.error?.message).toContain('recognised no title for tmdb:693134');
    sim.metadataReachable = true;
    expect((await search(host, '693134')).status).toBe('succeeded');
  });

  it('an id the host cannot recognise: MEDIA_NOT_FOUND naming the id (before: success, 0 releases)', async () => {
    const { host } = await hostOn(contract, auth);
    const r = await search(host, '1');
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('MEDIA_NOT_FOUND');
    expect(r.error?.message).toContain('tmdb:1');
    expect(r.error?.message).not.toContain('TMDB');
  });

  it('a host without indexer sites (option and switchable state): HOST_NO_INDEXERS, not "no releases"', async () => {
    const { host, sim } = await hostOn(contract, auth, { indexerSites: false });
    const r = await search(host, '693134');
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('HOST_NO_INDEXERS');
    expect(r.error?.message).toContain('no usable indexer site');
    sim.indexerSites = true;
    const back = await search(host, '693134');
    expect(back.status).toBe('succeeded');
    expect((back.output as { releases: unknown[] }).releases.length).toBeGreaterThan(0);
    sim.indexerSites = false;
    expect((await search(host, '438631')).error?.code).toBe('HOST_NO_INDEXERS');
    sim.assertNoViolations();
  });
});

describe("the host's own words", () => {
  it.each([
    ['未识别到媒体信息', 'MEDIA_NOT_FOUND'],
    ['未识别到豆瓣媒体信息', 'MEDIA_NOT_FOUND'],
    ['未知的媒体ID', 'MEDIA_NOT_FOUND'],
    ['未开启任何有效站点，无法搜索资源', 'HOST_NO_INDEXERS'],
    ['站点未认证，请先完成站点认证', 'HOST_OPERATION_FAILED'],
  ])('"%s" is %s, carrying the message', async (message, code) => {
    const { host, sim } = await hostOn('v2.5.6', () => LOGIN);
    sim.searchFailure = message;
    const r = await search(host, '693134');
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe(code);
    expect(r.error?.message).toContain(message);
  });
});

describe('identity.resolve names the TMDB cause the same way', () => {
  it('a host that cannot reach TMDB: MEDIA_NOT_FOUND "cannot reach TMDB"; one that can: "recognised no title"', async () => {
    const offline = await hostOn('v2.5.6', () => LOGIN, { metadataReachable: false });
    const input = { subjectType: 'release', subjectId: 'r-1', mediaSource: 'tmdb', mediaId: '693134' };
    const r = await offline.host.invoke('identity.resolve', input, admin);
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('MEDIA_NOT_FOUND');
    expect(r.error?.message).toContain('cannot reach TMDB');
    const online = await hostOn('v2.5.6', () => LOGIN);
    const u = await online.host.invoke('identity.resolve', { ...input, mediaId: '1' }, admin);
    expect(u.error?.code).toBe('MEDIA_NOT_FOUND');
    expect(u.error?.message).toContain('recognised no title for tmdb:1');
  });
});

describe.each(HOSTS)('the media type is sent (%s)', (_name, contract, auth) => {
  // jxxghp/MoviePilot#4453 (a series' tmdbid 83097 shared by a film made MoviePilot recognise the film)
  // and jxxghp/MoviePilot#3914 (without mtype a tmdbid present as movie and TV is taken as TV first).
  // Before: release.search sent no mtype and got the series' releases for the film. After: mtype=电影.
  it('release.search for a film whose TMDB id is also a series id finds the film, sending mtype', async () => {
    const { host, sim } = await hostOn(contract, auth, {
      titles: [...SIM_TITLES, TWIN],
      releases: [...SIM_RELEASES.map((r) => ({ ...r, kind: 'movie' as const })), TWIN_RELEASE],
    });
    const looked = await host.invoke('catalog.lookup', { query: 'Dune: Part Two 2024' }, admin);
    expect((looked.output as { items: Array<{ mediaId: string; kind: string }> }).items[0]).toMatchObject({
      mediaId: '693134',
      kind: 'movie',
    });
    const r = await search(host, '693134');
    expect(r.status, JSON.stringify(r.error)).toBe('succeeded');
    const names = (r.output as { releases: Array<{ name: string }> }).releases.map((x) => x.name);
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((n) => n.startsWith('Dune.Part.Two'))).toBe(true);
    const sent = sim.requests.filter((x) => x.template === '/api/v1/search/media/{mediaid}');
    expect(sent.map((x) => x.query.mtype)).toEqual(['电影']);
    const inv = await host.invoke('inventory.query', { query: 'tmdb:693134' }, admin);
    expect(inv.status).toBe('succeeded');
    expect(sim.requests.filter((q) => q.template === '/api/v1/mediaserver/exists').length).toBeGreaterThan(1);
    // Every route the adapter sent that declares a media type carried one.
    for (const x of sim.requests.filter((q) => q.template === '/api/v1/mediaserver/exists'))
      expect(x.query.mtype, JSON.stringify(x.query)).toBe('电影');
    const details = sim.requests.filter((q) => q.template === '/api/v1/media/{mediaid}');
    for (const x of details) expect(['电影', '电视剧']).toContain(x.query.type_name);
    sim.assertNoViolations();
  });

  it('release.search for the series (known from a lookup as tv) sends mtype=电视剧 and finds the series', async () => {
    const { host, sim } = await hostOn(contract, auth, {
      titles: [...SIM_TITLES, TWIN],
      releases: [...SIM_RELEASES.map((r) => ({ ...r, kind: 'movie' as const })), TWIN_RELEASE],
    });
    const looked = await host.invoke('catalog.lookup', { query: 'tmdb:693134', kind: 'tv' }, admin);
    expect((looked.output as { items: Array<{ title: string }> }).items[0]?.title).toBe('Harbour Lights');
    const r = await search(host, '693134');
    const names = (r.output as { releases: Array<{ name: string }> }).releases.map((x) => x.name);
    expect(names).toEqual([TWIN_RELEASE.title]);
    const sent = sim.requests.filter((x) => x.template === '/api/v1/search/media/{mediaid}');
    expect(sent.map((x) => x.query.mtype)).toEqual(['电视剧']);
  });
});
