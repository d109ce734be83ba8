import { afterEach, describe, expect, it } from 'vitest';
import { kindOfV3Operation, mpCapabilityId, V3_OPERATIONS } from '@media-agent/host-adapter-v3';
import { runCleanups, v3Setup } from './helpers';
import { planFirstRelease, submitFirstRelease } from '../../host-adapter-kit/test/adapter-fixtures';

afterEach(runCleanups);
const viewerIsUser = {
  principalRole: (p: string) => (p === 'apikey:viewer' || p === 'user:viewer' ? ('user' as const) : undefined),
};

describe('V3 adapter rules', () => {
  it('a non-superuser actor is denied transfer.file with no request reaching the host', async () => {
    const { host, sim } = await v3Setup({ host: viewerIsUser });
    await host.grants.create({ action: '*', actor: 'user:admin' });
    const before = sim.requests.length;
    const direct = await host.invoke(
      'mp.transfer.file',
      { body: { fileitem: { storage: 'local', type: 'dir', path: '/downloads/x' } } },
      { actor: 'apikey:viewer' },
    );
    expect(direct).toMatchObject({ status: 'denied', error: { code: 'AUTH_HOST_SUPERUSER_REQUIRED' } });
    expect(direct.error!.message).toMatch(/superusers only/);
    const standard = await host.invoke('organize.plan', { downloadId: 'abc' }, { actor: 'user:viewer' });
    expect(standard.status).toBe('denied');
    expect(sim.requests.length).toBe(before);
    expect(sim.requestsFor('transfer.file')).toHaveLength(0);
  });

  it('effect → kind and replay: safe_read → read/safe; writes → execute, reconcile when recovery is idempotent, never (with a verifier) otherwise', async () => {
    const { host } = await v3Setup();
    for (const op of V3_OPERATIONS) {
      const d = host.capabilities.get(mpCapabilityId(op.operation_id));
      const expected =
        op.effect === 'safe_read'
          ? { kind: 'read', replay: 'safe' }
          : { kind: 'execute', replay: op.recovery === 'idempotent' ? 'reconcile' : 'never' };
      expect({ kind: d.kind, replay: d.replay }, op.operation_id).toEqual(expected);
      expect(kindOfV3Operation(op)).toEqual(expected);
    }
  });

  it('catalog operations are found through capabilities.search and tool discovery, not offered to the model all at once', async () => {
    const { host } = await v3Setup();
    const listed = host.capabilities.list().map((d) => d.id);
    expect(listed.filter((id) => id.startsWith('mp.')).sort()).toEqual(['mp.operation.plan', 'mp.operations.search']);
    expect(host.capabilities.search('transfer history', 20).map((h) => h.capability.id)).toContain(
      'mp.transfer.history',
    );
    const r = await host.invoke('mp.operations.search', { query: 'subscription add' }, { actor: 'user:admin' });
    expect(
      (r.output as { operations: Array<{ capabilityId: string }> }).operations.map((o) => o.capabilityId),
    ).toContain('mp.subscription.add');
    expect(host.capabilities.list().map((d) => d.id)).toContain('mp.subscription.add');
  });

  it('destructive_write always needs an approval for non-human actors: a grant is not enough; an approved plan is', async () => {
    const { host, sim } = await v3Setup();
    await host.grants.create({ action: 'mp.*', actor: 'user:admin' });
    const args = { path_params: { subscribe_id: 7 } };
    expect((await host.invoke('mp.subscription.delete', args, { actor: 'apikey:bot' })).status).toBe('denied');
    expect(sim.requestsFor('subscription.delete')).toHaveLength(0);
    const planned = await host.invoke(
      'mp.operation.plan',
      { operation_id: 'subscription.delete', ...args },
      { actor: 'apikey:bot' },
    );
    const plan = (planned.output as { plan: { id: string; payloadHash: string } }).plan;
    const approval = await host.approvals.request({ planType: 'mp.operation', planId: plan.id, actor: 'apikey:bot' });
    await host.approvals.decide(approval.id, {
      status: 'approved',
      actor: 'user:admin',
      payloadHash: plan.payloadHash,
    });
    const r = await host.invoke(
      'mp.subscription.delete',
      { ...args, planId: plan.id },
      { actor: 'apikey:bot', approvalId: approval.id },
    );
    expect(r.status).toBe('succeeded');
    expect(sim.requestsFor('subscription.delete')).toHaveLength(1);
    sim.assertNoViolations();
  });

  it('confirmation: required needs an approval for agent actors; an API key with a grant may call it', async () => {
    const { host, sim } = await v3Setup();
    await host.grants.create({ action: 'mp.*', actor: 'user:admin' });
    const body = { name: 'Dune', year: '2021', type: '电影', media_source: 'themoviedb', media_id: '438631' };
    const agent = await host.invoke('mp.subscription.add', { body }, { actor: 'agent:run-x' });
    expect(agent).toMatchObject({ status: 'denied' });
    expect(agent.error!.message).toMatch(/approval/);
    const key = await host.invoke('mp.subscription.add', { body }, { actor: 'apikey:bot' });
    expect(key.status).toBe('succeeded');
    expect(sim.requestsFor('subscription.add')).toHaveLength(1);
  });

  it('download.add requires_confirmation becomes an approval request; after approval the retry carries allow_unrecognized=true', async () => {
    const { host, sim } = await v3Setup();
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    sim.faults.requireConfirmation = true;
    const planId = await planFirstRelease(host, 'user:admin');
    const first = await host.invoke('download.submit', { planId }, { actor: 'apikey:bot' });
    expect(first).toMatchObject({ status: 'failed', error: { code: 'HOST_REQUIRES_CONFIRMATION' } });
    const revised = await host.plans.get(planId);
    expect(revised.revision).toBe(2);
    expect(await host.invoke('download.submit', { planId }, { actor: 'apikey:bot', callId: 'second' })).toMatchObject({
      status: 'denied',
    });
    const approval = await host.approvals.request({ planType: 'download', planId, actor: 'apikey:bot' });
    await host.approvals.decide(approval.id, {
      status: 'approved',
      actor: 'user:admin',
      payloadHash: revised.payloadHash,
    });
    const third = await host.invoke(
      'download.submit',
      { planId },
      { actor: 'apikey:bot', approvalId: approval.id, callId: 'third' },
    );
    expect(third.status).toBe('pending');
    const adds = sim.requestsFor('download.add');
    expect(adds).toHaveLength(2);
    expect((adds[0]!.body as { allow_unrecognized?: boolean }).allow_unrecognized).toBeUndefined();
    expect((adds[1]!.body as { allow_unrecognized?: boolean }).allow_unrecognized).toBe(true);
    expect(sim.downloads()).toHaveLength(1);
  });

  it('transfer.file receipts: only completed is organized; accepted is pending; an accepted batch is never resubmitted', async () => {
    const { host, sim, clock } = await v3Setup();
    const { submitted } = await submitFirstRelease(host, 'user:admin');
    const hash = (submitted.output as { download: { id: string } }).download.id;
    clock.advance(60_000);
    sim.faults.transferState = 'accepted';
    const oplan = await host.invoke('organize.plan', { downloadId: hash }, { actor: 'user:admin' });
    const organizePlanId = (oplan.output as { plan: { id: string } }).plan.id;
    const first = await host.invoke(
      'organize.execute',
      { planId: organizePlanId },
      { actor: 'user:admin', taskId: 'a' },
    );
    expect(first.status).toBe('pending');
    expect(sim.inLibrary('themoviedb:693134')).toBe(false);
    const again = await host.invoke(
      'organize.execute',
      { planId: organizePlanId },
      { actor: 'user:admin', taskId: 'b' },
    );
    expect(again.status).toBe('pending');
    const runs = sim.requestsFor('transfer.file').filter((r) => (r.body as { preview?: boolean }).preview !== true);
    expect(runs).toHaveLength(1);
    sim.assertNoViolations();
  });

  it('a slow search is waited for (searches have their own long timeout), answered once and not retried', async () => {
    // Other operations time out after 300 ms here; the search answers after the slow-search fault's delay,
    // longer than that, so only the search timeout lets it through (no elapsed time is asserted).
    const { host, sim } = await v3Setup({
      sim: { faults: { slowSearchMs: 1_000 } },
      host: { timeouts: { defaultMs: 300 } },
    });
    const r = await host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '693134' }, { actor: 'user:admin' });
    expect(r.status).toBe('succeeded');
    expect((r.output as { releases: unknown[] }).releases).toHaveLength(2);
    const searches = sim.requestsFor('search.torrents');
    expect(searches).toHaveLength(1);
    expect(searches[0]!.status).toBe(200);
    sim.assertNoViolations();
  });
});
