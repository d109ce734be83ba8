import { afterEach, describe, expect, it } from 'vitest';
import { runCleanups, v3Setup } from './helpers';

afterEach(runCleanups);
/** One task, so the repeated call has the same idempotency key as the first. */
const admin = (taskId: string) => ({ actor: 'user:admin' as const, taskId });

describe('V3 verifiers', () => {
  it('an unknown organize (transfer.file accepted, then the connection dropped) is settled by the transfer history: one transfer on the host, not a second', async () => {
    const { host, sim } = await v3Setup();
    const args = {
      body: {
        fileitem: { storage: 'local', type: 'dir', path: '/downloads/Dune.Part.Two.2024.2160p.WEB-DL.H265.HDR-MP' },
        media_source: 'themoviedb',
        media_id: '693134',
        transfer_type: 'link',
      },
    };
    sim.faults.dropAfterAccept.push('transfer.file');
    const first = await host.invoke('mp.transfer.file', args, admin('organize-1'));
    expect(first.status).toBe('unknown');
    expect(sim.transfers()).toHaveLength(1);
    const again = await host.invoke('mp.transfer.file', args, admin('organize-1'));
    expect(again.status).toBe('succeeded');
    expect(again.output).toMatchObject({
      success: true,
      data: { items: [{ source: args.body.fileitem.path, state: 'completed', history_id: sim.transfers()[0]!.id }] },
    });
    expect(sim.requestsFor('transfer.file')).toHaveLength(1);
    expect(sim.requestsFor('transfer.history').length).toBeGreaterThan(0);
    expect(sim.transfers()).toHaveLength(1);
    expect(sim.inLibrary('themoviedb:693134')).toBe(true);
    sim.assertNoViolations();
  });

  it('an unknown subscription add (accepted, then the connection dropped) is settled by looking the subscription up: one subscription, not a second add', async () => {
    const { host, sim } = await v3Setup();
    const input = { mediaSource: 'tmdb', mediaId: '95396', kind: 'tv', name: 'Severance', year: 2022, season: 1 };
    sim.faults.dropAfterAccept.push('subscription.add');
    const first = await host.invoke('moviepilot.subscription.add', input, admin('subscribe-1'));
    expect(first.status).toBe('unknown');
    const again = await host.invoke('moviepilot.subscription.add', input, admin('subscribe-1'));
    expect(again.status).toBe('succeeded');
    const subs = sim.subscriptions();
    expect(subs).toHaveLength(1);
    expect(subs[0]).toMatchObject({
      media_source: 'themoviedb',
      media_id: '95396',
      name: 'Severance',
      type: '电视剧',
      season: 1,
    });
    expect(again.output).toEqual({ subscriptionId: subs[0]!.id });
    expect(sim.requestsFor('subscription.add')).toHaveLength(1);
    expect(sim.requestsFor('subscription.find')).toHaveLength(1);
    sim.assertNoViolations();
  });

  it('moviepilot.subscription.add is authorized like subscription.add: superusers only, and an agent needs an approval (a grant is not enough)', async () => {
    const { host, sim } = await v3Setup({
      host: { principalRole: (p: string) => (p === 'user:viewer' ? 'user' : undefined) },
    });
    await host.grants.create({ action: 'moviepilot.subscription.add', actor: 'user:admin' });
    const input = { mediaSource: 'tmdb', mediaId: '438631', kind: 'movie', name: 'Dune', year: 2021 };
    expect((await host.invoke('moviepilot.subscription.add', input, { actor: 'user:viewer' })).status).toBe('denied');
    const run = await host.startRun({ goal: 'Subscribe to Dune', actor: 'user:admin' });
    const agent = await host.invoke('moviepilot.subscription.add', input, { actor: `agent:${run.id}`, runId: run.id });
    expect(agent.status).toBe('denied');
    expect(agent.error!.message).toMatch(/approval/);
    expect(sim.requestsFor('subscription.add')).toHaveLength(0);
  });
});
