// Trial (brief D): breaks found by using the 2.x adapter as a host developer would. Each test fails today.
import { createServer, type Server } from 'node:http';
import { ConsoleLogger } from '@media-agent/sdk';
import { MemoryStorage } from '@media-agent/sdk/storage';
import {
  MoviePilotV2Simulator,
  SIM_RELEASES,
  SIM_TITLES,
  type SimRelease,
  type SimTitle,
  type V2SimulatorOptions,
} from '@media-agent/host-adapter-v2/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createV2AgentHost, type V2Credentials } from '../src/index';
import { cleanup, listenLocal, started, TWIN, TWIN_RELEASE } from './helpers';

afterEach(cleanup);
const LOGIN = { username: 'admin', password: 'password' } as const;
const admin = { actor: 'user:admin', taskId: 't-admin' } as const;
const guest = { actor: 'user:guest', taskId: 't-guest' } as const;

async function hostAt(url: string, auth: V2Credentials) {
  const v2 = createV2AgentHost({ url, auth, storage: new MemoryStorage(), logger: new ConsoleLogger('silent') });
  started.push(v2);
  await v2.host.start({ workers: false });
  return v2;
}
async function simOn(options: V2SimulatorOptions) {
  const sim = new MoviePilotV2Simulator(options);
  await sim.start();
  started.push(sim);
  return sim;
}

/** A front for `target` that answers the paths `override` names itself, and forwards everything else. */
async function front(target: string, override: (path: string) => [number, string, string] | undefined) {
  const server: Server = createServer(async (req, res) => {
    const o = override(new URL(req.url ?? '/', 'http://x').pathname);
    if (o) {
      res.writeHead(o[0], { 'content-type': o[2] });
      return void res.end(o[1]);
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
    const r = await fetch(target + req.url, {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await r.arrayBuffer()));
  });
  return listenLocal(server);
}

describe('trial: the media type sent with release.search', () => {
  // jxxghp/MoviePilot#4453: a series' tmdbid shared by a film made MoviePilot recognise the wrong one.
  // The adapter remembers one kind per id for the whole process, last lookup wins, across actors and runs:
  // after another user looks the id up as a series, the admin's search for the film returns the series.
  it('one user looking up the series does not turn another user’s film search into a series search', async () => {
    const sim = await simOn({
      contract: 'v2.5.6',
      titles: [...SIM_TITLES, TWIN],
      releases: [...SIM_RELEASES.map((r) => ({ ...r, kind: 'movie' as const })), TWIN_RELEASE],
    });
    const v2 = await hostAt(sim.url, LOGIN);
    const film = await v2.host.invoke('catalog.lookup', { query: 'Dune: Part Two 2024' }, admin);
    expect((film.output as { items: Array<{ mediaId: string; kind: string }> }).items[0]).toMatchObject({
      mediaId: '693134',
      kind: 'movie',
    });
    await v2.host.invoke('catalog.lookup', { query: 'tmdb:693134', kind: 'tv' }, guest);
    const r = await v2.host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '693134' }, admin);
    const names = (r.output as { releases: Array<{ name: string }> } | undefined)?.releases.map((x) => x.name);
    // Today: ['Harbour.Lights.S01…'] and mtype=电视剧 — the admin is offered the series for the film.
    expect(names?.every((n) => n.startsWith('Dune.Part.Two'))).toBe(true);
  });

  // jxxghp/MoviePilot#3914: without mtype a tmdbid present as movie and TV is taken as one kind silently.
  // With no lookup before it, release.search asks the host for the film first and keeps whatever answers,
  // so a series id that is also a film id searches the film: the model is never told the id is ambiguous.
  it('a series id that is also a film id, searched without a lookup, is not silently searched as the film', async () => {
    const film: SimTitle = { ...TWIN, tmdbId: 126308, kind: 'movie', title: 'Harbour Lights', seasons: null };
    const filmRelease: SimRelease = {
      ...TWIN_RELEASE,
      tmdbId: 126308,
      kind: 'movie',
      title: 'Harbour.Lights.2019.1080p.BluRay.x264-SIM',
    };
    const sim = await simOn({
      contract: 'v2.5.6',
      titles: [...SIM_TITLES, film],
      releases: [
        ...SIM_RELEASES.map((r) => ({ ...r, kind: r.tmdbId === 126308 ? ('tv' as const) : ('movie' as const) })),
        filmRelease,
      ],
    });
    const v2 = await hostAt(sim.url, LOGIN);
    const r = await v2.host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '126308' }, admin);
    const names = (r.output as { releases: Array<{ name: string }> } | undefined)?.releases.map((x) => x.name) ?? [];
    // Today: succeeded with ['Harbour.Lights.2019.1080p.BluRay…'] for the id of Shōgun (a series).
    expect(names.some((n) => n.startsWith('Harbour.Lights.2019'))).toBe(false);
  });
});

describe('trial: TMDB lost after start()', () => {
  // jxxghp/MoviePilot#4071: TMDB unreachable, lookups and searches come back empty.
  it('catalog.lookup does not answer an empty success and release.search does not say "check the id"', async () => {
    const sim = await simOn({ contract: 'v2.5.6' });
    const v2 = await hostAt(sim.url, LOGIN);
    expect(v2.status.metadata).toBe('reachable');
    sim.faults.metadataUnreachable = true;
    const lookup = await v2.host.invoke('catalog.lookup', { query: 'Dune: Part Two 2024' }, admin);
    const search = await v2.host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '693134' }, admin);
    // Today: lookup succeeded {items: []}; search MEDIA_NOT_FOUND "recognised no title … check the id".
    expect(search.error?.message).not.toContain('check the id');
    expect(lookup.status).toBe('failed');
  });
});

describe('trial: plugin routes whose contract declares the API token as a parameter', () => {
  // thsrite/MoviePilot-Plugins#79: a plugin API's `apikey` query parameter is the host's API_TOKEN, and
  // people ask where to get it; petrowsky/agentic-fm#86: an agent handed a token shows it in its tool calls.
  // 12 plugin routes of the newer 2.x document declare `apikey` (required); their capabilities make the
  // model supply it, although the adapter sends its own token and drops whatever the model gives.
  it('no discovered capability asks the model for the host’s API token', async () => {
    const sim = await simOn({ contract: 'newer' });
    const v2 = await hostAt(sim.url, { apiKey: sim.apiKey });
    const asking = v2.host.capabilities
      .list()
      .filter((c) => c.id.startsWith('plugin.'))
      .filter((c) => /"(apikey|token)"/i.test(JSON.stringify(c.input)))
      .map((c) => c.id);
    // Today: plugin.AutoBackup.backup, plugin.AutoSignIn.signin_by_domain, plugin.DoubanSync.delete_history, …
    expect(asking).toEqual([]);
  });
});

describe('trial: an answer off the contract is never a success', () => {
  it('a search answered {success: true, data: null} is a protocol error, not "no releases"', async () => {
    const sim = await simOn({ contract: 'v2.5.6' });
    const url = await front(sim.url, (p) =>
      p.startsWith('/api/v1/search/media/')
        ? [200, '{"success":true,"message":null,"data":null}', 'application/json']
        : undefined,
    );
    const v2 = await hostAt(url, LOGIN);
    const r = await v2.host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '693134' }, admin);
    // Today: succeeded with releases: [] (Dune: Part Two has three releases on this host).
    expect(r.status).toBe('failed');
  });
});

describe('trial: the 2.x error names keep their old shape', () => {
  it('V2PluginOperationError details still name the route; HostOperationError’s third argument is still its data', async () => {
    const { V2PluginOperationError, HostOperationError } = await import('../src/index');
    const refused = new V2PluginOperationError('PLUGIN_OPERATION_UNDECLARED', 'plugin.X.y', 'GET /api/v1/a', 'no');
    expect(refused.route).toBe('GET /api/v1/a'); // holds (a getter)
    // Today: details are { capabilityId, operation } — a program reading details.route (as audits did) gets undefined.
    expect((refused.details as Record<string, unknown>).route).toBe('GET /api/v1/a');
    type Old = new (...args: unknown[]) => { data: unknown };
    // Today: data null (the third argument is now { status, data }).
    expect(new (HostOperationError as unknown as Old)('download.add', 'refused', { id: 7 }).data).toEqual({ id: 7 });
  });
});
