import { readFileSync } from 'node:fs';
import { ContractValidator, loadV2Contract, MoviePilotV2Simulator } from '@media-agent/host-adapter-v2/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createV2AgentHost, V2_OPENAPI_PATH, V2_OPERATIONS, V2HostClient, pluginRoutes } from '../src/index';
import { cleanup, started, v2Setup } from './helpers';

afterEach(cleanup);
const doc = loadV2Contract();
const admin = { actor: 'user:admin', taskId: 't' } as const;

describe('the adapter against openapi-v2.json', () => {
  it('every operation of the client table exists in the contract with its method, envelope and security alternatives', () => {
    for (const op of Object.values(V2_OPERATIONS)) {
      const o = doc.paths[op.path]?.[op.method.toLowerCase()];
      expect(o, `${op.method} ${op.path}`).toBeDefined();
      const schema = o!.responses?.['200']?.content?.['application/json']?.schema as { $ref?: string } | undefined;
      expect(schema?.$ref === '#/components/schemas/Response' ? 'response' : 'bare', `${op.id} envelope`).toBe(
        op.envelope,
      );
      expect((o!.security ?? []).flatMap((s) => Object.keys(s)).sort(), `${op.id} security`).toEqual(
        [...op.security].sort(),
      );
    }
  });

  it('every operation of the client table exists in the v2.5.6 document with its method and envelope; its security there is the login only, /api/v3 the API token only', () => {
    const old = loadV2Contract('v2.5.6');
    for (const op of Object.values(V2_OPERATIONS)) {
      const o = old.paths[op.path]?.[op.method.toLowerCase()];
      expect(o, `${op.method} ${op.path}`).toBeDefined();
      const schema = o!.responses?.['200']?.content?.['application/json']?.schema as { $ref?: string } | undefined;
      expect(schema?.$ref === '#/components/schemas/Response' ? 'response' : 'bare', `${op.id} envelope`).toBe(
        op.envelope,
      );
      const security = (o!.security ?? []).flatMap((s) => Object.keys(s)).sort();
      expect(security, `${op.id} security`).toEqual(
        op.path.startsWith('/api/v3/') ? ['api_key_header', 'api_key_query'] : ['OAuth2PasswordBearer'],
      );
    }
  });

  it('superuser-only operations are those of the V2 notes (POST /transfer/manual, GET /system/env, GET /system/setting/{key} and DELETE /history/transfer among those the adapter sends)', () => {
    const notes = readFileSync(new URL('../contracts/notes-v2.md', import.meta.url), 'utf8');
    expect(notes).toContain('POST /transfer/manual');
    expect(
      Object.values(V2_OPERATIONS)
        .filter((o) => o.superuser)
        .map((o) => `${o.method} ${o.path}`),
    ).toEqual([
      'POST /api/v1/transfer/manual',
      'GET /api/v1/system/env',
      'GET /api/v1/system/setting/{key}',
      'DELETE /api/v1/history/transfer',
    ]);
  });

  it('every row of the README mapping table names endpoints that exist in the contract', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const rows = readme.split('\n').filter((l) => /^\| `[a-z]/.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(17);
    for (const row of rows) {
      const endpoints = [...row.matchAll(/`(GET|POST|PUT|DELETE) (\/api\/v1\/[^`\s]+)`/g)];
      if (!row.includes('plugin.<PluginID>')) expect(endpoints.length, row).toBeGreaterThan(0);
      for (const [, method, path] of endpoints)
        if (path !== V2_OPENAPI_PATH)
          expect(doc.paths[path!]?.[method!.toLowerCase()], `${method} ${path}`).toBeDefined();
    }
  });

  it('the simulator rejects a request the real host would reject and records it as a violation', async () => {
    const sim = new MoviePilotV2Simulator();
    await sim.start();
    started.push(sim);
    const bad = await fetch(`${sim.url}/api/v1/media/search?count=3`, { headers: { 'x-api-key': sim.apiKey } });
    expect(bad.status).toBe(422);
    const anonymous = await fetch(`${sim.url}/api/v1/download/`);
    expect(anonymous.status).toBe(401);
    const body = await fetch(`${sim.url}/api/v1/download/`, {
      method: 'POST',
      headers: { 'x-api-key': sim.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ torrent_in: {} }),
    });
    expect(body.status).toBe(422);
    expect(sim.violations).toHaveLength(3);
    expect(() => sim.assertNoViolations()).toThrow(/required/);
  });

  it('every request the adapter can send validates against the contract (all 15 capabilities, subscriptions, plugins, JWT login)', async () => {
    const { clock, sim, host, adapter } = await v2Setup({ sim: { autoTransfer: false } });
    const ok = async (id: string, input: unknown) => {
      const r = await host.invoke(id, input, admin);
      expect(r.status, `${id}: ${JSON.stringify(r.error)}`).toMatch(/succeeded|pending/);
      return r.output as any;
    };
    const item = (await ok('catalog.lookup', { query: 'Dune: Part Two 2024', limit: 2 })).items[0];
    await ok('catalog.lookup', { query: 'tmdb:693134', kind: 'movie' });
    const releases = (await ok('release.search', { mediaSource: 'tmdb', mediaId: '693134', minResolution: '1080p' }))
      .releases;
    await ok('release.inspect', { releaseId: releases[1].releaseId });
    await ok('identity.resolve', {
      subjectType: 'release',
      subjectId: releases[0].releaseId,
      mediaSource: 'tmdb',
      mediaId: '693134',
      kind: 'movie',
    });
    const plan = await ok('download.plan', {
      mediaSource: item.mediaSource,
      mediaId: item.mediaId,
      kind: 'movie',
      releaseId: releases[0].releaseId,
    });
    const job = (await ok('download.submit', { planId: plan.plan.id })).download;
    sim.stallDownload(job.id);
    await ok('download.recheck', { downloadId: job.id, action: 'resume' });
    await ok('task.retry', { taskId: job.id });
    clock.advance(60_000);
    const org = await ok('organize.plan', { downloadId: job.id, mode: 'copy' });
    const organized = await ok('organize.execute', { planId: org.plan.id });
    await ok('moviepilot.organize.revert', { organizeId: organized.organize.id });
    // the reads behind the impacts (run by the approval path, not by invoke)
    await adapter.client.call('system.setting', { pathParams: { key: 'Directories' } });
    await adapter.client.call('dashboard.downloader');
    await adapter.client.call('storage.usage', { pathParams: { name: 'local' } });
    await ok('task.inspect', { planId: plan.plan.id });
    await ok('task.inspect', {});
    await ok('inventory.query', { query: 'tmdb:693134' });
    await ok('inventory.query', {});
    await ok('policy.preview', { kind: 'acquisition', settings: { minResolution: '1080p' } });
    const applied = await ok('policy.apply', { kind: 'acquisition', settings: { minResolution: '1080p' } });
    await ok('moviepilot.policy.revert', { kind: 'acquisition', revision: applied.revision });
    const duneReleases = (await ok('release.search', { mediaSource: 'tmdb', mediaId: '438631' })).releases;
    // A title no site has: the adapter checks the host's sites before reporting "no releases".
    expect((await ok('release.search', { mediaSource: 'tmdb', mediaId: '329865' })).releases).toEqual([]);
    const other = await ok('download.plan', {
      mediaSource: 'tmdb',
      mediaId: '438631',
      kind: 'movie',
      releaseId: duneReleases[0].releaseId,
    });
    const second = (await ok('download.submit', { planId: other.plan.id })).download;
    await ok('task.cancel', { taskId: second.id });
    await ok('moviepilot.subscription.add', { mediaSource: 'douban', mediaId: '35435093', kind: 'tv', name: 'Shōgun' });
    await ok('moviepilot.subscription.find', { mediaSource: 'douban', mediaId: '35435093' });
    await ok('plugin.PluginHeatMonitor.status', {});
    await ok('plugin.EmbyRating.run', {});
    await ok('plugin.PluginHeatMonitor.month-data.month_key', { query: { month_key: '2026-11' } });
    const fresh = createV2AgentHost({ url: sim.url, auth: { apiKey: sim.apiKey }, plugins: false });
    started.push(fresh);
    await fresh.host.start({ workers: false });
    expect((await fresh.host.invoke('release.inspect', { releaseId: duneReleases[1].releaseId }, admin)).status).toBe(
      'succeeded',
    ); // not cached: GET /search/last
    const jwt = new V2HostClient({ url: sim.url, auth: { username: 'guest', password: 'password' } });
    await jwt.call('user.current');
    await jwt.close();
    const sent = [...Object.keys(adapter.client.stats.requests), ...Object.keys(fresh.client.stats.requests)];
    for (const op of Object.values(V2_OPERATIONS).filter(
      (o) => !['media.recognize', 'subscribe.list', 'transfer.queue', 'user.current', 'system.env'].includes(o.id),
    ))
      expect(sent, op.id).toContain(`${op.method} ${op.path}`);
    sim.assertNoViolations();
  });

  it('plugin routes of the document become plugin.<PluginID>.<path> capabilities, host plugin-management routes excluded', () => {
    const routes = pluginRoutes(doc as never);
    const ids = routes.map((r) => r.capabilityId);
    expect(ids).toContain('plugin.EmbyRating.run');
    expect(ids).toContain('plugin.PluginHeatMonitor.month-data.month_key');
    expect(
      ids.some((id) => /^plugin\.(installed|dashboard|folders|form|page|reload|reset|statistic|clone)\b/.test(id)),
    ).toBe(false);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new ContractValidator(doc).match('GET', '/api/v1/plugin/installed')?.template).toBe(
      '/api/v1/plugin/installed',
    );
  });
});
