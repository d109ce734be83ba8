import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { mpCapabilityId, V3_OPERATIONS, V3_STANDARD_OPERATIONS, validateV3Request } from '@media-agent/host-adapter-v3';
import { runCleanups, v3Setup } from './helpers';

afterEach(runCleanups);
const contract = JSON.parse(
  readFileSync(new URL('../contracts/v3-operations.json', import.meta.url), 'utf8'),
) as Array<{ operation_id: string; method: string; path: string; admin_only: boolean }>;

/** Sample arguments for operations with required fields (v3-notes §7). */
const SAMPLE: Record<string, { query?: Record<string, unknown>; body?: unknown }> = {
  'media.search': { query: { title: 'Dune' } },
  'media.person.search': { query: { title: 'Villeneuve', type: 'person' } },
  'media.recognize': { query: { title: 'Dune.2021.2160p' } },
  'media.detail': { query: { media_source: 'themoviedb', type_name: '电影' } },
  'search.torrents': { query: { media_source: 'themoviedb' } },
  'subscription.find': { query: { media_source: 'themoviedb' } },
  'subtitle.search.media': { query: { media_source: 'themoviedb' } },
  'subscription.delete_by_media': { query: { media_source: 'themoviedb' } },
  'download.add': {
    body: {
      torrent_in: {
        title: 'Dune.Part.Two.2024.1080p.BluRay.H264-MP',
        enclosure: 'https://pt.example/download/1002',
        size: 1,
      },
      media_source: 'themoviedb',
      media_id: '693134',
    },
  },
  'transfer.file': { body: { fileitem: { storage: 'local', type: 'dir', path: '/downloads/x' }, preview: true } },
  'subscription.add': { body: { name: 'Dune', media_source: 'themoviedb', media_id: '438631' } },
  'library.exists': { query: { media_source: 'themoviedb', media_id: '329865' } },
};

describe('V3 contract', () => {
  it('every catalog operation the adapter can send as mp.<operation_id> validates against the contract (method, path, identity, paging)', async () => {
    const { host, sim } = await v3Setup();
    for (const op of V3_OPERATIONS) {
      const path_params = Object.fromEntries(
        [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => [
          m[1]!,
          m[1] === 'source' ? 'tmdb' : m[1] === 'media_id' ? '693134' : '1',
        ]),
      );
      const sample = SAMPLE[op.operation_id] ?? {};
      const query = { ...(op.method === 'GET' ? { page: 1, count: 20 } : {}), ...sample.query };
      const input = {
        path_params,
        query,
        ...(sample.body !== undefined ? { body: sample.body } : op.method === 'GET' ? {} : { body: {} }),
      };
      const r = await host.invoke(mpCapabilityId(op.operation_id), input, {
        actor: 'user:admin',
        taskId: `contract-${op.operation_id}`,
      });
      expect(['succeeded', 'pending', 'failed'], op.operation_id).toContain(r.status);
    }
    expect(
      sim.requests
        .filter((r) => r.operationId !== 'login.access_token')
        .map((r) => r.operationId)
        .sort(),
    ).toEqual(expect.arrayContaining(['download.add', 'transfer.file']));
    sim.assertNoViolations();
  });

  it('every request the standard capabilities send validates against the contract', async () => {
    const { host, sim, clock } = await v3Setup();
    const a = { actor: 'user:admin' as const };
    await host.invoke('inventory.query', { query: 'Dune' }, a);
    await host.invoke('inventory.query', {}, a);
    await host.invoke('catalog.lookup', { query: 'Dune', limit: 5 }, a);
    await host.invoke('catalog.lookup', { query: 'tmdb:693134' }, a);
    const search = await host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '693134', limit: 5 }, a);
    const releaseId = (search.output as { releases: Array<{ releaseId: string }> }).releases[0]!.releaseId;
    await host.invoke('release.inspect', { releaseId }, a);
    await host.invoke(
      'identity.resolve',
      { subjectType: 'release', subjectId: releaseId, mediaSource: 'tmdb', mediaId: '693134' },
      a,
    );
    const plan = await host.invoke(
      'download.plan',
      { mediaSource: 'tmdb', mediaId: '693134', kind: 'movie', releaseId },
      a,
    );
    const submit = await host.invoke(
      'download.submit',
      { planId: (plan.output as { plan: { id: string } }).plan.id },
      a,
    );
    const hash = (submit.output as { download: { id: string } }).download.id;
    clock.advance(60_000);
    const oplan = await host.invoke('organize.plan', { downloadId: hash }, a);
    const organized = await host.invoke(
      'organize.execute',
      { planId: (oplan.output as { plan: { id: string } }).plan.id },
      a,
    );
    expect(organized.status).toBe('succeeded');
    const tasks = await host.invoke('task.inspect', {}, a);
    const th = (tasks.output as { tasks: Array<{ id: string; type: string }> }).tasks.find(
      (t) => t.type === 'organize',
    )!.id;
    await host.invoke('task.retry', { taskId: th }, a);
    await host.invoke('policy.preview', { kind: 'acquisition', settings: { minResolution: '1080p' } }, a);
    await host.invoke('policy.apply', { kind: 'acquisition', settings: { minResolution: '1080p' } }, a);
    expect(sim.requests.length).toBeGreaterThan(15);
    sim.assertNoViolations();
  });

  it('the simulator rejects a request the real host would reject (unpaired identity, paging out of bounds, unknown route) and the test helper fails on it', () => {
    const check = (path: string, query: string) =>
      validateV3Request({
        method: 'GET',
        path,
        query: new URLSearchParams(query),
        headers: { 'x-api-key': 'k' },
        body: undefined,
      });
    expect(check('/api/v1/mediaserver/exists', 'media_source=themoviedb').violations.join()).toMatch(/together/);
    expect(check('/api/v1/download/', 'count=500').violations.join()).toMatch(/out of bounds/);
    expect(check('/api/v1/nowhere', '').violations.join()).toMatch(/no catalog operation/);
    expect(check('/api/v1/mediaserver/exists', 'media_source=themoviedb&media_id=1').violations).toEqual([]);
  });

  it('README mapping table: every row names operations that exist in the contract file with the stated method and path, and matches what the capability sends', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const rows = readme.split('\n').filter((l) => /^\| `[a-z]+\.[a-z]+` \|/.test(l));
    expect(rows).toHaveLength(15);
    for (const row of rows) {
      const id = /^\| `([^`]+)`/.exec(row)![1]!;
      const refs = [...row.matchAll(/`([a-z_.]+)` \((GET|POST|PUT|PATCH|DELETE) `([^`]+)`(, admin)?\)/g)];
      for (const [, opId, method, path, admin] of refs) {
        const op = contract.find((o) => o.operation_id === opId);
        expect(op, `${id}: ${opId}`).toBeDefined();
        expect({ method: op!.method, path: op!.path, admin: op!.admin_only }, `${id}: ${opId}`).toEqual({
          method,
          path,
          admin: admin !== undefined,
        });
      }
      expect(refs.map((r) => r[1]).sort(), id).toEqual([...(V3_STANDARD_OPERATIONS[id] ?? [])].sort());
    }
  });
});
