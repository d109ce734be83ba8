import { createServer, type Server } from 'node:http';
import { ConsoleLogger } from '@media-agent/sdk';
import { MemoryStorage } from '@media-agent/sdk/storage';
import { loadV2Contract, MoviePilotV2Simulator } from '@media-agent/host-adapter-v2/testing';
import { MoviePilotV3Simulator } from '@media-agent/host-adapter-v3/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createV2AgentHost,
  HostGenerationError,
  HostProtocolError,
  V2HostClient,
  type V2Credentials,
} from '../src/index';
import { cleanup, listenLocal, started } from './helpers';

afterEach(cleanup);
const LOGIN = { username: 'admin', password: 'password' } as const;

const startOf = (url: string, auth: V2Credentials) => {
  const v2 = createV2AgentHost({ url, auth, storage: new MemoryStorage(), logger: new ConsoleLogger('silent') });
  started.push(v2);
  return v2.host.start({ workers: false }).then(
    () => undefined,
    (e: unknown) => e as HostGenerationError,
  );
};

/** A host that answers every request with `answer(path)` (status, body text). */
async function fakeHost(answer: (path: string) => [number, string]): Promise<string> {
  const server: Server = createServer((req, res) => {
    const [status, body] = answer(new URL(req.url ?? '/', 'http://x').pathname);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  });
  return listenLocal(server);
}

describe('the V2 adapter refuses a host of another generation (HOST_GENERATION_MISMATCH)', () => {
  it('pointed at a MoviePilot 3.x host (the V3 simulator): refused at start, naming the 3.x envelope it found, nothing else sent', async () => {
    const v3 = new MoviePilotV3Simulator();
    await v3.start();
    started.push(v3);
    for (const auth of [{ apiKey: v3.apiKey }, LOGIN, { apiKey: v3.apiKey, ...LOGIN }] as V2Credentials[]) {
      const before = v3.requests.length;
      const error = await startOf(v3.url, auth);
      expect(error).toBeInstanceOf(HostGenerationError);
      expect(error).toMatchObject({ code: 'HOST_GENERATION_MISMATCH', expected: 'v2' });
      expect(error!.found).toContain('envelope');
      expect(error!.message).toContain('3.x');
      expect(error!.message).toContain('@media-agent/host-adapter-v3');
      expect(error!.message).not.toMatch(/check the API token|user name and password/);
      expect(v3.requests.slice(before).map((r) => r.url)).toEqual(['/api/v1/openapi.json']);
    }
  });

  it('a host whose version route reports v3.x is refused with that version (was HOST_VERSION_UNSUPPORTED)', async () => {
    const sim = new MoviePilotV2Simulator({ contract: 'v2.5.6', version: 'v3.0.3' });
    await sim.start();
    started.push(sim);
    const error = await startOf(sim.url, { apiKey: sim.apiKey, ...LOGIN });
    expect(error).toBeInstanceOf(HostGenerationError);
    expect(error).toMatchObject({ code: 'HOST_GENERATION_MISMATCH', expected: 'v2', found: 'v3.0.3' });
    expect(error!.message).toContain('v3.0.3');
  });

  it('an OpenAPI document that declares version 3.x is refused before any other request', async () => {
    const doc = { ...loadV2Contract('newer'), info: { title: 'MoviePilot', version: '3.0.1' } };
    const paths: string[] = [];
    const url = await fakeHost((path) => {
      paths.push(path);
      return [200, JSON.stringify(doc)];
    });
    const error = await startOf(url, { apiKey: 'k' });
    expect(error).toMatchObject({ code: 'HOST_GENERATION_MISMATCH', found: '3.0.1' });
    expect(paths).toEqual(['/api/v1/openapi.json']);
  });

  it('an OpenAPI document that lists the 3.x-only settings and update routes is refused, naming them', async () => {
    const v2doc = loadV2Contract('newer');
    const get = { get: { responses: { '200': { description: 'ok' } } } };
    const doc = {
      ...v2doc,
      paths: { ...v2doc.paths, '/api/v1/system/settings': get, '/api/v1/system/update/status': get },
    };
    const url = await fakeHost(() => [200, JSON.stringify(doc)]);
    const error = await startOf(url, { apiKey: 'k' });
    expect(error).toMatchObject({ code: 'HOST_GENERATION_MISMATCH', expected: 'v2' });
    expect(error!.found).toContain('/api/v1/system/settings');
  });

  it('a 2.x host (the V2 simulator, both documents) is not refused', async () => {
    for (const contract of ['v2.5.6', 'newer'] as const) {
      const sim = new MoviePilotV2Simulator({ contract });
      await sim.start();
      started.push(sim);
      expect(await startOf(sim.url, { apiKey: sim.apiKey, ...LOGIN })).toBeUndefined();
    }
  });
});

describe('answers off the contract are HOST_PROTOCOL_ERROR, never a success', () => {
  it('an enveloped route answering without the envelope, and a JSON route answering something else', async () => {
    const doc = JSON.stringify(loadV2Contract('newer'));
    const url = await fakeHost((path) => {
      if (path === '/api/v1/openapi.json') return [200, doc];
      if (path === '/api/v1/history/transfer') return [200, '[{"id":1}]']; // declared: the Response envelope
      if (path === '/api/v1/download/') return [200, '<html>maintenance</html>']; // declared: JSON
      return [404, '{"detail":"Not Found"}'];
    });
    const client = new V2HostClient({ url, auth: { apiKey: 'k' } });
    started.push(client);
    const bare = await client.call('history.transfer').catch((e: unknown) => e);
    expect(bare).toBeInstanceOf(HostProtocolError);
    expect(bare).toMatchObject({ code: 'HOST_PROTOCOL_ERROR', details: { operation: 'history.transfer' } });
    expect((bare as Error).message).toContain('without the {success, message, data} envelope');
    const html = await client.call('download.list').catch((e: unknown) => e);
    expect(html).toMatchObject({ code: 'HOST_PROTOCOL_ERROR', details: { operation: 'download.list', status: 200 } });
    expect((html as Error).message).toContain('not JSON');
    expect((html as Error).message).not.toContain('maintenance'); // the body is not repeated
  });

  it('HostProtocolError keeps the shared constructor (operation, message, details)', () => {
    const e = new HostProtocolError('download.list', 'not JSON', { status: 200 });
    expect(e).toMatchObject({ code: 'HOST_PROTOCOL_ERROR', message: 'not JSON' });
    expect(e.details).toEqual({ operation: 'download.list', status: 200 });
    const g = new HostGenerationError('v3', 'v2.5.6', 'a 2.x host');
    expect(g).toMatchObject({ code: 'HOST_GENERATION_MISMATCH', expected: 'v3', found: 'v2.5.6' });
  });
});

describe('no "check the API token" for a token the host accepted', () => {
  it('a 403 on one route after the host accepted the token elsewhere names another reason; a token never accepted is still "check the API token"', async () => {
    const sim = new MoviePilotV2Simulator({ contract: 'newer' });
    await sim.start();
    started.push(sim);
    const client = new V2HostClient({ url: sim.url, auth: { apiKey: sim.apiKey } });
    started.push(client);
    await client.call('download.list');
    sim.failWith('GET', '/api/v1/history/download', 403);
    const refused = (await client.call('history.download').catch((e: unknown) => e)) as Error;
    expect(refused).toMatchObject({ code: 'HOST_AUTH_FAILED', details: { status: 403, credentialAccepted: true } });
    expect(refused.message).not.toContain('check the API token');
    expect(refused.message).toContain('accepted the API token on other routes');
    const wrong = new V2HostClient({ url: sim.url, auth: { apiKey: 'not-the-token' } });
    started.push(wrong);
    const bad = (await wrong.call('download.list').catch((e: unknown) => e)) as Error;
    expect(bad).toMatchObject({ code: 'HOST_AUTH_FAILED', details: { status: 401 } });
    expect(bad.message).toContain('check the API token');
  });
});
