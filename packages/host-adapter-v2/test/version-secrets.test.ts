import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '@media-agent/sdk/sqlite';
import { addToLibraryScript, CapturingLogger, ScriptedProvider } from '@media-agent/sdk/testing';
import { MoviePilotV2Simulator } from '@media-agent/host-adapter-v2/testing';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createV2AgentHost, V2HostClient } from '../src/index';
import { cleanup, started, waitForStatus } from './helpers';
import { filesUnder } from '../../sdk/test/redaction/files-under';

afterEach(cleanup);
const LOGIN = { username: 'admin', password: 'password' } as const;
const admin = { actor: 'user:admin', taskId: 't' } as const;

describe('the version is learned without keeping a secret', () => {
  // jxxghp/MoviePilot#5916 (any authenticated user could read all settings and secrets) and
  // jxxghp/MoviePilot#5283 (the settings route's deny list leaked new secrets): a 2.x host's
  // GET /api/v1/system/env returns API_TOKEN, TMDB_API_KEY, COOKIECLOUD_PASSWORD, GITHUB_TOKEN… next to
  // VERSION, and GET /api/v1/site/ each site's cookie. Before: the whole env answer reached the adapter's
  // start-up code. After: the client reduces it to the version string as it parses it; no secret value is
  // in any log line, storage row, trace span, run event or model request after start() and a run.
  it('login only (v2.5.6: the version comes from /system/env): no secret value anywhere after start and a run', async () => {
    const sim = new MoviePilotV2Simulator({ contract: 'v2.5.6' });
    await sim.start();
    started.push(sim);

    // Control: the simulated host does send the secrets, to a client that asks for the whole answer.
    const raw = new V2HostClient({ url: sim.url, auth: LOGIN });
    started.push(raw);
    const env = JSON.stringify(await raw.call('system.env'));
    for (const v of Object.values(sim.secrets).filter((x) => !x.startsWith('uid='))) expect(env).toContain(v);
    const sites = JSON.stringify(await raw.call('site.list'));
    expect(sites).toContain(sim.secrets.SITE_COOKIE);
    const reduced = await raw.call('system.env', {
      select: (d) => (d as { VERSION?: string }).VERSION,
    });
    expect(reduced).toBe('v2.5.6');

    const dir = mkdtempSync(join(tmpdir(), 'v2-version-secrets-'));
    const storage = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
    const logger = new CapturingLogger();
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
    const provider = new ScriptedProvider({ scripts: addToLibraryScript('Dune: Part Two') });
    const v2 = createV2AgentHost({
      url: sim.url,
      auth: LOGIN,
      storage,
      logger,
      tracing: { tracer, captureContent: true },
      model: { provider },
      runs: { pollMs: 5, goalPollSec: 1 },
    });
    started.push({ close: async () => rmSync(dir, { recursive: true, force: true }) });
    started.push(v2);
    await v2.host.start();
    expect(v2.status).toMatchObject({ version: 'v2.5.6', versionSource: 'GET /api/v1/system/env' });
    expect(sim.requestCount('GET /api/v1/system/env')).toBe(3); // the control's two and the adapter's one

    const run = await v2.host.startRun({ goal: 'Add Dune: Part Two to the library', actor: 'user:admin' });
    await waitForStatus(v2.host, run.id, ['waiting', 'failed', 'succeeded']);
    // A search that finds nothing reads the site list (its cookies reduced to a count in the client).
    const none = await v2.host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '329865' }, admin);
    expect(none.status).toBe('succeeded');
    expect(sim.requestCount('GET /api/v1/site/')).toBe(2);

    const detail = await v2.host.getRun(run.id, { limit: 1000 });
    expect(detail.events.length).toBeGreaterThan(0);
    expect(provider.requests.length).toBeGreaterThan(0);
    const spans = exporter
      .getFinishedSpans()
      .map((s) => ({ name: s.name, attributes: s.attributes, events: s.events }));
    expect(spans.length).toBeGreaterThan(0);
    const everything = [
      filesUnder(dir),
      logger.lines.join('\n'),
      JSON.stringify(spans),
      JSON.stringify(detail),
      JSON.stringify(provider.requests),
      JSON.stringify(v2.status),
    ].join('\n');
    expect(everything).toContain('Dune'); // the haystack holds the run
    for (const [name, value] of Object.entries(sim.secrets))
      expect(everything.includes(value), `${name} leaked`).toBe(false);
  });
});
