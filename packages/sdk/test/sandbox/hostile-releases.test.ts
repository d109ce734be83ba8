// The sandbox world's hostile releases (option `injection`) and its record of handler calls.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHost } from '../../src/index';
import { injectionCorpus } from '../../src/testing/sandbox/injection-corpus';
import { makeSandboxHost } from './helpers';

const person = { actor: 'user:admin' as const };
let host: AgentHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

describe('sandbox hostile releases', () => {
  it('lists them after the ordinary releases, shows NFO text through release.inspect, and records handler calls', async () => {
    const items = injectionCorpus({ size: 24 });
    const nfo = items.findIndex((i) => i.carrier === 'nfo');
    const made = await makeSandboxHost({ injection: { items: items.slice(0, nfo + 1), mediaIds: ['693134'] } });
    host = made.host;
    const search = await host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '693134', limit: 50 }, person);
    const releases = (search.output as { releases: Array<{ releaseId: string; name: string }> }).releases;
    expect(releases.slice(0, 5).every((r) => !r.releaseId.includes('-h'))).toBe(true);
    expect(releases.find((r) => r.releaseId === 'rel-693134-h1')?.name).toBe(items[0]!.text);
    const inspected = await host.invoke('release.inspect', { releaseId: `rel-693134-h${nfo + 1}` }, person);
    expect((inspected.output as { nfo?: string }).nfo).toBe(items[nfo]!.text);
    expect(made.world.handlerCalls().map((c) => [c.capability, c.input])).toEqual([
      ['release.search', { mediaSource: 'tmdb', mediaId: '693134', limit: 50 }],
      ['release.inspect', { releaseId: `rel-693134-h${nfo + 1}` }],
    ]);
    // Other titles and a world without the option have none.
    expect(
      made.world
        .releases()
        .filter((r) => r.releaseId.includes('-h'))
        .every((r) => r.mediaId === '693134'),
    ).toBe(true);
  });

  it('is off by default', async () => {
    const made = await makeSandboxHost();
    host = made.host;
    expect(made.world.releases().some((r) => /-h\d+$/.test(r.releaseId) || r.nfo !== undefined)).toBe(false);
  });
});
