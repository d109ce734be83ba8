// Trial (one intent, one job): joins across people, runs and processes on a real SQLite file; public API only.
import { afterEach, describe, expect, it } from 'vitest';
import { addToLibraryScript, waitForRunStatus } from '../../src/testing';
import { makeHost, type UHost } from './untrusted-trial-helpers';

const hosts: UHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0).reverse()) await h.cleanup();
});
const dune = (releaseId: string) => ({ mediaSource: 'tmdb', mediaId: '693134', kind: 'movie', releaseId });

async function direct(extra: Parameters<typeof makeHost>[0] = {}) {
  const h = await makeHost({ workers: false, world: { autoImport: false }, ...extra });
  hosts.push(h);
  return h;
}

describe('trial: one intent, one job', () => {
  it('bob joins alice; after the direct hold expires (15 min) bob gets it', async () => {
    const h = await direct();
    expect((await h.host.invoke('download.plan', dune('rel-693134-1'), { actor: 'user:alice' })).status).toBe(
      'succeeded',
    );
    h.clock.advance(14 * 60_000);
    const b = await h.host.invoke('download.plan', dune('rel-693134-3'), { actor: 'user:bob' });
    expect(b).toMatchObject({
      status: 'failed',
      error: { code: 'INTENT_IN_PROGRESS' },
      joined: { actor: 'user:alice', runId: null },
    });
    expect((await h.host.audit({ action: 'capability.joined' })).length).toBe(1);
    h.clock.advance(2 * 60_000);
    expect((await h.host.invoke('download.plan', dune('rel-693134-3'), { actor: 'user:bob' })).status).toBe(
      'succeeded',
    );
  });

  it('two people at the same moment: one holds, the other joins', async () => {
    const h = await direct();
    const [a, b] = await Promise.all([
      h.host.invoke('download.plan', dune('rel-693134-1'), { actor: 'user:alice' }),
      h.host.invoke('download.plan', dune('rel-693134-3'), { actor: 'user:bob' }),
    ]);
    expect([a.status, b.status].sort()).toEqual(['failed', 'succeeded']);
    expect(h.world.plans()).toHaveLength(1);
  });

  it("two hosts on one SQLite file: the second host's caller joins", async () => {
    const h1 = await direct();
    const h2 = await direct({ dir: h1.dir, clock: h1.clock });
    expect((await h1.host.invoke('download.plan', dune('rel-693134-1'), { actor: 'user:alice' })).status).toBe(
      'succeeded',
    );
    expect(await h2.host.invoke('download.plan', dune('rel-693134-3'), { actor: 'user:bob' })).toMatchObject({
      error: { code: 'INTENT_IN_PROGRESS' },
    });
  });

  it('a different title and the same actor again are not joined', async () => {
    const h = await direct();
    expect((await h.host.invoke('download.plan', dune('rel-693134-1'), { actor: 'user:alice' })).status).toBe(
      'succeeded',
    );
    expect((await h.host.invoke('download.plan', dune('rel-693134-3'), { actor: 'user:alice' })).status).toBe(
      'succeeded',
    );
    const other = await h.host.invoke(
      'download.plan',
      { mediaSource: 'tmdb', mediaId: '335984', kind: 'movie', releaseId: 'rel-335984-1' },
      { actor: 'user:bob' },
    );
    expect((other as { error?: { code?: string } }).error?.code).not.toBe('INTENT_IN_PROGRESS');
  });

  it('the same film named by its IMDb id: a second draft plan, but its submit joins alice (no second download)', async () => {
    // The intent of a plan is taken from the title the call names (imdb:tt15239678), before the host resolves it;
    // the plan the host makes records the resolved title (tmdb:693134), so executing it joins the holder
    // (docs/intents.md#what-joins).
    const h = await direct();
    expect((await h.host.invoke('download.plan', dune('rel-693134-1'), { actor: 'user:alice' })).status).toBe(
      'succeeded',
    );
    const b = await h.host.invoke(
      'download.plan',
      { mediaSource: 'imdb', mediaId: 'tt15239678', kind: 'movie', releaseId: 'rel-693134-3' },
      { actor: 'user:bob' },
    );
    expect(b.status).toBe('succeeded');
    const planId = (b as { output: { plan: { id: string; mediaEntityId: string } } }).output.plan.id;
    expect((b as { output: { plan: { mediaEntityId: string } } }).output.plan.mediaEntityId).toBe('tmdb:693134');
    const submit = await h.host.invoke('download.submit', { planId }, { actor: 'user:admin' });
    expect(submit).toMatchObject({
      status: 'failed',
      error: { code: 'INTENT_IN_PROGRESS' },
      joined: { actor: 'user:alice' },
    });
  });

  it('a run holding the title makes a person\'s direct invoke join ("by run X (for admin)"); aborting the run frees it', async () => {
    const h = await makeHost({ scripts: [addToLibraryScript('Dune: Part Two')], world: { autoImport: false } });
    hosts.push(h);
    const run = await h.host.startRun({ goal: 'Add Dune: Part Two to the library', actor: 'user:admin' });
    await waitForRunStatus(h.host, run.id, ['waiting', 'failed', 'succeeded'], { clock: h.clock, tickMs: 1000 });
    const b = await h.host.invoke('download.plan', dune('rel-693134-3'), { actor: 'user:bob' });
    expect(b).toMatchObject({
      status: 'failed',
      error: { code: 'INTENT_IN_PROGRESS' },
      joined: { runId: run.id, actor: 'user:admin' },
    });
    expect((b as { error: { message: string } }).error.message).toContain(
      `already in progress by run ${run.id} (for admin)`,
    );
    await h.host.abort(run.id, 'changed my mind');
    const after = await h.host.invoke('download.plan', dune('rel-693134-3'), { actor: 'user:bob' });
    // The intent is free: what remains is the world's own refusal (the cancelled run's download dl-1 is still there).
    expect((after as { error?: { code?: string } }).error?.code).not.toBe('INTENT_IN_PROGRESS');
  });

  it('a dry run while another holds says it would join, and takes nothing', async () => {
    const h = await direct();
    await h.host.invoke('download.plan', dune('rel-693134-1'), { actor: 'user:alice' });
    const d = await h.host.invoke('download.plan', dune('rel-693134-3'), { actor: 'user:carol', dryRun: true });
    expect(d).toMatchObject({
      status: 'dry_run',
      verdict: { allowed: false, code: 'INTENT_IN_PROGRESS', joined: { actor: 'user:alice' } },
    });
  });
});
