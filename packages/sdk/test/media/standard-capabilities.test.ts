import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  ManualClock,
  SequentialIdGenerator,
  createAgentHost,
  defineCapability,
  isMediaAgentError,
} from '../../src/index';
import { MemoryStorage } from '../../src/storage';
import {
  STANDARD_CAPABILITIES,
  STANDARD_CAPABILITY_IDS,
  StandardCapabilitiesMissingError,
  StandardCapabilityMismatchError,
  defineStandardCapability,
  mediaEntityId,
  parseMediaEntityId,
  registerStandardCapabilities,
  type StandardOutput,
} from '../../src/media';
import { SANDBOX_UNDO_CAPABILITY_IDS, sandboxCapabilities } from '../../src/testing';
import { makeSandboxHost } from '../sandbox/helpers';

describe('standard media capabilities', () => {
  it('the contracts table has exactly the 15 ids of seed 004, each with kind, replay policy, schemas, title, description, tags and aliases', () => {
    expect(STANDARD_CAPABILITY_IDS).toHaveLength(15);
    expect(Object.keys(STANDARD_CAPABILITIES).sort()).toEqual([...STANDARD_CAPABILITY_IDS].sort());
    for (const id of STANDARD_CAPABILITY_IDS) {
      const c = STANDARD_CAPABILITIES[id];
      expect(c.id).toBe(id);
      expect(c.title.length).toBeGreaterThan(0);
      expect(c.description.length).toBeGreaterThan(40);
      expect(c.tags.length).toBeGreaterThan(0);
      expect(c.aliases.some((a) => /\p{Script=Han}/u.test(a))).toBe(true);
    }
  });

  it('kinds, replay policies and policy kinds are fixed by the contract', () => {
    const table = Object.fromEntries(
      STANDARD_CAPABILITY_IDS.map((id) => [
        id,
        [STANDARD_CAPABILITIES[id].kind, STANDARD_CAPABILITIES[id].replay, STANDARD_CAPABILITIES[id].policy ?? null],
      ]),
    );
    expect(table).toEqual({
      'catalog.lookup': ['read', 'safe', null],
      'release.search': ['read', 'safe', null],
      'release.inspect': ['read', 'safe', null],
      'identity.resolve': ['execute', 'reconcile', 'identity'],
      'download.plan': ['propose', 'reconcile', 'acquisition'],
      'download.submit': ['execute', 'never', 'acquisition'],
      'download.recheck': ['execute', 'never', 'automation'],
      'organize.plan': ['propose', 'reconcile', 'organize'],
      'organize.execute': ['execute', 'reconcile', 'organize'],
      'task.inspect': ['read', 'safe', null],
      'task.retry': ['execute', 'reconcile', 'automation'],
      'task.cancel': ['execute', 'reconcile', 'acquisition'],
      'policy.preview': ['preview', 'safe', null],
      'policy.apply': ['execute', 'reconcile', null],
      'inventory.query': ['read', 'safe', null],
    });
  });

  it('plan-executing capabilities target the plan; media capabilities target the media entity', () => {
    expect(STANDARD_CAPABILITIES['download.submit'].target!({ planId: 'plan-1' })).toEqual({
      planType: 'download',
      planId: 'plan-1',
    });
    expect(STANDARD_CAPABILITIES['organize.execute'].target!({ planId: 'plan-2' })).toEqual({
      planType: 'organize',
      planId: 'plan-2',
    });
    expect(
      STANDARD_CAPABILITIES['download.plan'].target!({
        mediaSource: 'tmdb',
        mediaId: '693134',
        kind: 'movie',
        releaseId: 'r',
      }),
    ).toEqual({ mediaEntityId: 'tmdb:693134', mediaKind: 'movie', bytes: 0 });
    expect(mediaEntityId({ mediaSource: 'douban', mediaId: '35575567' })).toBe('douban:35575567');
    expect(parseMediaEntityId('tmdb:693134')).toEqual({ mediaSource: 'tmdb', mediaId: '693134' });
    expect(parseMediaEntityId('nope:1')).toBeUndefined();
  });

  it('all 15 are registered on a real host by registerStandardCapabilities', async () => {
    const { host } = await makeSandboxHost();
    expect(
      host.capabilities
        .list()
        .map((d) => d.id)
        .sort(),
    ).toEqual([...STANDARD_CAPABILITY_IDS, ...SANDBOX_UNDO_CAPABILITY_IDS].sort());
    for (const d of host.capabilities.list().filter((c) => c.id in STANDARD_CAPABILITIES))
      expect([d.kind, d.replay, d.policy]).toEqual([
        STANDARD_CAPABILITIES[d.id as keyof typeof STANDARD_CAPABILITIES].kind,
        STANDARD_CAPABILITIES[d.id as keyof typeof STANDARD_CAPABILITIES].replay,
        STANDARD_CAPABILITIES[d.id as keyof typeof STANDARD_CAPABILITIES].policy,
      ]);
  });

  it('a missing standard capability fails registration with MEDIA_STANDARD_CAPABILITIES_MISSING and registers nothing', async () => {
    const { host, world } = await makeSandboxHost();
    const { host: empty } = await makeSandboxHostWithout();
    const implementations = { ...sandboxCapabilities(world, { plans: host.plans }) } as Record<string, unknown>;
    delete implementations['task.cancel'];
    let error: unknown;
    try {
      registerStandardCapabilities(empty.capabilities, implementations as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StandardCapabilitiesMissingError);
    expect(isMediaAgentError(error, 'MEDIA_STANDARD_CAPABILITIES_MISSING')).toBe(true);
    expect((error as StandardCapabilitiesMissingError).missing).toEqual(['task.cancel']);
    expect(empty.capabilities.list()).toEqual([]);
  });

  it('a capability that differs from its contract fails registration with MEDIA_STANDARD_CAPABILITY_MISMATCH', async () => {
    const { host, world } = await makeSandboxHost();
    const { host: empty } = await makeSandboxHostWithout();
    const wrong = defineCapability({
      id: 'download.submit',
      version: 1,
      title: 'x',
      description: 'x',
      kind: 'execute',
      replay: 'reconcile',
      policy: 'acquisition',
      input: Type.Object({ planId: Type.String() }),
      output: Type.Object({}),
      handler: async () => ({}),
    });
    expect(() =>
      registerStandardCapabilities(empty.capabilities, {
        ...sandboxCapabilities(world, { plans: host.plans }),
        'download.submit': wrong,
      } as never),
    ).toThrow(StandardCapabilityMismatchError);
    expect(() => defineStandardCapability('download.nope' as never, async () => ({}) as never)).toThrow(
      StandardCapabilityMismatchError,
    );
    expect(empty.capabilities.list()).toEqual([]);
  });

  it('defineStandardCapability takes only a handler: id, kind, schemas, aliases and target come from the contract', async () => {
    const c = defineStandardCapability(
      'inventory.query',
      async (input) => {
        const q: string | undefined = input.query; // typed from the contract
        const out: StandardOutput<'inventory.query'> = { total: 0, items: [] };
        return q === 'x' ? out : out;
      },
      { aliases: ['片单'] },
    );
    expect([c.id, c.kind, c.replay, c.input]).toEqual([
      'inventory.query',
      'read',
      'safe',
      STANDARD_CAPABILITIES['inventory.query'].input,
    ]);
    expect(c.aliases).toContain('库存');
    expect(c.aliases).toContain('片单');
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('schemas reject bad input before any handler runs', async () => {
    const { host, world } = await makeSandboxHost();
    const agent = { actor: 'agent:run-1', runId: 'run-1' } as const;
    const bad: Array<[string, unknown, string]> = [
      ['catalog.lookup', { query: '' }, '/query'],
      ['catalog.lookup', { query: 'dune', extra: 1 }, ''],
      ['release.search', { mediaSource: 'netflix', mediaId: '1' }, '/mediaSource'],
      ['release.search', { mediaSource: 'tmdb', mediaId: 'a b' }, '/mediaId'],
      ['download.plan', { mediaSource: 'tmdb', mediaId: '693134', releaseId: 'rel-693134-2' }, ''],
      ['download.submit', {}, ''],
      ['task.inspect', { limit: 0 }, '/limit'],
      ['policy.apply', { kind: 'acquisition', settings: { minResolution: '8k' } }, '/settings/minResolution'],
    ];
    for (const [id, input, path] of bad) {
      const error = await host.invoke(id, input, agent).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isMediaAgentError(error, 'INPUT_INVALID'), `${id} ${JSON.stringify(input)}`).toBe(true);
      expect((error as { issues: Array<{ path: string }> }).issues.some((i) => i.path.startsWith(path))).toBe(true);
    }
    expect(world.plans()).toEqual([]);
    expect((await host.audit({ limit: 100 })).filter((r) => r.action !== 'capability.refused')).toEqual([]); // refusals are audited; nothing ran
  });

  it('search finds the organize capabilities by 整理 and downloads by 下载', async () => {
    const { host } = await makeSandboxHost();
    expect(
      host.capabilities
        .search('整理', 2)
        .map((h) => h.capability.id)
        .sort(),
    ).toEqual(['organize.execute', 'organize.plan']);
    expect(
      host.capabilities
        .search('入库')
        .slice(0, 2)
        .map((h) => h.capability.id)
        .sort(),
    ).toEqual(['organize.execute', 'organize.plan']);
    expect(host.capabilities.search('下载').map((h) => h.capability.id)).toEqual(
      expect.arrayContaining(['download.plan', 'download.submit']),
    );
    expect(host.capabilities.search('库存')[0]!.capability.id).toBe('inventory.query');
    expect(host.capabilities.search('搜索资源')[0]!.capability.id).toBe('release.search');
  });
});

async function makeSandboxHostWithout() {
  const host = createAgentHost({
    storage: new MemoryStorage(),
    clock: new ManualClock(),
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
  });
  await host.start();
  return { host };
}
