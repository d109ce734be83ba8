import type { AgentHost, InvocationResult } from '@media-agent/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { HOST_SUPERUSER_REQUIRED } from '../src/index';
import { cleanup, v2Setup } from './helpers';

afterEach(cleanup);

const admin = { actor: 'user:admin', taskId: 'task-1' } as const;
const ok = (r: InvocationResult) => {
  expect(r.status, JSON.stringify(r.error)).toMatch(/succeeded|pending/);
  return r.output as any;
};

async function planDune(host: AgentHost) {
  const lookup = ok(await host.invoke('catalog.lookup', { query: 'Dune: Part Two', limit: 1 }, admin));
  const item = lookup.items[0];
  const search = ok(
    await host.invoke('release.search', { mediaSource: item.mediaSource, mediaId: item.mediaId }, admin),
  );
  const plan = ok(
    await host.invoke(
      'download.plan',
      {
        mediaSource: item.mediaSource,
        mediaId: item.mediaId,
        kind: item.kind,
        releaseId: search.releases[0].releaseId,
      },
      admin,
    ),
  );
  return plan.plan.id as string;
}

describe('V2 rules through the invocation path', () => {
  it('accept-then-drop on download.submit: the outcome is unknown, the verifier settles it from the downloader task list, and the host has one download, not a second add', async () => {
    const { sim, host } = await v2Setup();
    const planId = await planDune(host);
    sim.dropAfterAccept('POST', '/api/v1/download/');
    const first = await host.invoke('download.submit', { planId }, admin);
    expect(first.status).toBe('unknown');
    const again = await host.invoke('download.submit', { planId }, admin);
    expect(again.status).toBe('succeeded');
    expect(again.replayed).toBe(true);
    expect((again.output as { download: { planId: string } }).download.planId).toBe(planId);
    expect(sim.requestCount('POST /api/v1/download/')).toBe(1);
    expect(sim.downloads()).toHaveLength(1);
    sim.assertNoViolations();
  });

  it('a non-superuser actor is denied the transfer capability (organize.execute) before any request reaches the host', async () => {
    const { sim, host } = await v2Setup();
    const before = sim.requests.length;
    const r = await host.invoke('organize.execute', { planId: 'plan-x' }, { actor: 'user:guest' });
    expect(r.status).toBe('denied');
    expect(r.error?.code).toBe(HOST_SUPERUSER_REQUIRED);
    expect(sim.requests.length).toBe(before);
    expect(sim.requestCount('POST /api/v1/transfer/manual')).toBe(0);
  });

  it('a run started by a non-superuser is denied the transfer capability too (its agent acts for the starter)', async () => {
    const { sim, host } = await v2Setup();
    const run = await host.startRun({ goal: 'nothing to match', actor: 'user:guest', mode: 'plan_only' });
    const r = await host.invoke('organize.execute', { planId: 'plan-x' }, { actor: `agent:${run.id}`, runId: run.id });
    expect(r.status).toBe('denied');
    expect(sim.requestCount('POST /api/v1/transfer/manual')).toBe(0);
  });

  it('an explicit organize by a superuser (auto transfer off) puts the completed download into the library through POST /transfer/manual', async () => {
    const { clock, sim, host } = await v2Setup({ sim: { autoTransfer: false } });
    const planId = await planDune(host);
    const submitted = ok(await host.invoke('download.submit', { planId }, admin));
    clock.advance(10_000);
    const org = ok(await host.invoke('organize.plan', { downloadId: submitted.download.id }, admin));
    const executed = ok(await host.invoke('organize.execute', { planId: org.plan.id }, admin));
    expect(executed.organize).toMatchObject({
      status: 'succeeded',
      downloadId: submitted.download.id,
      planId: org.plan.id,
    });
    expect(sim.inLibrary(693134)).toBe(true);
    expect(sim.requestCount('POST /api/v1/transfer/manual')).toBe(1);
    sim.assertNoViolations();
  });

  it('an organize whose answer is lost is settled by the transfer history, not sent twice', async () => {
    const { clock, sim, host } = await v2Setup({ sim: { autoTransfer: false } });
    const planId = await planDune(host);
    const submitted = ok(await host.invoke('download.submit', { planId }, admin));
    clock.advance(10_000);
    const org = ok(await host.invoke('organize.plan', { downloadId: submitted.download.id }, admin));
    sim.dropAfterAccept('POST', '/api/v1/transfer/manual');
    expect((await host.invoke('organize.execute', { planId: org.plan.id }, admin)).status).toBe('unknown');
    const again = await host.invoke('organize.execute', { planId: org.plan.id }, admin);
    expect(again.status).toBe('succeeded');
    expect(sim.transfers()).toHaveLength(1);
    expect(sim.requestCount('POST /api/v1/transfer/manual')).toBe(1);
  });

  it('an unknown subscription add is settled by looking the subscription up', async () => {
    const { sim, host } = await v2Setup();
    sim.dropAfterAccept('POST', '/api/v1/subscribe/');
    const input = { mediaSource: 'tmdb', mediaId: '126308', kind: 'tv', name: 'Shōgun' };
    expect((await host.invoke('moviepilot.subscription.add', input, admin)).status).toBe('unknown');
    const again = await host.invoke('moviepilot.subscription.add', input, admin);
    expect(again.status).toBe('succeeded');
    expect(sim.subscriptions()).toHaveLength(1);
    expect(sim.requestCount('POST /api/v1/subscribe/')).toBe(1);
  });

  it('GoalFacts say imported only when the host library says so: a completed but not organized download is "completed"', async () => {
    const { clock, host, adapter } = await v2Setup({ sim: { autoTransfer: false } });
    const run = { actor: 'user:admin', runId: 'run-facts' } as const;
    const lookup = ok(await host.invoke('catalog.lookup', { query: 'Dune: Part Two', limit: 1 }, run));
    const item = lookup.items[0];
    const search = ok(
      await host.invoke('release.search', { mediaSource: item.mediaSource, mediaId: item.mediaId }, run),
    );
    const plan = ok(
      await host.invoke(
        'download.plan',
        {
          mediaSource: item.mediaSource,
          mediaId: item.mediaId,
          kind: 'movie',
          releaseId: search.releases[0].releaseId,
        },
        run,
      ),
    );
    ok(await host.invoke('download.submit', { planId: plan.plan.id }, run));
    clock.advance(60_000);
    const facts = await adapter.goalFacts.forRun('run-facts');
    expect(facts.downloads).toEqual([expect.objectContaining({ status: 'completed' })]);
    expect(facts.library).toEqual([expect.objectContaining({ mediaEntityId: 'tmdb:693134', present: false })]);
  });

  it('a slow search is waited for (the search operation has its own long timeout)', async () => {
    const { sim, host } = await v2Setup();
    sim.searchDelayMs = 300;
    const r = ok(await host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '693134' }, admin));
    expect(r.releases).toHaveLength(3);
  });
});
