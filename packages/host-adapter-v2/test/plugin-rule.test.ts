import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { hostPluginSegments, rulePluginRoute } from '@media-agent/host-adapter-kit';
import { V3_OPERATIONS } from '@media-agent/host-adapter-v3';
import { pluginRoutes, type V2OpenApiDocument } from '../src/index';
import { cleanup, v2Setup } from './helpers';

afterEach(cleanup);

const contract = (name: string) =>
  JSON.parse(readFileSync(new URL(`../contracts/${name}`, import.meta.url), 'utf8')) as V2OpenApiDocument;

/** Every route under /api/v1/plugin/ of a document, with what became of it. */
function listing(doc: V2OpenApiDocument) {
  const own = new Map(pluginRoutes(doc).map((r) => [`${r.method} ${r.path}`, r.capabilityId]));
  return Object.entries(doc.paths)
    .filter(([p]) => p.startsWith('/api/v1/plugin/'))
    .flatMap(([p, ms]) => Object.keys(ms).map((m) => `${m.toUpperCase()} ${p}`))
    .map((route) => ({ route, capability: own.get(route) ?? null }));
}

describe('plugin discovery by rule, over both 2.x contract documents and the 3.x catalog', () => {
  it('v2.5.6 (a real server with no plugin API installed): no route under /plugin/ becomes a capability', () => {
    const list = listing(contract('openapi-v2.5.6.json'));
    expect(list.length).toBe(22);
    // Before: GET /api/v1/plugin/file/{plugin_id}/{filepath} became plugin.file.plugin_id.filepath.
    expect(list.filter((x) => x.capability)).toEqual([]);
  });

  it('the newer 2.x document: every installed plugin’s JSON routes, none of the host’s management routes', () => {
    const doc = contract('openapi-v2.json');
    const list = listing(doc);
    const capabilities = list.filter((x) => x.capability);
    expect(capabilities.length).toBe(154);
    const plugins = new Set(pluginRoutes(doc).map((r) => r.pluginId));
    expect(plugins.size).toBe(25);
    const host = hostPluginSegments(Object.keys(doc.paths));
    for (const c of capabilities) expect(host.has(c.route.split('/')[4]!), c.route).toBe(false);
    for (const r of [
      'GET /api/v1/plugin/reload/{plugin_id}',
      'GET /api/v1/plugin/dashboard/meta',
      'PUT /api/v1/plugin/folders/{folder_name}/plugins',
    ])
      expect(list.find((x) => x.route === r)?.capability, r).toBeNull();
    expect(list.find((x) => x.route === 'POST /api/v1/plugin/LogsClean/clean')?.capability).toBe(
      'plugin.LogsClean.clean',
    );
  });

  it('the 3.x catalog: every operation under /api/v1/plugin/ is the host’s own, none is a plugin API', () => {
    const ops = V3_OPERATIONS.filter((o) => o.path.startsWith('/api/v1/plugin/'));
    expect(ops.length).toBeGreaterThan(20);
    const hostSegments = hostPluginSegments(V3_OPERATIONS.map((o) => o.path));
    const json = { responses: { '200': { content: { 'application/json': {} } } } };
    expect(ops.filter((o) => rulePluginRoute(o.path, json, { hostSegments }).own).map((o) => o.operation_id)).toEqual(
      [],
    );
  });

  it('a v2.5.6 host: the static-file route is no capability the model can call (jxxghp/MoviePilot#5554)', async () => {
    const { sim, host } = await v2Setup({
      sim: { contract: 'v2.5.6' },
      host: { auth: { username: 'admin', password: 'password', apiKey: 'sim-api-token-0123456789abcdef' } },
    });
    const ids = host.capabilities.list().map((c) => c.id);
    expect(ids.filter((id) => id.startsWith('plugin.'))).toEqual([]);
    // The route answers files (a plugin's JS, a Python source for plugin_id "."), never JSON: nothing for a model.
    const answer = await fetch(`${sim.url}/api/v1/plugin/file/mcpserver/remoteEntry.js`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/javascript');
  });
});
