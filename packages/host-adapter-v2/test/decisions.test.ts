import { afterEach, describe, expect, it } from 'vitest';
import { SIM_RELEASES } from '@media-agent/host-adapter-v2/testing';
import { raiseV2Decisions, v2DecisionInputs } from '../src/index';
import { cleanup, v2Setup } from './helpers';
import { submitFirstRelease } from '../../host-adapter-kit/test/adapter-fixtures';

afterEach(cleanup);

const ADMIN = 'user:admin';

describe('decisions from the MoviePilot 2.x host state', () => {
  it('a stalled download raises one download_stalled decision; a person chooses the recheck, which resumes it through the invocation path', async () => {
    const { host, sim, adapter, clock } = await v2Setup();
    const { submitted } = await submitFirstRelease(host, ADMIN, { limit: 1 });
    expect(submitted.status).not.toBe('denied');
    clock.advance(1000);
    const [download] = sim.downloads();
    expect(await v2DecisionInputs(adapter.client)).toEqual([]);
    sim.stallDownload(download!.hash);

    const [raised, ...rest] = await raiseV2Decisions(host, adapter.client);
    expect(rest).toEqual([]);
    expect(raised).toMatchObject({
      kind: 'download_stalled',
      subjectType: 'download',
      subjectId: download!.hash,
      rootCause: `download_stalled:${download!.hash}`,
      raisedBy: 'system:moviepilot-v2',
      status: 'open',
    });
    // The host's event source firing again: the same decision, nothing new.
    expect((await raiseV2Decisions(host, adapter.client)).map((d) => d.id)).toEqual([raised!.id]);
    // A decision about a download the host does not have is refused.
    await expect(
      host.raiseDecision({
        kind: 'download_failed',
        subject: { type: 'download', id: 'no-such-hash' },
        reason: 'x',
        raisedBy: 'system:watch',
      }),
    ).rejects.toMatchObject({ code: 'DECISION_SUBJECT_NOT_FOUND' });

    const chosen = await host.chooseDecisionOption(raised!.id, 'recheck', ADMIN);
    expect(chosen.decision).toMatchObject({ status: 'resolved', resolvedBy: ADMIN });
    expect(chosen.execution).toMatchObject({ capabilityId: 'download.recheck', status: 'succeeded' });
    expect(sim.downloads()[0]!.phase).not.toBe('paused');
    expect(sim.requestCount('GET /api/v1/download/start/{hashString}')).toBe(1);
    sim.assertNoViolations();
  });
});

describe('identity decisions from the MoviePilot 2.x recognition', () => {
  it('a download the host recognizes as another title than the downloader says raises identity_ambiguous with an organize option per title', async () => {
    // Two releases of one name: recognition by name binds it to the first (Dune, 2021), the downloader to Part Two.
    const decoy = { ...SIM_RELEASES[0]!, tmdbId: 438631, enclosure: 'magnet:?xt=urn:btih:decoy' };
    const { host, adapter } = await v2Setup({ sim: { releases: [decoy, ...SIM_RELEASES] } });
    await submitFirstRelease(host, ADMIN, { limit: 1 });
    const inputs = await v2DecisionInputs(adapter.client);
    expect(inputs).toEqual([
      expect.objectContaining({
        kind: 'identity_ambiguous',
        evidence: expect.objectContaining({
          candidates: [
            expect.objectContaining({ mediaEntityId: 'tmdb:693134', by: 'downloader' }),
            expect.objectContaining({ mediaEntityId: 'tmdb:438631', by: 'recognition' }),
          ],
        }),
      }),
    ]);
    expect(inputs[0]!.options!.map((o) => o.id)).toEqual(['organize-as-tmdb-693134', 'organize-as-tmdb-438631']);
    expect(await v2DecisionInputs(adapter.client, undefined, { recognize: false })).toEqual([]);
    const [raised] = await raiseV2Decisions(host, adapter.client);
    expect(raised).toMatchObject({
      kind: 'identity_ambiguous',
      subjectType: 'download',
      raisedBy: 'system:moviepilot-v2',
    });
  });
});
