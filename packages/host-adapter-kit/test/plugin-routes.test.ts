import { describe, expect, it } from 'vitest';
import { declaresJsonOnly, hostPluginSegments, rulePluginRoute } from '@media-agent/host-adapter-kit';

const json = { responses: { '200': { content: { 'application/json': { schema: {} } } } } };
const paths = [
  '/api/v1/plugin/',
  '/api/v1/plugin/installed',
  '/api/v1/plugin/folders',
  '/api/v1/plugin/folders/{folder_name}',
  '/api/v1/plugin/file/{plugin_id}/{filepath}',
  '/api/v1/plugin/reload/{plugin_id}',
  '/api/v1/plugin/dashboard/meta',
  '/api/v1/plugin/dashboard/{plugin_id}',
  '/api/v1/plugin/{plugin_id}',
  '/api/v1/plugin/LogsClean/clean',
  '/api/v1/plugin/PluginManagerVue/online_info/{plugin_id}',
  '/api/v1/plugin/MediaCoverGeneratorclean_fonts',
];

describe('the plugin route rule', () => {
  const hostSegments = hostPluginSegments(paths);

  it('finds the host’s own segments from the paths alone: served alone, or followed by {plugin_id}', () => {
    expect([...hostSegments].sort()).toEqual([
      'MediaCoverGeneratorclean_fonts',
      'dashboard',
      'file',
      'folders',
      'installed',
      'reload',
      '{plugin_id}',
    ]);
  });

  it('refuses the host’s static-file route, whatever it declares (jxxghp/MoviePilot#5554: it serves a plugin’s JS files)', () => {
    const r = rulePluginRoute('/api/v1/plugin/file/{plugin_id}/{filepath}', json, { hostSegments });
    expect(r).toMatchObject({ own: false, reason: 'host_route' });
    expect(rulePluginRoute('/api/v1/plugin/dashboard/meta', json, { hostSegments })).toMatchObject({
      own: false,
      reason: 'host_route',
    });
    expect(rulePluginRoute('/api/v1/plugin/folders/{folder_name}', json, { hostSegments })).toMatchObject({
      own: false,
      reason: 'host_route',
    });
  });

  it('accepts a plugin’s own route (a plugin may take a {plugin_id} deeper in its own path)', () => {
    expect(rulePluginRoute('/api/v1/plugin/LogsClean/clean', json, { hostSegments })).toEqual({
      own: true,
      pluginId: 'LogsClean',
      rest: 'clean',
    });
    expect(
      rulePluginRoute('/api/v1/plugin/PluginManagerVue/online_info/{plugin_id}', json, { hostSegments }),
    ).toMatchObject({ own: true, pluginId: 'PluginManagerVue' });
  });

  it('refuses paths outside /api/v1/plugin/<PluginID>/<path>', () => {
    for (const p of [
      '/api/v1/plugin/',
      '/api/v1/plugin/installed',
      '/api/v1/plugin/MediaCoverGeneratorclean_fonts',
      '/api/v1/site/',
    ])
      expect(rulePluginRoute(p, json, { hostSegments }), p).toMatchObject({ own: false, reason: 'outside_plugin_api' });
  });

  it('refuses a route that does not declare JSON only (anyproto/anytype-mcp#125: file answers stringified as JSON)', () => {
    const file = { responses: { '200': { content: { 'application/octet-stream': {} } } } };
    const both = { responses: { '200': { content: { 'application/json': {}, 'text/html': {} } } } };
    expect(rulePluginRoute('/api/v1/plugin/AutoBackup/backup', file, { hostSegments })).toMatchObject({
      own: false,
      reason: 'not_json',
    });
    expect(rulePluginRoute('/api/v1/plugin/AutoBackup/backup', both, { hostSegments }).own).toBe(false);
    expect(rulePluginRoute('/api/v1/plugin/AutoBackup/backup', {}, { hostSegments }).own).toBe(false);
    expect(declaresJsonOnly({ responses: { '201': { content: { 'application/problem+json': {} } } } })).toBe(true);
    expect(declaresJsonOnly({ responses: { '200': { content: { 'application/jsonp': {} } } } })).toBe(false);
  });

  it('refuses a plugin the host does not list as installed, when the list is known', () => {
    const installed = new Set(['AutoSignIn']);
    expect(rulePluginRoute('/api/v1/plugin/LogsClean/clean', json, { hostSegments, installed })).toMatchObject({
      own: false,
      reason: 'not_installed',
    });
    expect(rulePluginRoute('/api/v1/plugin/AutoSignIn/signin', json, { hostSegments, installed }).own).toBe(true);
  });
});
