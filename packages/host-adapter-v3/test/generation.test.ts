import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger } from '@media-agent/sdk';
import { MemoryStorage } from '@media-agent/sdk/storage';
import {
  createV3AgentHost,
  HostGenerationError,
  HostProtocolError,
  V3_OPERATIONS,
  V3Client,
  type V3Auth,
  type V3CallInput,
  type V3Operation,
} from '@media-agent/host-adapter-v3';
import { loadV2Contract, MoviePilotV2Simulator } from '@media-agent/host-adapter-v2/testing';
import { MoviePilotV3Simulator } from '@media-agent/host-adapter-v3/testing';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function v2Sim(options: ConstructorParameters<typeof MoviePilotV2Simulator>[0] = {}) {
  const sim = new MoviePilotV2Simulator(options);
  await sim.start();
  cleanups.push(() => sim.close());
  return sim;
}

function v3HostAt(url: string, auth: V3Auth) {
  const v3 = createV3AgentHost({ url, auth, storage: new MemoryStorage(), logger: new ConsoleLogger('silent') });
  cleanups.push(() => v3.close());
  return v3;
}

async function startError(v3: ReturnType<typeof v3HostAt>): Promise<HostGenerationError> {
  const error = await v3.host.start({ workers: false }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HostGenerationError);
  return error as HostGenerationError;
}

describe('the V3 adapter refuses a host of another generation at start()', () => {
  // `--host v3` against a MoviePilot v2.5.6 server started, printed "MoviePilot 3.x" and ended
  // "found no title". singleton-altman/MoviePilotLite#98: a client that tells the generations apart by the body's
  // shape took the other generation's answers for its own; here a bare 2.x list is never a 3.x answer.
  it('API token against the v2.5.6 server (its standard routes refuse the token with a bare {detail}): HOST_GENERATION_MISMATCH naming MoviePilot v2.5.6, not "check the API token"', async () => {
    const sim = await v2Sim({ contract: 'v2.5.6' });
    const v3 = v3HostAt(sim.url, { apiKey: sim.apiKey });
    const error = await startError(v3);
    expect(error.code).toBe('HOST_GENERATION_MISMATCH');
    expect(error.expected).toBe('v3');
    expect(error.found).toBe('MoviePilot v2.5.6 (a 2.x host)');
    expect(error.message).toContain('not MoviePilot 3.x');
    expect(error.message).toContain('host-adapter-v2');
    expect(error.message).not.toMatch(/check the API token/i);
    expect(v3.status.generation).toBeNull();
    // Nothing ran: no lookup, search or download reached the host.
    expect(sim.requests.map((r) => r.path).filter((p) => /media|search|download\/$/.test(p))).toEqual([]);
  });

  it('API token against a newer 2.x host whose download.clients opens to the token (a bare JSON list): HOST_GENERATION_MISMATCH naming its version', async () => {
    const sim = await v2Sim({ version: 'v2.9.1' });
    const v3 = v3HostAt(sim.url, { apiKey: sim.apiKey });
    const error = await startError(v3);
    expect(error.found).toBe('MoviePilot v2.9.1 (a 2.x host)');
    expect(error.message).toMatch(/download\.clients answered HTTP \d+ with a (bare JSON list|JSON object)/);
  });

  it('a login against the v2.5.6 server (the login works on both generations; download.clients answers a bare list): HOST_GENERATION_MISMATCH, the version unknown without the API token', async () => {
    const sim = await v2Sim({ contract: 'v2.5.6' });
    const v3 = v3HostAt(sim.url, { username: 'admin', password: 'password' });
    const error = await startError(v3);
    expect(error.found).toMatch(/does not answer in the MoviePilot 3\.x envelope/);
    expect(error.message).toMatch(/download\.clients answered HTTP \d+ with a (bare JSON list|JSON object)/);
    expect(sim.requests.map((r) => r.path)).not.toContain('/api/v1/system/env'); // never read secrets to learn a version
  });

  it('a host whose download.clients answers a bare list as 2.x does (its OpenAPI: an array of objects), without the 2.x status route: HOST_GENERATION_MISMATCH', async () => {
    const sim = new MoviePilotV3Simulator({
      faults: { rawAnswer: { 'download.clients': { body: '[{"name":"qbittorrent","type":"qbittorrent"}]' } } },
    });
    await sim.start();
    cleanups.push(() => sim.close());
    const v3 = v3HostAt(sim.url, { apiKey: sim.apiKey });
    const error = await startError(v3);
    expect(error.found).toMatch(/does not answer in the MoviePilot 3\.x envelope/);
    expect(error.message).toContain('download.clients answered HTTP 200 with a bare JSON list of 1 item(s)');
    expect(error.message).not.toContain('qbittorrent'); // the kind of body, never its content
    expect(sim.requestsFor('media.search')).toHaveLength(0);
  });

  it('a 3.x host passes the check: generation v3, and no 2.x probe is sent', async () => {
    const sim = new MoviePilotV3Simulator();
    await sim.start();
    cleanups.push(() => sim.close());
    const v3 = v3HostAt(sim.url, { apiKey: sim.apiKey });
    await v3.host.start({ workers: false });
    expect(v3.status.generation).toBe('v3');
    expect(sim.requests.map((r) => r.url)).not.toContain('/api/v3/system/status');
    sim.assertNoViolations();
  });
});

/** A request the 3.x contract accepts for any catalog operation (placeholders for parameters). */
function acceptedInput(op: V3Operation): V3CallInput {
  const pathParams: Record<string, string> = {};
  for (const [, name] of op.path.matchAll(/\{([^}]+)\}/g)) pathParams[name!] = name === 'source' ? 'tmdb' : '1';
  const query: Record<string, string> = {};
  if (/\{media_id\}/.test(op.path) || op.operation_id === 'media.detail') query.media_source = 'themoviedb';
  if (op.operation_id === 'media.detail') query.type_name = '电影';
  if (/^media\.(search|person\.search|recognize)$/.test(op.operation_id)) query.title = 'Dune';
  if (op.operation_id === 'media.person.search') query.type = 'person';
  const body =
    op.operation_id === 'download.add'
      ? { torrent_in: { title: 't', enclosure: 'magnet:?xt=1' } }
      : op.operation_id === 'transfer.file'
        ? { fileitem: { storage: 'local', type: 'dir', path: '/d' } }
        : op.operation_id === 'subscription.add'
          ? { name: 'Dune' }
          : undefined;
  return { pathParams, query, ...(body && op.method !== 'GET' ? { body } : {}) };
}

describe('the catalog operations a 2.x host also serves', () => {
  it('all 107 operations sharing method and path with MoviePilot v2.5.6: its bare answers (a list, an all-null model, a bare object) are protocol errors, never successes', async () => {
    const v2 = loadV2Contract('v2.5.6');
    const norm = (p: string) => p.replace(/\{[^}]+\}/g, '{}');
    const routes = new Set(
      Object.entries(v2.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
        Object.keys(methods).map((m) => `${m.toUpperCase()} ${norm(path)}`),
      ),
    );
    const shared = V3_OPERATIONS.filter((o) => routes.has(`${o.method} ${norm(o.path)}`));
    expect(shared).toHaveLength(107);
    const sim = new MoviePilotV3Simulator();
    await sim.start();
    cleanups.push(() => sim.close());
    const client = new V3Client({ url: sim.url, auth: { apiKey: sim.apiKey }, readRetries: 0 });
    cleanups.push(() => client.close());
    const passed: string[] = [];
    for (const op of shared)
      for (const body of ['[]', '[{"id":1}]', '{"id":null,"name":null}', '{"id":1,"name":"x"}', 'true']) {
        // Operations that share a route (plugin.list and plugin.market) are told apart by the host: answer all alike.
        sim.faults.rawAnswer = Object.fromEntries(
          V3_OPERATIONS.filter((o) => o.method === op.method && o.path === op.path).map((o) => [
            o.operation_id,
            { body },
          ]),
        );
        const outcome = await client.call(op.operation_id, acceptedInput(op)).then(
          () => 'success',
          (e: unknown) => (e instanceof HostProtocolError && e.operation === op.operation_id ? 'protocol' : String(e)),
        );
        if (outcome !== 'protocol') passed.push(`${op.operation_id} ${body}: ${outcome}`);
      }
    expect(passed).toEqual([]);
    sim.assertNoViolations();
  });
});
