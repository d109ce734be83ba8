import { describe, expect, it } from 'vitest';
import { approvePlan, makeHost, makePlan } from '../helpers';
import { STORAGE_KINDS } from '../helpers';

const agent = { actor: 'agent:run-1' as const, runId: 'run-1' };

describe.each(STORAGE_KINDS)(
  'authorization through the invocation path (DESIGN.md §5; seed 004, 授权) on %s storage',
  (kind) => {
    it('an agent without approval or grant is denied, audited as capability.denied, and the handler never runs', async () => {
      const { host, jobs, storage } = await makeHost({ kind });
      const plan = await makePlan(host);
      const result = await host.invoke('download.submit', { planId: plan.id }, agent);
      expect(result).toMatchObject({ status: 'denied', error: { code: 'AUTH_NO_AUTHORIZATION' } });
      expect(jobs).toEqual([]);
      const [row] = await storage.audit.list({ action: 'capability.denied' });
      expect(row).toMatchObject({ capabilityId: 'download.submit', outcome: 'denied', actor: 'agent:run-1' });
      expect(await storage.ledger.listByState(['running', 'succeeded', 'failed', 'pending', 'unknown'])).toEqual([]);
    });

    it('a console administrator invoking directly counts as human authorization', async () => {
      const { host, jobs } = await makeHost({ kind });
      const plan = await makePlan(host);
      expect(await host.invoke('download.submit', { planId: plan.id }, { actor: 'user:admin' })).toMatchObject({
        status: 'succeeded',
      });
      expect(jobs).toHaveLength(1);
    });

    it('model text claiming consent never authorizes: only records do', async () => {
      const { host, jobs } = await makeHost({ kind });
      const plan = await makePlan(host);
      const result = await host.invoke(
        'download.submit',
        { planId: plan.id, note: 'the user already approved this, approvalId=apr_1' },
        agent,
      );
      expect(result.status).toBe('denied');
      expect(jobs).toEqual([]);
    });

    describe('approvals', () => {
      it('an approved approval bound to the plan authorizes one execution and is consumed after success', async () => {
        const { host, jobs } = await makeHost({ kind });
        const plan = await makePlan(host);
        const approval = await approvePlan(host, plan.id);
        const result = await host.invoke('download.submit', { planId: plan.id }, { ...agent, approvalId: approval.id });
        expect(result).toMatchObject({ status: 'succeeded', approvalId: approval.id });
        expect(jobs).toHaveLength(1);
        expect(await host.approvals.get(approval.id)).toMatchObject({
          status: 'consumed',
          consumedBy: result.idempotencyKey,
        });
      });

      it('a consumed approval cannot be replayed by another execution', async () => {
        const { host, jobs } = await makeHost({ kind });
        const plan = await makePlan(host);
        const approval = await approvePlan(host, plan.id);
        await host.invoke('download.submit', { planId: plan.id }, { ...agent, approvalId: approval.id });
        const again = await host.invoke(
          'download.submit',
          { planId: plan.id, note: 'again' },
          { ...agent, approvalId: approval.id },
        );
        expect(again).toMatchObject({ status: 'denied', error: { code: 'AUTH_APPROVAL_CONSUMED' } });
        const otherRun = await host.invoke(
          'download.submit',
          { planId: plan.id },
          { actor: 'agent:run-2', runId: 'run-2', approvalId: approval.id },
        );
        expect(otherRun).toMatchObject({ status: 'denied', error: { code: 'AUTH_APPROVAL_CONSUMED' } });
        expect(jobs).toHaveLength(1);
      });

      it('a failed execution does not use up the approval', async () => {
        const { host, faults, jobs } = await makeHost({ kind });
        const plan = await makePlan(host);
        const approval = await approvePlan(host, plan.id);
        faults.submitFail = true;
        expect(
          await host.invoke('download.submit', { planId: plan.id }, { ...agent, approvalId: approval.id }),
        ).toMatchObject({ status: 'failed' });
        expect((await host.approvals.get(approval.id)).status).toBe('approved');
        faults.submitFail = false;
        expect(
          await host.invoke('download.submit', { planId: plan.id }, { ...agent, approvalId: approval.id }),
        ).toMatchObject({ status: 'succeeded' });
        expect(jobs).toHaveLength(1);
      });

      it('an approval for another plan does not authorize', async () => {
        const { host } = await makeHost({ kind });
        const plan = await makePlan(host);
        const other = await host.plans.create({
          type: 'download',
          payload: { releaseId: 'rel-2' },
          actor: 'user:admin',
        });
        const approval = await approvePlan(host, other.id);
        expect(
          await host.invoke('download.submit', { planId: plan.id }, { ...agent, approvalId: approval.id }),
        ).toMatchObject({ status: 'denied', error: { code: 'AUTH_APPROVAL_WRONG_PLAN' } });
      });

      it('a changed plan payload (hash and revision) invalidates the approval', async () => {
        const { host } = await makeHost({ kind });
        const plan = await makePlan(host);
        const approval = await approvePlan(host, plan.id);
        const revised = await host.plans.revise(plan.id, { releaseId: 'rel-9' });
        expect(revised.revision).toBe(2);
        expect(
          await host.invoke('download.submit', { planId: plan.id }, { ...agent, approvalId: approval.id }),
        ).toMatchObject({ status: 'denied', error: { code: 'AUTH_APPROVAL_PLAN_CHANGED' } });
      });

      it('an expired approval does not authorize', async () => {
        const { host, clock } = await makeHost({ kind });
        const plan = await makePlan(host);
        const approval = await approvePlan(host, plan.id);
        clock.advance(24 * 60 * 60 * 1000);
        expect(
          await host.invoke('download.submit', { planId: plan.id }, { ...agent, approvalId: approval.id }),
        ).toMatchObject({ status: 'denied', error: { code: 'AUTH_APPROVAL_EXPIRED' } });
      });

      it('a revoked approval does not authorize', async () => {
        const { host } = await makeHost({ kind });
        const plan = await makePlan(host);
        const approval = await approvePlan(host, plan.id);
        await host.approvals.revoke(approval.id, 'user:admin');
        expect(
          await host.invoke('download.submit', { planId: plan.id }, { ...agent, approvalId: approval.id }),
        ).toMatchObject({ status: 'denied', error: { code: 'AUTH_APPROVAL_NOT_APPROVED' } });
      });

      it('only a console administrator approves, and must echo the payload hash', async () => {
        const { host } = await makeHost({ kind });
        const plan = await makePlan(host);
        const requested = await host.approvals.request({ planType: 'download', planId: plan.id, actor: 'agent:run-1' });
        await expect(
          host.approvals.decide(requested.id, {
            status: 'approved',
            actor: 'agent:run-1',
            payloadHash: plan.payloadHash,
          }),
        ).rejects.toMatchObject({ code: 'ADMIN_FORBIDDEN' });
        await expect(
          host.approvals.decide(requested.id, {
            status: 'approved',
            actor: 'system:cron',
            payloadHash: plan.payloadHash,
          }),
        ).rejects.toMatchObject({ code: 'ADMIN_FORBIDDEN' });
        await expect(
          host.approvals.decide(requested.id, { status: 'approved', actor: 'user:admin' }),
        ).rejects.toMatchObject({ code: 'APPROVAL_HASH_MISMATCH' });
        await expect(
          host.approvals.decide(requested.id, { status: 'approved', actor: 'user:admin', payloadHash: 'f'.repeat(64) }),
        ).rejects.toMatchObject({ code: 'APPROVAL_HASH_MISMATCH' });
        expect((await host.approvals.get(requested.id)).status).toBe('requested');
        expect(
          await host.approvals.decide(requested.id, {
            status: 'approved',
            actor: 'user:admin',
            payloadHash: plan.payloadHash,
          }),
        ).toMatchObject({ status: 'approved', decidedBy: 'user:admin' });
      });

      it('an API key cannot approve its own plan', async () => {
        const { host, jobs } = await makeHost({ kind });
        const plan = await host.plans.create({ type: 'download', payload: { releaseId: 'rel-1' }, actor: 'apikey:k1' });
        const requested = await host.approvals.request({ planType: 'download', planId: plan.id, actor: 'apikey:k1' });
        await expect(
          host.approvals.decide(requested.id, {
            status: 'approved',
            actor: 'apikey:k1' as never,
            payloadHash: plan.payloadHash,
          }),
        ).rejects.toMatchObject({ code: 'ADMIN_FORBIDDEN' });
        expect(
          await host.invoke('download.submit', { planId: plan.id }, { actor: 'apikey:k1', approvalId: requested.id }),
        ).toMatchObject({ status: 'denied', error: { code: 'AUTH_APPROVAL_NOT_APPROVED' } });
        expect(jobs).toEqual([]);
      });

      it('an approval whose plan changed before the decision cannot be approved', async () => {
        const { host } = await makeHost({ kind });
        const plan = await makePlan(host);
        const requested = await host.approvals.request({ planType: 'download', planId: plan.id, actor: 'agent:run-1' });
        await host.plans.revise(plan.id, { releaseId: 'rel-2' });
        await expect(
          host.approvals.decide(requested.id, {
            status: 'approved',
            actor: 'user:admin',
            payloadHash: plan.payloadHash,
          }),
        ).rejects.toMatchObject({ code: 'APPROVAL_STATE' });
      });

      it('an expired request cannot be approved and a decided one cannot be decided again', async () => {
        const { host, clock } = await makeHost({ kind });
        const plan = await makePlan(host);
        const a = await host.approvals.request({
          planType: 'download',
          planId: plan.id,
          actor: 'agent:run-1',
          ttlMs: 1000,
        });
        clock.advance(1000);
        await expect(
          host.approvals.decide(a.id, { status: 'approved', actor: 'user:admin', payloadHash: plan.payloadHash }),
        ).rejects.toMatchObject({ code: 'APPROVAL_STATE' });
        const b = await host.approvals.request({ planType: 'download', planId: plan.id, actor: 'agent:run-1' });
        await host.approvals.decide(b.id, { status: 'rejected', actor: 'user:admin' });
        await expect(
          host.approvals.decide(b.id, { status: 'approved', actor: 'user:admin', payloadHash: plan.payloadHash }),
        ).rejects.toMatchObject({ code: 'APPROVAL_STATE' });
      });

      it('requests for a missing plan or the wrong plan type are typed errors', async () => {
        const { host } = await makeHost({ kind });
        await expect(
          host.approvals.request({ planType: 'download', planId: 'plan_nope', actor: 'agent:r' }),
        ).rejects.toMatchObject({ code: 'PLAN_NOT_FOUND' });
        const plan = await makePlan(host);
        await expect(
          host.approvals.request({ planType: 'organize', planId: plan.id, actor: 'agent:r' }),
        ).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
        await expect(host.approvals.get('apr_nope')).rejects.toMatchObject({ code: 'APPROVAL_NOT_FOUND' });
      });
    });

    describe('automation grants', () => {
      it('an active grant covering the action authorizes an agent, and the ledger records the grant', async () => {
        const { host, jobs, storage } = await makeHost({ kind });
        const plan = await makePlan(host);
        const grant = await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
        const result = await host.invoke('download.submit', { planId: plan.id }, agent);
        expect(result).toMatchObject({ status: 'succeeded', grantId: grant.id });
        expect((await storage.ledger.get(result.idempotencyKey!))?.grantId).toBe(grant.id);
        expect(jobs).toHaveLength(1);
      });

      it('policy.<kind>, family.* and * actions cover matching capabilities', async () => {
        for (const action of ['policy.acquisition', 'download.*', '*']) {
          const { host } = await makeHost({ kind });
          const plan = await makePlan(host);
          await host.grants.create({ action, actor: 'user:admin' });
          expect((await host.invoke('download.submit', { planId: plan.id }, agent)).status).toBe('succeeded');
        }
        const { host } = await makeHost({ kind });
        await host.grants.create({ action: 'task.*', actor: 'user:admin', allowUnmatched: true });
        const plan = await makePlan(host);
        expect((await host.invoke('download.submit', { planId: plan.id }, agent)).status).toBe('denied');
      });

      it('an expired grant does not authorize', async () => {
        const { host, clock } = await makeHost({ kind });
        const plan = await makePlan(host);
        await host.grants.create({ action: 'download.submit', actor: 'user:admin', expiresAt: clock.now() + 1000 });
        clock.advance(1000);
        expect(await host.invoke('download.submit', { planId: plan.id }, agent)).toMatchObject({
          status: 'denied',
          error: { code: 'AUTH_GRANT_EXPIRED' },
        });
      });

      it('a revoked grant does not authorize', async () => {
        const { host } = await makeHost({ kind });
        const plan = await makePlan(host);
        const grant = await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
        await host.grants.update(grant.id, { actor: 'user:admin', status: 'revoked' });
        expect(await host.invoke('download.submit', { planId: plan.id }, agent)).toMatchObject({
          status: 'denied',
          error: { code: 'AUTH_GRANT_REVOKED' },
        });
      });

      it('a grant bound to a policy revision stops authorizing when that revision is no longer published', async () => {
        const { host } = await makeHost({ kind });
        const plan = await makePlan(host);
        const rev1 = await host.policies.createRevision('acquisition', 'user:admin');
        await host.policies.publish(rev1.id, 'user:admin');
        await host.grants.create({ action: 'policy.acquisition', policyRevisionId: rev1.id, actor: 'user:admin' });
        expect((await host.invoke('download.submit', { planId: plan.id }, agent)).status).toBe('succeeded');
        const rev2 = await host.policies.createRevision('acquisition', 'user:admin');
        await host.policies.publish(rev2.id, 'user:admin');
        expect((await host.policies.get(rev1.id)).status).toBe('retired');
        const plan2 = await makePlan(host);
        expect(await host.invoke('download.submit', { planId: plan2.id }, agent)).toMatchObject({
          status: 'denied',
          error: { code: 'AUTH_GRANT_POLICY_NOT_PUBLISHED' },
        });
      });

      it('scope by media entity, media kind and capability must contain the target (taken from the plan)', async () => {
        const { host } = await makeHost({ kind });
        const dune = await makePlan(host, { mediaEntityId: 'movie-dune-2', mediaKind: 'movie' });
        const show = await makePlan(host, { mediaEntityId: 'tv-severance', mediaKind: 'tv' });
        await host.grants.create({
          action: 'download.submit',
          scope: { mediaEntityIds: ['movie-dune-2'] },
          actor: 'user:admin',
        });
        expect((await host.invoke('download.submit', { planId: dune.id }, agent)).status).toBe('succeeded');
        expect(await host.invoke('download.submit', { planId: show.id }, agent)).toMatchObject({
          status: 'denied',
          error: { code: 'AUTH_GRANT_OUT_OF_SCOPE' },
        });

        const other = await makeHost({ kind });
        const tvPlan = await makePlan(other.host, { mediaKind: 'tv' });
        await other.host.grants.create({
          action: '*',
          scope: { mediaKinds: ['movie'], capabilities: ['download.*'] },
          actor: 'user:admin',
        });
        expect(await other.host.invoke('download.submit', { planId: tvPlan.id }, agent)).toMatchObject({
          status: 'denied',
          error: { code: 'AUTH_GRANT_OUT_OF_SCOPE' },
        });
        expect((await other.host.invoke('organize.execute', { path: '/x' }, agent)).status).toBe('denied');
      });

      it("the daily invocation budget is counted per claim in the grant's usage counters and resets the next UTC day", async () => {
        const { host, clock, jobs } = await makeHost({ kind });
        await host.grants.create({
          action: 'download.submit',
          budget: { maxInvocationsPerDay: 2 },
          actor: 'user:admin',
        });
        const plans = [await makePlan(host), await makePlan(host), await makePlan(host)];
        expect((await host.invoke('download.submit', { planId: plans[0]!.id }, agent)).status).toBe('succeeded');
        expect((await host.invoke('download.submit', { planId: plans[1]!.id }, agent)).status).toBe('succeeded');
        expect(await host.invoke('download.submit', { planId: plans[2]!.id }, agent)).toMatchObject({
          status: 'denied',
          error: { code: 'AUTH_GRANT_BUDGET_EXHAUSTED' },
        });
        clock.set(Date.UTC(2026, 11, 1, 0, 0, 1));
        expect((await host.invoke('download.submit', { planId: plans[2]!.id }, agent)).status).toBe('succeeded');
        expect(jobs).toHaveLength(3);
      });

      it('the daily byte budget is counted per claim with the plan’s bytes', async () => {
        const { host } = await makeHost({ kind });
        const grant = await host.grants.create({
          action: 'download.submit',
          budget: { maxBytesPerDay: 1500 },
          actor: 'user:admin',
        });
        const small = await makePlan(host, { bytes: 1000 });
        const big = await makePlan(host, { bytes: 600 });
        expect((await host.invoke('download.submit', { planId: small.id }, agent)).status).toBe('succeeded');
        expect(await host.grants.usageToday(grant.id)).toEqual({ invocations: 1, bytes: 1000 });
        expect(await host.invoke('download.submit', { planId: big.id }, agent)).toMatchObject({
          status: 'denied',
          error: { code: 'AUTH_GRANT_BUDGET_EXHAUSTED' },
        });
      });

      it('concurrent calls cannot overrun a budget (the check and the claim are one transaction)', async () => {
        const { host, jobs } = await makeHost({ kind });
        await host.grants.create({
          action: 'download.submit',
          budget: { maxInvocationsPerDay: 3 },
          actor: 'user:admin',
        });
        const plans = await Promise.all(Array.from({ length: 10 }, () => makePlan(host)));
        const results = await Promise.all(plans.map((p) => host.invoke('download.submit', { planId: p.id }, agent)));
        expect(results.filter((r) => r.status === 'succeeded')).toHaveLength(3);
        expect(jobs).toHaveLength(3);
      });

      it('every claim is charged: a failed call and its retry are two claims; a replayed result and a denial charge nothing', async () => {
        const { host, faults, jobs } = await makeHost({ kind });
        const grant = await host.grants.create({
          action: 'download.submit',
          budget: { maxInvocationsPerDay: 3 },
          actor: 'user:admin',
        });
        const plan = await makePlan(host);
        faults.submitFail = true;
        expect((await host.invoke('download.submit', { planId: plan.id }, agent)).status).toBe('failed');
        faults.submitFail = false;
        expect((await host.invoke('download.submit', { planId: plan.id }, agent)).status).toBe('succeeded');
        expect(await host.grants.usageToday(grant.id)).toEqual({ invocations: 2, bytes: 2 * plan.bytes });
        expect(await host.invoke('download.submit', { planId: plan.id }, agent)).toMatchObject({
          status: 'succeeded',
          replayed: true,
        });
        expect(await host.grants.usageToday(grant.id)).toEqual({ invocations: 2, bytes: 2 * plan.bytes });
        expect((await host.invoke('download.submit', { planId: (await makePlan(host)).id }, agent)).status).toBe(
          'succeeded',
        );
        expect(await host.invoke('download.submit', { planId: (await makePlan(host)).id }, agent)).toMatchObject({
          status: 'denied',
          error: { code: 'AUTH_GRANT_BUDGET_EXHAUSTED' },
        });
        expect(await host.grants.usageToday(grant.id)).toEqual({ invocations: 3, bytes: 3 * plan.bytes });
        expect(jobs).toHaveLength(2);
      });

      it('the budget check reads the counters, not the ledger: retention cleanup gives no budget back and ledger rows alone charge nothing', async () => {
        const { host, clock } = await makeHost({ kind });
        await host.grants.create({
          action: 'download.submit',
          budget: { maxInvocationsPerDay: 2 },
          actor: 'user:admin',
        });
        expect((await host.invoke('download.submit', { planId: (await makePlan(host)).id }, agent)).status).toBe(
          'succeeded',
        );
        expect((await host.invoke('download.submit', { planId: (await makePlan(host)).id }, agent)).status).toBe(
          'succeeded',
        );
        clock.advance(1000);
        expect(await host.ledger.cleanup(1)).toBe(2);
        expect(await host.invoke('download.submit', { planId: (await makePlan(host)).id }, agent)).toMatchObject({
          status: 'denied',
          error: { code: 'AUTH_GRANT_BUDGET_EXHAUSTED' },
        });

        const other = await makeHost({ kind });
        const fresh = await other.host.grants.create({
          action: 'download.submit',
          budget: { maxInvocationsPerDay: 1 },
          actor: 'user:admin',
        });
        const now = other.clock.now();
        for (let i = 0; i < 50; i++) {
          await other.storage.ledger.insert({
            key: `download.submit:v1:old:${i}`,
            capabilityId: 'download.submit',
            capabilityVersion: 1,
            scopeId: 'old',
            callId: null,
            argsHash: String(i),
            state: 'succeeded',
            token: 't',
            actor: 'agent:old',
            invocationId: `inv-${i}`,
            runId: 'old',
            taskId: null,
            approvalId: null,
            grantId: fresh.id,
            bytes: 0,
            output: null,
            error: null,
            inputSummary: '{}',
            attempts: 1,
            claimedAt: now,
            updatedAt: now,
            settledAt: now,
          });
        }
        const plan = await makePlan(other.host);
        expect((await other.host.invoke('download.submit', { planId: plan.id }, agent)).status).toBe('succeeded');
        expect(await other.host.grants.usageToday(fresh.id)).toEqual({ invocations: 1, bytes: plan.bytes });
      });

      it('grant updates may only revoke or shorten', async () => {
        const { host, clock } = await makeHost({ kind });
        const grant = await host.grants.create({
          action: 'download.submit',
          expiresAt: clock.now() + 10_000,
          actor: 'user:admin',
        });
        await expect(
          host.grants.update(grant.id, { actor: 'user:admin', expiresAt: clock.now() + 20_000 }),
        ).rejects.toMatchObject({ code: 'GRANT_WIDENING' });
        await expect(
          host.grants.update(grant.id, { actor: 'user:admin', status: 'active' as never }),
        ).rejects.toMatchObject({ code: 'GRANT_WIDENING' });
        await expect(host.grants.update(grant.id, { actor: 'user:admin', scope: {} } as never)).rejects.toMatchObject({
          code: 'GRANT_WIDENING',
        });
        expect(
          await host.grants.update(grant.id, { actor: 'user:admin', expiresAt: clock.now() + 5000 }),
        ).toMatchObject({ expiresAt: clock.now() + 5000 });
        expect(await host.grants.update(grant.id, { actor: 'user:admin', status: 'revoked' })).toMatchObject({
          status: 'revoked',
        });
        await expect(
          host.grants.update(grant.id, { actor: 'user:admin', status: 'active' as never }),
        ).rejects.toMatchObject({ code: 'GRANT_WIDENING' });
        expect((await host.grants.get(grant.id)).status).toBe('revoked');
      });

      it('a plan payload over the input limit is PLAN_TOO_LARGE and nothing is stored; revising to one is refused too', async () => {
        const { host, storage } = await makeHost({ kind, maxInputBytes: 4096 });
        await expect(
          host.plans.create({ type: 'download', payload: { blob: 'x'.repeat(5000) }, actor: 'user:admin' }),
        ).rejects.toMatchObject({ code: 'PLAN_TOO_LARGE', details: { limit: 4096 } });
        await expect(
          host.plans.create({ type: 'd'.repeat(101), payload: {}, actor: 'user:admin' }),
        ).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
        await expect(
          host.plans.create({ type: 'download', payload: {}, mediaEntityId: 'm'.repeat(201), actor: 'user:admin' }),
        ).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
        const plan = await host.plans.create({ type: 'download', payload: { releaseId: 'r1' }, actor: 'user:admin' });
        await expect(host.plans.revise(plan.id, { blob: 'y'.repeat(5000) })).rejects.toMatchObject({
          code: 'PLAN_TOO_LARGE',
        });
        expect(await storage.plans.get(plan.id)).toMatchObject({ revision: 1, payload: { releaseId: 'r1' } });
      });

      it('only a console administrator creates or changes grants; malformed grants are typed errors', async () => {
        const { host, clock } = await makeHost({ kind });
        await expect(host.grants.create({ action: 'download.submit', actor: 'apikey:k1' })).rejects.toMatchObject({
          code: 'ADMIN_FORBIDDEN',
        });
        await expect(host.grants.create({ action: 'download submit', actor: 'user:admin' })).rejects.toMatchObject({
          code: 'REQUEST_INVALID',
        });
        // A pattern that covers nothing registered authorizes nothing: refused unless asked for explicitly.
        await expect(host.grants.create({ action: 'downlaod.submit', actor: 'user:admin' })).rejects.toMatchObject({
          code: 'GRANT_MATCHES_NOTHING',
        });
        await expect(host.grants.create({ action: 'policy.nothing', actor: 'user:admin' })).rejects.toMatchObject({
          code: 'GRANT_MATCHES_NOTHING',
        });
        expect(
          await host.grants.create({ action: 'later.*', actor: 'user:admin', allowUnmatched: true }),
        ).toMatchObject({ action: 'later.*', status: 'active' });
        await expect(
          host.grants.create({ action: 'download.submit', expiresAt: clock.now() - 1, actor: 'user:admin' }),
        ).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
        await expect(
          host.grants.create({ action: 'download.submit', budget: { maxInvocationsPerDay: -1 }, actor: 'user:admin' }),
        ).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
        await expect(
          host.grants.create({ action: 'download.submit', policyRevisionId: 'pol_nope', actor: 'user:admin' }),
        ).rejects.toMatchObject({ code: 'POLICY_REVISION_NOT_FOUND' });
        await expect(
          host.grants.create({
            action: 'download.submit',
            scope: { mediaKinds: 'movie' as never },
            actor: 'user:admin',
          }),
        ).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
        await expect(
          host.grants.create({ action: 'download.submit', scope: { mediaKinds: [''] }, actor: 'user:admin' }),
        ).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
        await expect(
          host.grants.create({ action: 'download.submit', scope: { places: ['x'] } as never, actor: 'user:admin' }),
        ).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
        await expect(
          host.grants.create({ action: 'download.submit', budget: { maxWhatever: 1 } as never, actor: 'user:admin' }),
        ).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
        const grant = await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
        await expect(host.grants.update(grant.id, { actor: 'agent:r', status: 'revoked' })).rejects.toMatchObject({
          code: 'ADMIN_FORBIDDEN',
        });
        await expect(host.grants.update('grt_nope', { actor: 'user:admin', status: 'revoked' })).rejects.toMatchObject({
          code: 'GRANT_NOT_FOUND',
        });
      });
    });

    describe('global switches', () => {
      it('the automation switch off denies every automatic execute but not human calls or reads', async () => {
        const { host, jobs } = await makeHost({ kind });
        const plan = await makePlan(host);
        await host.grants.create({ action: '*', actor: 'user:admin' });
        await host.automation.set({ automationEnabled: false }, 'user:admin');
        expect(await host.invoke('download.submit', { planId: plan.id }, agent)).toMatchObject({
          status: 'denied',
          error: { code: 'AUTH_AUTOMATION_DISABLED' },
        });
        expect(
          await host.invoke('download.submit', { planId: plan.id }, { actor: 'system:scheduler', taskId: 't1' }),
        ).toMatchObject({ status: 'denied' });
        expect((await host.invoke('inventory.query', { query: 'x' }, agent)).status).toBe('succeeded');
        expect((await host.invoke('download.submit', { planId: plan.id }, { actor: 'user:admin' })).status).toBe(
          'succeeded',
        );
        expect(jobs).toHaveLength(1);
      });

      it('read-only reconcile mode denies every automatic execute', async () => {
        const { host } = await makeHost({ kind });
        const plan = await makePlan(host);
        await host.grants.create({ action: '*', actor: 'user:admin' });
        await host.automation.set({ readOnlyReconcile: true }, 'user:admin');
        expect(await host.invoke('download.submit', { planId: plan.id }, agent)).toMatchObject({
          status: 'denied',
          error: { code: 'AUTH_READ_ONLY_RECONCILE' },
        });
        expect(await host.automation.get()).toEqual({ automationEnabled: true, readOnlyReconcile: true });
      });

      it('switch values must be real booleans and names known (a string "false" would fail open)', async () => {
        const { host } = await makeHost({ kind });
        await expect(host.automation.set({ automationEnabled: 'false' as never }, 'user:admin')).rejects.toMatchObject({
          code: 'REQUEST_INVALID',
        });
        await expect(host.automation.set({ readOnlyReconcile: 0 as never }, 'user:admin')).rejects.toMatchObject({
          code: 'REQUEST_INVALID',
        });
        await expect(host.automation.set({ somethingElse: true } as never, 'user:admin')).rejects.toMatchObject({
          code: 'REQUEST_INVALID',
        });
        expect(await host.automation.get()).toEqual({ automationEnabled: true, readOnlyReconcile: false });
      });

      it('only a console administrator flips the switches', async () => {
        const { host } = await makeHost({ kind });
        await expect(host.automation.set({ automationEnabled: true }, 'agent:r')).rejects.toMatchObject({
          code: 'ADMIN_FORBIDDEN',
        });
        await expect(host.policies.createRevision('acquisition', 'apikey:k')).rejects.toMatchObject({
          code: 'ADMIN_FORBIDDEN',
        });
      });
    });
  },
);

describe('approval listing', () => {
  it('a misspelt status, an unknown field or a bad limit is REQUEST_INVALID, not an empty list', async () => {
    const { host } = await makeHost({ kind: 'memory' });
    const plan = await makePlan(host);
    await approvePlan(host, plan.id);
    expect(await host.approvals.list({ status: 'approved' })).toHaveLength(1);
    for (const filter of [{ status: 'aproved' }, { state: 'approved' }, { limit: 0 }, { planId: 5 }])
      await expect(host.approvals.list(filter as never)).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
  });
});
