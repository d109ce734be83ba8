import type { HostSimulatorFaults } from '@media-agent/host-adapter-kit';
import { MoviePilotV2Simulator } from '@media-agent/host-adapter-v2/testing';
import { MoviePilotV3Simulator } from '@media-agent/host-adapter-v3/testing';
import { afterEach, describe, expect, it } from 'vitest';

// One script, two simulators: each fault switch of `HostSimulatorFaults` is driven over real HTTP (fetch)
// against the 2.x and the 3.x simulator, and must mean the same on both.

const USERS = [{ username: 'admin', password: 'admin-pass', superuser: true }];
/** Dune: Part Two, a title with releases in both simulators' catalogs. */
const DUNE_2 = { tmdb: 693134, name: 'Dune: Part Two', year: '2024' };
/** Dune, a second title (a second, distinct write). */
const DUNE = { tmdb: 438631, name: 'Dune', year: '2021' };
const TMDB_TEST = 'https://api.themoviedb.org/3/movie/550?api_key={TMDBAPIKEY}';
/** The delay of the slow-search case (ms); below the 100 ms sleep limit of fast tests. */
const SLOW_MS = 80;

type Title = typeof DUNE_2;
type Sim = MoviePilotV2Simulator | MoviePilotV3Simulator;

/** What the script needs of one simulator, in its own protocol. */
interface Driver {
  name: string;
  /** Operation names of the faults, as the simulator's adapter names them. */
  ops: { write: string; search: string; lookup: string };
  make(faults?: Partial<HostSimulatorFaults>): Sim;
  /** Adds a subscription (a write the host applies). */
  write(base: string, auth: Headers, title: Title): Promise<Response>;
  /** Subscriptions in the simulator's state. */
  written(sim: Sim): number;
  /** Resource search by identity: how many releases the host found, and its message. */
  search(base: string, auth: Headers, title: Title): Promise<{ found: number; message: string }>;
  /** Metadata lookup by name: how many titles the host found. */
  lookup(base: string, auth: Headers, name: string): Promise<number>;
  /** How many active indexer sites the host lists. */
  activeSites(base: string, auth: Headers): Promise<number>;
}

async function json(res: Response): Promise<unknown> {
  expect(res.headers.get('content-type') ?? '').toContain('json');
  return res.json();
}

const envelope = async (res: Response) => (await json(res)) as { success: boolean; message: string; data: unknown };

const drivers: Driver[] = [
  {
    name: '2.x',
    ops: { write: 'subscribe.create', search: 'GET /api/v1/search/media/{mediaid}', lookup: 'media.search' },
    make: (faults) => new MoviePilotV2Simulator({ users: USERS, ...(faults ? { faults } : {}) }),
    write: (base, auth, t) =>
      fetch(`${base}/api/v1/subscribe/`, {
        method: 'POST',
        headers: withJson(auth),
        body: JSON.stringify({ name: t.name, year: t.year, type: '电影', tmdbid: t.tmdb }),
      }),
    written: (sim) => sim.subscriptions().length,
    search: async (base, auth, t) => {
      const e = await envelope(await fetch(`${base}/api/v1/search/media/tmdb:${t.tmdb}?mtype=电影`, { headers: auth }));
      return { found: e.success && Array.isArray(e.data) ? e.data.length : 0, message: e.message };
    },
    lookup: async (base, auth, name) => {
      const list = await json(
        await fetch(`${base}/api/v1/media/search?title=${encodeURIComponent(name)}`, { headers: auth }),
      );
      return Array.isArray(list) ? list.length : 0;
    },
    activeSites: async (base, auth) => {
      const sites = await json(await fetch(`${base}/api/v1/site/`, { headers: auth }));
      return Array.isArray(sites) ? sites.filter((x: { is_active?: boolean }) => x.is_active).length : 0;
    },
  },
  {
    name: '3.x',
    ops: { write: 'subscription.add', search: 'search.torrents', lookup: 'media.search' },
    make: (faults) => new MoviePilotV3Simulator({ users: USERS, ...(faults ? { faults } : {}) }),
    write: (base, auth, t) =>
      fetch(`${base}/api/v1/subscribe/`, {
        method: 'POST',
        headers: withJson(auth),
        body: JSON.stringify({
          name: t.name,
          year: t.year,
          type: '电影',
          media_source: 'themoviedb',
          media_id: String(t.tmdb),
        }),
      }),
    written: (sim) => sim.subscriptions().length,
    search: async (base, auth, t) => {
      const e = await envelope(
        await fetch(`${base}/api/v1/search/media/${t.tmdb}?media_source=themoviedb&mtype=电影`, { headers: auth }),
      );
      return { found: e.success && Array.isArray(e.data) ? e.data.length : 0, message: e.message };
    },
    lookup: async (base, auth, name) => {
      const e = await envelope(
        await fetch(`${base}/api/v1/media/search?title=${encodeURIComponent(name)}`, { headers: auth }),
      );
      return e.success && Array.isArray(e.data) ? e.data.length : 0;
    },
    activeSites: async (base, auth) => {
      const e = await envelope(await fetch(`${base}/api/v1/site/agent?status=active`, { headers: auth }));
      return e.success && Array.isArray(e.data) ? e.data.length : 0;
    },
  },
];

function withJson(auth: Headers): Headers {
  const h = new Headers(auth);
  h.set('content-type', 'application/json');
  return h;
}

/** Logs in as the superuser (the same route and form on both generations). */
async function login(base: string): Promise<Headers> {
  const res = await fetch(`${base}/api/v1/login/access-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'admin', password: 'admin-pass' }).toString(),
  });
  expect(res.status).toBe(200);
  const { access_token } = (await res.json()) as { access_token: string };
  return new Headers({ authorization: `Bearer ${access_token}` });
}

/** The host's own network test of TMDB: whether it passed. */
async function networkTest(base: string, auth: Headers): Promise<boolean> {
  const e = await envelope(
    await fetch(`${base}/api/v1/system/nettest?url=${encodeURIComponent(TMDB_TEST)}`, { headers: auth }),
  );
  return e.success;
}

const open: Sim[] = [];
afterEach(async () => {
  for (const sim of open.splice(0)) await sim.close();
});

async function started(d: Driver, faults?: Partial<HostSimulatorFaults>) {
  const sim = d.make(faults);
  open.push(sim);
  const base = await sim.start();
  return { sim, base, auth: await login(base) };
}

describe.each(drivers)('the fault switches on the $name simulator', (d) => {
  it('fail5xx is one-shot: the first request is answered 500 before anything happens, the next is normal', async () => {
    const { sim, base, auth } = await started(d);
    sim.faults.fail5xx.push(d.ops.write);
    const first = await d.write(base, auth, DUNE_2);
    expect(first.status).toBe(500);
    await first.arrayBuffer();
    expect(d.written(sim)).toBe(0);
    expect(sim.faults.fail5xx).toEqual([]);
    const second = await d.write(base, auth, DUNE_2);
    expect(second.status).toBe(200);
    expect((await envelope(second)).success).toBe(true);
    expect(d.written(sim)).toBe(1);
    sim.assertNoViolations();
  });

  it('dropAfterAccept: the host applies the request, then closes the socket without an answer (once)', async () => {
    const { sim, base, auth } = await started(d);
    sim.faults.dropAfterAccept.push(d.ops.write);
    await expect(d.write(base, auth, DUNE_2)).rejects.toThrow();
    expect(d.written(sim)).toBe(1);
    expect(sim.faults.dropAfterAccept).toEqual([]);
    const next = await d.write(base, auth, DUNE);
    expect(next.status).toBe(200);
    await next.arrayBuffer();
    expect(d.written(sim)).toBe(2);
    sim.assertNoViolations();
  });

  it('slowSearchMs: a resource search is answered no sooner than the delay', async () => {
    const { sim, base, auth } = await started(d, { slowSearchMs: SLOW_MS });
    const at = performance.now();
    const { found } = await d.search(base, auth, DUNE_2);
    // ≥ the delay (1 ms of slack: the timer and performance.now() round differently); no upper bound.
    expect(performance.now() - at).toBeGreaterThanOrEqual(SLOW_MS - 1);
    expect(found).toBeGreaterThan(0);
    sim.assertNoViolations();
  });

  it('metadataUnreachable: lookups find nothing and the host’s network test of TMDB fails', async () => {
    const { sim, base, auth } = await started(d);
    expect(await d.lookup(base, auth, 'Dune')).toBeGreaterThan(0);
    expect(await networkTest(base, auth)).toBe(true);
    sim.faults.metadataUnreachable = true;
    expect(await d.lookup(base, auth, 'Dune')).toBe(0);
    expect(await networkTest(base, auth)).toBe(false);
    sim.assertNoViolations();
  });

  it('noIndexerSites: the host lists no active site, and a search finds nothing for a title that has releases (its no-result message)', async () => {
    const { sim, base, auth } = await started(d);
    expect((await d.search(base, auth, DUNE_2)).found).toBeGreaterThan(0);
    expect(await d.activeSites(base, auth)).toBeGreaterThan(0);
    sim.faults.noIndexerSites = true;
    expect(await d.search(base, auth, DUNE_2)).toEqual({ found: 0, message: '未搜索到任何资源' });
    expect(await d.activeSites(base, auth)).toBe(0);
    sim.assertNoViolations();
  });

  // mswjs/msw#1782: every one-time handler was marked used as soon as any request was intercepted, whatever
  // its URL. A one-shot fault is taken only by a request of the operation it names.
  it('a one-shot fault is not consumed by a request for another operation', async () => {
    const { sim, base, auth } = await started(d);
    sim.faults.fail5xx.push(d.ops.write);
    sim.faults.dropAfterAccept.push(d.ops.write);
    expect((await d.search(base, auth, DUNE_2)).found).toBeGreaterThan(0);
    expect(await d.lookup(base, auth, 'Dune')).toBeGreaterThan(0);
    expect(sim.faults.fail5xx).toEqual([d.ops.write]);
    expect(sim.faults.dropAfterAccept).toEqual([d.ops.write]);
    const res = await d.write(base, auth, DUNE_2);
    expect(res.status).toBe(500);
    await res.arrayBuffer();
  });

  // mswjs/msw#583: a one-time handler answered more than once when requests ran in parallel. One entry
  // fails one request, however many are in flight.
  it('one fail5xx entry fails exactly one of two parallel requests', async () => {
    const { sim, base, auth } = await started(d);
    sim.faults.fail5xx.push(d.ops.write);
    const answers = await Promise.all([d.write(base, auth, DUNE_2), d.write(base, auth, DUNE)]);
    for (const a of answers) await a.arrayBuffer();
    expect(answers.map((a) => a.status).sort()).toEqual([200, 500]);
    expect(d.written(sim)).toBe(1);
  });

  // smollweide/node-mock-server#107: the mock server kept a reference to its options object, so what one
  // response changed leaked into every other. Two simulators made from one options object own their faults:
  // a fault one of them takes is still armed on the other, and the caller's options are left as given.
  it('two simulators made from one options object do not share (or consume) each other’s faults', async () => {
    const faults = { fail5xx: [d.ops.write], dropAfterAccept: [d.ops.write] };
    const a = await started(d, faults);
    const b = await started(d, faults);
    const first = await d.write(a.base, a.auth, DUNE_2);
    expect(first.status).toBe(500);
    await first.arrayBuffer();
    expect(a.sim.faults.fail5xx).toEqual([]);
    expect(b.sim.faults.fail5xx).toEqual([d.ops.write]);
    expect(faults.fail5xx).toEqual([d.ops.write]);
    const other = await d.write(b.base, b.auth, DUNE_2);
    expect(other.status).toBe(500);
    await other.arrayBuffer();
    a.sim.faults.slowSearchMs = 5;
    expect(b.sim.faults.slowSearchMs).toBe(0);
  });
});
