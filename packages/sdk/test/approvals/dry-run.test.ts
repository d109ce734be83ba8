// Dry runs that can never write: host.invoke(id, input, { dryRun: true }) answers the verdict and the impact and
// never runs the handler, claims the ledger, consumes an approval or charges a grant; the ledger refuses a dry-run
// claim whoever asks. Real SQLite file.
//
// Public reports reproduced here:
// - Appsilon/mediforce#1218 "Dry Run is not a sandbox: action steps fire real side effects" (handlers never read a
//   dry-run flag). Here the flag never reaches a handler: the dry run stops before the claim, and the ledger itself
//   refuses a claim marked dry run (LEDGER_DRY_RUN).
// - nesszer/linear-cli#48 "Global --dry-run is silently ignored by most mutating commands" (answered success with a
//   real id). Here a dry run answers status `dry_run`, never `succeeded`, and no ledger entry, audit `capability.invoke`
//   row or approval consumption exists afterwards.
import { afterEach, describe, expect, it } from 'vitest';
import { deriveIdempotencyKey } from '../../src/ledger/idempotency-key';
import type { AgentHost } from '../../src/index';
import { ADMIN, BOB, shelfHost } from './fixtures';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
});

async function planned(quality = '2160p') {
  const made = await shelfHost();
  hosts.push(made.host);
  const plan = await made.host.invoke('shelf.plan', { title: 'Dune', quality }, { actor: ADMIN });
  if (plan.status !== 'succeeded') throw new Error('no plan');
  return { ...made, planId: (plan.output as { planId: string }).planId };
}

describe('dry runs', () => {
  it('an execute without authorization: the impact in real units and a denied verdict that an approval would lift; nothing ran or was written', async () => {
    const { host, shelf, storage, planId } = await planned();
    const preview = await host.invoke('shelf.apply', { planId }, { actor: BOB, dryRun: true, taskId: 't1' });
    expect(preview).toMatchObject({
      status: 'dry_run',
      verdict: { allowed: false, code: 'AUTH_NO_AUTHORIZATION', approvalRequired: true },
      impact: {
        status: 'known',
        impact: { writeBytes: 58.2e9, path: '/media/movies', freeBytesBefore: 470.2e9, freeBytesAfter: 412e9 },
        summary: 'writes 58.2 GB to /media/movies; creates 2 files; by copy; 412 GB free after; 2 steps; can be undone',
      },
    });
    expect(shelf.calls).toEqual([]);
    const key = deriveIdempotencyKey({ capabilityId: 'shelf.apply', version: 1, scopeId: 't1', input: { planId } }).key;
    expect(await storage.ledger.get(key)).toBeUndefined();
    const audit = (await storage.audit.list({ limit: 1000 })).filter((a) => a.capabilityId === 'shelf.apply');
    expect(audit.map((a) => [a.action, a.outcome])).toEqual([['capability.dry_run', 'denied']]);
  });

  it('with an approval: allowed on the approval, which stays approved (not consumed) for the real call', async () => {
    const { host, shelf, planId } = await planned('1080p');
    const plan = await host.plans.get(planId);
    const asked = await host.approvals.request({ planType: 'shelf', planId, actor: BOB, capabilityId: 'shelf.apply' });
    await host.approvals.decide(asked.id, { status: 'approved', actor: ADMIN, payloadHash: plan.payloadHash });
    const preview = await host.invoke('shelf.apply', { planId }, { actor: BOB, approvalId: asked.id, dryRun: true });
    expect(preview.verdict).toEqual({ allowed: true, basis: 'approval' });
    expect((await host.approvals.get(asked.id)).status).toBe('approved');
    expect(shelf.calls).toEqual([]);
    const real = await host.invoke('shelf.apply', { planId }, { actor: BOB, approvalId: asked.id });
    expect(real.status).toBe('succeeded');
    expect(await host.approvals.get(asked.id)).toMatchObject({
      status: 'consumed',
      executedPayloadHash: plan.payloadHash,
    });
    expect(shelf.calls).toHaveLength(1);
  });

  it('with a grant: allowed on the grant, whose daily counters are not charged', async () => {
    const { host, planId } = await planned('1080p');
    await host.grants.create({ action: 'shelf.apply', actor: ADMIN, budget: { maxInvocationsPerDay: 1 } });
    const preview = await host.invoke('shelf.apply', { planId }, { actor: 'apikey:ci', dryRun: true });
    expect(preview.verdict).toMatchObject({ allowed: true, basis: 'grant' });
    const again = await host.invoke('shelf.apply', { planId }, { actor: 'apikey:ci', dryRun: true });
    expect(again.verdict).toMatchObject({ allowed: true, basis: 'grant' });
    // The one call a day the grant allows is still there after two dry runs, and then it is used up.
    expect((await host.invoke('shelf.apply', { planId }, { actor: 'apikey:ci', taskId: 'a' })).status).toBe(
      'succeeded',
    );
    const second = await host.invoke('shelf.apply', { planId }, { actor: 'apikey:ci', taskId: 'b' });
    expect(second).toMatchObject({ status: 'denied', error: { code: 'AUTH_GRANT_BUDGET_EXHAUSTED' } });
  });

  it('bad input is refused as by a real call (INPUT_INVALID), before any impact runs', async () => {
    const { host, shelf } = await planned();
    await expect(host.invoke('shelf.apply', { plan: 1 }, { actor: BOB, dryRun: true })).rejects.toMatchObject({
      code: 'INPUT_INVALID',
    });
    expect(shelf.impacts).toBe(0);
  });

  it('a capability that declares no impact: the verdict, and the impact unknown (IMPACT_NOT_DECLARED)', async () => {
    const { host } = await planned();
    const preview = await host.capabilities.dryRun('shelf.plan', { title: 'X', quality: '1080p' }, { actor: ADMIN });
    expect(preview.verdict).toEqual({ allowed: true, basis: 'human' });
    expect(preview.impact).toMatchObject({ status: 'unknown', code: 'IMPACT_NOT_DECLARED' });
    expect(preview.impact.summary).toMatch(/^impact unknown/);
  });

  it('the ledger refuses a claim marked dry run, whoever asks (LEDGER_DRY_RUN), and writes nothing', async () => {
    const { host, storage } = await planned();
    const ledger = host.ledger;
    const request = {
      key: 'k1',
      argsHash: 'h',
      capability: host.capabilities.get('shelf.apply'),
      scopeId: 's',
      callId: undefined,
      actor: BOB,
      invocationId: 'inv',
      runId: undefined,
      taskId: undefined,
      approvalId: undefined,
      grantId: undefined,
      bytes: 0,
      inputSummary: '{}',
      dryRun: true,
    } as const;
    await expect(storage.transaction((s) => ledger.claim(s, request))).rejects.toMatchObject({
      code: 'LEDGER_DRY_RUN',
    });
    expect(await storage.ledger.get('k1')).toBeUndefined();
  });
});
