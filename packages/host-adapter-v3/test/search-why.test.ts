// Why a 3.x release search found nothing, and who may read a call whose result is secret: over real HTTP
// against the 3.x simulator.
import { kindOfV3Operation, V3_OPERATIONS, v3NeedsApproval } from '@media-agent/host-adapter-v3';
import { afterEach, describe, expect, it } from 'vitest';
import { runCleanups, v3Setup } from './helpers';

afterEach(runCleanups);

const admin = { actor: 'user:admin', taskId: 't' } as const;
const envelope = (message: string) => ({ body: JSON.stringify({ success: false, message, data: null }) });

describe('release.search says why it found nothing', () => {
  it('a recognised title with usable sites and no release is an empty list (not an error)', async () => {
    const { host, sim } = await v3Setup();
    // Arrival: the host knows the title; no site has a release of it.
    const r = await host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '329865' }, admin);
    expect(r.status).toBe('succeeded');
    expect((r.output as { releases: unknown[] }).releases).toEqual([]);
    expect(sim.requestsFor('media.detail').length).toBeGreaterThan(0);
    expect(sim.requestsFor('site.list')).toHaveLength(1);
  });

  it('a search with releases asks nothing more of the host', async () => {
    const { host, sim } = await v3Setup();
    const r = await host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '693134' }, admin);
    expect((r.output as { releases: unknown[] }).releases.length).toBeGreaterThan(0);
    expect(sim.requestsFor('media.detail')).toHaveLength(0);
    expect(sim.requestsFor('site.list')).toHaveLength(0);
  });

  // jxxghp/MoviePilot#4221: "未开启任何有效站点，无法搜索资源" — the host's own words name the cause.
  it('the host saying it has no usable site is HOST_NO_INDEXERS carrying its words', async () => {
    const { host, sim } = await v3Setup();
    sim.faults.rawAnswer['search.torrents'] = envelope('未开启任何有效站点，无法搜索资源');
    const r = await host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '693134' }, admin);
    expect(r.error?.code).toBe('HOST_NO_INDEXERS');
    expect(r.error?.message).toContain('未开启任何有效站点');
  });

  it('the host saying it recognised no media is MEDIA_NOT_FOUND naming the id and its words', async () => {
    const { host, sim } = await v3Setup();
    sim.faults.rawAnswer['search.torrents'] = envelope('未识别到媒体信息');
    const r = await host.invoke('release.search', { mediaSource: 'imdb', mediaId: 'tt0000001' }, admin);
    expect(r.error?.code).toBe('MEDIA_NOT_FOUND');
    expect(r.error?.message).toContain('imdb:tt0000001');
    expect(r.error?.message).toContain('未识别到媒体信息');
  });

  it('any other refusal stays the host failure it is (site authentication, …)', async () => {
    const { host, sim } = await v3Setup();
    sim.faults.rawAnswer['search.torrents'] = envelope('站点认证失败');
    const r = await host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '693134' }, admin);
    expect(r.error?.code).toBe('HOST_OPERATION_FAILED');
  });

  // jxxghp/MoviePilot#4071: TMDB unreachable and every search empty — the network test is asked again.
  it('TMDB lost after start: the error names TMDB and the host network test, and the status follows it', async () => {
    const v3 = await v3Setup();
    expect(v3.status.metadata).toBe('reachable');
    v3.sim.faults.metadataUnreachable = true;
    const r = await v3.host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '438631' }, admin);
    expect(r.error?.code).toBe('MEDIA_NOT_FOUND');
    expect(r.error?.message).toContain('cannot reach TMDB');
    expect(r.error?.message).toContain('网络连接失败！');
    expect(v3.status.metadata).toBe('unreachable');
    // Back online: the same search finds releases, and the status says so after the next empty answer.
    v3.sim.faults.metadataUnreachable = false;
    const again = await v3.host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '999999999' }, admin);
    expect(again.error?.message).toContain('recognised no title for tmdb:999999999');
    expect(v3.status.metadata).toBe('reachable');
  });

  it('catalog.lookup after TMDB was lost since start names TMDB, not "found no title"', async () => {
    const v3 = await v3Setup();
    v3.sim.faults.metadataUnreachable = true;
    const r = await v3.host.invoke('catalog.lookup', { query: 'Dune: Part Two' }, admin);
    expect(r.error?.code).toBe('MEDIA_NOT_FOUND');
    expect(r.error?.message).toContain('host metadata source unreachable');
    v3.sim.faults.metadataUnreachable = false;
    const back = await v3.host.invoke('catalog.lookup', { query: 'Dune: Part Two' }, admin);
    expect(back.status).toBe('succeeded');
  });

  it('identity.resolve to a known title re-binds the release; to an unknown one leaves it as it was', async () => {
    const { host } = await v3Setup();
    const found = await host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '693134' }, admin);
    const releaseId = (found.output as { releases: Array<{ releaseId: string }> }).releases[0]!.releaseId;
    const bad = await host.invoke(
      'identity.resolve',
      { subjectType: 'release', subjectId: releaseId, mediaSource: 'tmdb', mediaId: '999999999' },
      admin,
    );
    expect(bad.error?.code).toBe('MEDIA_NOT_FOUND');
    const seen = await host.invoke('release.inspect', { releaseId }, admin);
    expect((seen.output as { release: { mediaEntityId: string } }).release.mediaEntityId).toBe('tmdb:693134');
    const good = await host.invoke(
      'identity.resolve',
      { subjectType: 'release', subjectId: releaseId, mediaSource: 'tmdb', mediaId: '438631' },
      admin,
    );
    expect(good.output).toMatchObject({ mediaEntityId: 'tmdb:438631', previousMediaEntityId: 'tmdb:693134' });
  });
});

describe('secret results reach only a person', () => {
  const get = (query: Record<string, unknown>, body?: unknown) => ({ query, ...(body ? { body } : {}) });

  it('show_secrets in any spelling (query or merged body) is denied to agents, keys and jobs; nothing is sent', async () => {
    const { host, sim } = await v3Setup();
    const cases: Array<[unknown, `${'agent' | 'apikey' | 'system'}:${string}`]> = [
      [get({ setting_key: 'API_TOKEN', show_secrets: 'true' }), 'agent:run-1'],
      [get({ setting_key: 'API_TOKEN', show_secrets: 1 }), 'agent:run-1'],
      [get({ setting_key: 'API_TOKEN' }, { show_secrets: true }), 'agent:run-1'],
      [get({ setting_key: 'API_TOKEN', show_secrets: true }), 'apikey:ci'],
      [get({ setting_key: 'API_TOKEN', show_secrets: true }), 'system:scheduler'],
    ];
    for (const [input, actor] of cases) {
      const r = await host.invoke('mp.config.system.get', input, { actor });
      expect(r.status, `${actor} ${JSON.stringify(input)}`).toBe('denied');
      expect(r.error?.code).toBe('AUTH_NO_AUTHORIZATION');
    }
    expect(sim.requestsFor('config.system.get')).toHaveLength(0);
    // Nor can a key plan such a call for approval (with a grant to plan): no approval would let the secret reach it.
    await host.grants.create({ action: 'mp.*', actor: 'user:admin' });
    const plan = await host.invoke(
      'mp.operation.plan',
      { operation_id: 'config.system.get', query: { show_secrets: true } },
      { actor: 'apikey:bot' },
    );
    expect(plan.status, plan.error?.message).toBe('failed');
    expect(plan.error?.code).toBe('AUTH_NO_AUTHORIZATION');
    const plain = await host.invoke(
      'mp.operation.plan',
      { operation_id: 'config.system.get', query: { setting_key: 'API_TOKEN' } },
      { actor: 'user:admin' },
    );
    expect(plain.status).toBe('succeeded');
  });

  it('a person may read them; an agent reads the settings without secrets (private results stay offered)', async () => {
    const { host, sim } = await v3Setup();
    const person = await host.invoke('mp.config.system.get', get({ setting_key: 'API_TOKEN', show_secrets: true }), {
      actor: 'user:admin',
    });
    expect(person.status).toBe('succeeded');
    const agent = await host.invoke('mp.config.system.get', get({ setting_key: 'API_TOKEN' }), {
      actor: 'agent:run-1',
    });
    expect(agent.status).toBe('succeeded');
    const off = await host.invoke('mp.config.system.get', get({ show_secrets: false }), { actor: 'agent:run-1' });
    expect(off.status).toBe('succeeded');
    expect(sim.requestsFor('config.system.get')).toHaveLength(3);
  });

  it('a read the host wants confirmed is an execute capability that needs an approval for agents, not a grant', () => {
    const read = V3_OPERATIONS.find((o) => o.effect === 'safe_read')!;
    const confirmed = { ...read, confirmation: 'required' as const };
    expect(kindOfV3Operation(read).kind).toBe('read');
    expect(kindOfV3Operation(confirmed)).toEqual({ kind: 'execute', replay: 'reconcile' });
    expect(v3NeedsApproval(confirmed, 'agent')).toBe(true);
    expect(v3NeedsApproval(confirmed, 'user')).toBe(false);
    expect(v3NeedsApproval(read, 'agent')).toBe(false);
    // The catalog as shipped: no read needs confirmation, so every read stays a read.
    expect(V3_OPERATIONS.filter((o) => o.effect === 'safe_read' && o.confirmation === 'required')).toEqual([]);
  });
});
