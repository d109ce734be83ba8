import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '@media-agent/sdk';
import { runCleanups, v3Setup } from './helpers';

afterEach(runCleanups);

function capturingLogger() {
  const warnings: string[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message) => warnings.push(message),
    error: () => undefined,
  };
  return { logger, warnings };
}

describe('V3 checks TMDB reachability at start, as V2 does', () => {
  // jxxghp/MoviePilot#6712: a v3.0.3 host that could not connect to TheMovieDb answered searches with nothing
  // ("TheMovieDb运行失败"); lookups must name that cause instead of "found no title".
  it('a host that cannot reach TMDB: status.metadata unreachable with the host message, one warning, and an empty lookup is MEDIA_NOT_FOUND naming the cause', async () => {
    const { logger, warnings } = capturingLogger();
    const v3 = await v3Setup({ sim: { faults: { metadataUnreachable: true } }, host: { logger } });
    expect(v3.status).toEqual({ generation: 'v3', metadata: 'unreachable', metadataMessage: '网络连接失败！' });
    expect(warnings.filter((w) => w.includes('cannot reach TMDB'))).toHaveLength(1);
    const request = v3.sim.requestsFor('system.network.test')[0]!;
    expect(new URL(request.url, 'http://x').searchParams.get('url')).toContain('api.themoviedb.org');
    await v3.host.grants.create({ action: '*', actor: 'user:admin' });
    const lookup = await v3.host.invoke('catalog.lookup', { query: 'Dune: Part Two' }, { actor: 'user:admin' });
    expect(lookup.error).toMatchObject({ code: 'MEDIA_NOT_FOUND' });
    expect(lookup.error!.message).toContain('host metadata source unreachable');
    expect(lookup.error!.message).toContain('网络连接失败！');
    const exact = await v3.host.invoke('catalog.lookup', { query: 'tmdb:693134' }, { actor: 'user:admin' });
    expect(exact.error).toMatchObject({ code: 'MEDIA_NOT_FOUND' });
    expect(exact.error!.message).toContain('cannot reach TMDB');
    const search = await v3.host.invoke(
      'release.search',
      { mediaSource: 'tmdb', mediaId: '693134' },
      { actor: 'user:admin' },
    );
    expect(search.error).toMatchObject({ code: 'MEDIA_NOT_FOUND' });
    expect(search.error!.message).toContain('host metadata source unreachable');
    v3.sim.assertNoViolations();
  });

  it('a host that reaches TMDB: reachable, no warning, and an unknown title is an empty answer as before', async () => {
    const { logger, warnings } = capturingLogger();
    const v3 = await v3Setup({ host: { logger } });
    expect(v3.status.metadata).toBe('reachable');
    expect(warnings.filter((w) => w.includes('TMDB'))).toEqual([]);
    await v3.host.grants.create({ action: '*', actor: 'user:admin' });
    const lookup = await v3.host.invoke(
      'catalog.lookup',
      { query: 'Nonexistent Picture 1999' },
      { actor: 'user:admin' },
    );
    expect(lookup.status).toBe('succeeded');
    expect(lookup.output).toEqual({ items: [] });
  });

  it('a network test the host answers outside the envelope leaves the state unknown and start() succeeds (the check is advisory)', async () => {
    const v3 = await v3Setup({ sim: { faults: { rawAnswer: { 'system.network.test': { body: '[]' } } } } });
    expect(v3.status).toMatchObject({ generation: 'v3', metadata: 'unknown' });
  });
});
