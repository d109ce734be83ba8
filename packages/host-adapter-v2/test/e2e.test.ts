import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedProvider, approveRequested, requestedApproval } from '@media-agent/sdk/testing';
import { cleanup, v2Setup, waitForStatus } from './helpers';

afterEach(cleanup);

describe('V2 end to end (scripted model, real runtime, simulator over HTTP)', () => {
  it('adds a film: search, identify, releases, plan, approval, submit, download completes, organize, library has it; the run ends with a verified report', async () => {
    const { clock, sim, host } = await v2Setup();
    await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'Add Dune: Part Two to the library', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['waiting', 'failed', 'succeeded']);
    await approveRequested(host, await requestedApproval(host, run.id));
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed', 'cancelled', 'budget_exceeded'], {
      clock,
      tickMs: 1000,
    });
    const detail = await host.getRun(run.id, { limit: 1000 });
    expect(done.status).toBe('succeeded');
    expect(detail.report).toMatchObject({ status: 'succeeded', verified: true });
    expect(detail.report!.facts.downloads).toEqual([
      expect.objectContaining({ mediaEntityId: 'tmdb:693134', status: 'imported' }),
    ]);
    expect(detail.report!.facts.organizes).toEqual([expect.objectContaining({ status: 'succeeded' })]);
    expect(detail.report!.facts.library).toEqual([
      expect.objectContaining({ mediaEntityId: 'tmdb:693134', present: true }),
    ]);
    expect(sim.downloads()).toHaveLength(1);
    expect(sim.inLibrary(693134)).toBe(true);
    for (const path of [
      'GET /api/v1/media/search',
      'GET /api/v1/search/media/{mediaid}',
      'POST /api/v1/download/',
      'GET /api/v1/history/transfer',
      'GET /api/v1/mediaserver/exists',
    ])
      expect(sim.requestCount(path), path).toBeGreaterThan(0);
    sim.assertNoViolations();
  });
});

describe('V2 completion standards (scripted model, real runtime, simulator over HTTP)', () => {
  const subscribe = {
    match: 'Subscribe',
    steps: [
      {
        toolCalls: [
          {
            capability: 'moviepilot.subscription.add',
            input: { mediaSource: 'tmdb', mediaId: '693134', kind: 'movie', name: 'Dune: Part Two' },
          },
        ],
      },
    ],
    finalText: 'Subscribed to Dune: Part Two.',
  };

  it('a subscription created and read back from MoviePilot ends succeeded at once: it waits for no future release', async () => {
    const { host, sim } = await v2Setup({
      host: { model: { provider: new ScriptedProvider({ scripts: subscribe }) } },
    });
    await host.grants.create({ action: 'moviepilot.subscription.add', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'Subscribe to Dune: Part Two', actor: 'user:admin' });
    expect((await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting'])).status).toBe('succeeded');
    const report = (await host.getRun(run.id)).report!;
    expect(report).toMatchObject({
      request: ['subscription'],
      effects: [{ capabilityId: 'moviepilot.subscription.add', outcome: 'succeeded', readBack: { confirmed: true } }],
    });
    expect(sim.requestCount('GET /api/v1/subscribe/media/{mediaid}')).toBeGreaterThan(0);
    expect(sim.downloads()).toHaveLength(0);
  });

  it('a plain question about the library ends succeeded as an answer, with no effect made', async () => {
    const { host, sim } = await v2Setup({
      host: {
        model: {
          provider: new ScriptedProvider({
            scripts: {
              match: 'library',
              steps: [{ toolCalls: [{ capability: 'inventory.query', input: {} }] }],
              finalText: 'Your library is empty.',
            },
          }),
        },
      },
    });
    const run = await host.startRun({ goal: 'What is in my library?', actor: 'user:admin' });
    expect((await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting'])).status).toBe('succeeded');
    expect((await host.getRun(run.id)).report).toMatchObject({ request: ['answer'], effects: [] });
    sim.assertNoViolations();
  });
});
