// Approving some steps of a plan, and approving with edits. Real SQLite file; the shelf world of fixtures.ts.
//
// Public reports reproduced here:
// - langchain-ai/langchain#40166 "HumanInTheLoopMiddleware: cross-tool edit bypasses the target tool's interrupt_on
//   policy": an edit could rename the call to another tool. Here an edit naming another capability is refused
//   APPROVAL_EDIT_WRONG_CAPABILITY: nothing is decided, the plan is unchanged, nothing runs.
// - CortexLM/cortex-code#130 "ApproveModified handler receives modified arguments but never applies them": the tool
//   ran with the original arguments. Here the handler receives the edited plan, exactly once, never the proposed one.
// - langchain-ai/langchain#33787 "Agent re-attempts original tool call after HumanInTheLoopMiddleware edit decision".
//   Here the proposed payload can never execute afterwards: the plan moved to the edited revision, and a revision
//   back to the proposed payload is a new revision no approval covers (AUTH_APPROVAL_PLAN_CHANGED).
// - pydantic/pydantic-ai#6968 "An approver sees the model's original tool arguments, not the ones that will
//   execute": here approving echoes the payload hash the approver saw (APPROVAL_HASH_MISMATCH otherwise), and an edit
//   that does not match the capability's plan schema is refused APPROVAL_EDIT_INVALID.
// - langchain-ai/langchainjs#11437 "execute approved tool calls when HITL decisions are mixed" (one rejection removed
//   the approved calls too). Here approving some steps runs exactly those; the others are refused
//   APPROVAL_STEP_NOT_APPROVED, which names the steps that may run.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHost } from '../../src/index';
import { ADMIN, BOB, shelfHost, shelfSteps } from './fixtures';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
});

/** A 2160p plan and an approval asked for it by Bob's tablet for shelf.apply. */
async function asked(options: { household?: boolean } = {}) {
  const made = await shelfHost(options);
  hosts.push(made.host);
  const { host } = made;
  const made2 = await host.invoke('shelf.plan', { title: 'Dune', quality: '2160p' }, { actor: ADMIN });
  const planId = (made2.output as { planId: string }).planId;
  const proposed = await host.plans.get(planId);
  const approval = await host.approvals.request({
    planType: 'shelf',
    planId,
    actor: BOB,
    capabilityId: 'shelf.apply',
  });
  return { ...made, planId, proposed, approval };
}

const refusals = async (storage: {
  audit: { list(f: { limit: number }): Promise<Array<{ action: string; reason: string | null }>> };
}) =>
  (await storage.audit.list({ limit: 1000 }))
    .filter((a) => a.action === 'approval.refused')
    .map((a) => a.reason?.split(':')[0]);

describe('approving some steps', () => {
  it('the approval lists the plan steps with a hash each; approving f1 runs f1 only; f2 or the whole plan is refused naming f1', async () => {
    const { host, shelf, planId, proposed, approval } = await asked();
    expect(approval.steps.map((s) => [s.id, s.label])).toEqual([
      ['f1', 'Dune (2021) 2160p.mkv'],
      ['f2', 'Dune (2021) 2160p extras.mkv'],
    ]);
    expect(approval.steps.every((s) => /^[0-9a-f]{64}$/.test(s.hash))).toBe(true);
    const decided = await host.approvals.decide(approval.id, {
      status: 'approved',
      actor: ADMIN,
      payloadHash: proposed.payloadHash,
      steps: ['f1'],
    });
    expect(decided.approvedSteps).toEqual(['f1']);

    const whole = await host.invoke('shelf.apply', { planId }, { actor: BOB, approvalId: approval.id });
    expect(whole).toMatchObject({ status: 'denied', error: { code: 'APPROVAL_STEP_NOT_APPROVED' } });
    expect(whole.error?.message).toContain('only f1 may run');
    const f2 = await host.invoke(
      'shelf.apply',
      { planId, steps: ['f1', 'f2'] },
      { actor: BOB, approvalId: approval.id },
    );
    expect(f2).toMatchObject({ status: 'denied', error: { code: 'APPROVAL_STEP_NOT_APPROVED' } });
    expect(shelf.calls).toEqual([]);

    const f1 = await host.invoke('shelf.apply', { planId, steps: ['f1'] }, { actor: BOB, approvalId: approval.id });
    expect(f1.status).toBe('succeeded');
    expect(shelf.calls.map((c) => c.steps)).toEqual([['f1']]);
    expect(shelf.files.has('Dune (2021) 2160p extras.mkv')).toBe(false);
  });

  it('a partial approval naming an unknown step is refused APPROVAL_STEP_UNKNOWN, audited, and decides nothing', async () => {
    const { host, storage, proposed, approval } = await asked();
    await expect(
      host.approvals.decide(approval.id, {
        status: 'approved',
        actor: ADMIN,
        payloadHash: proposed.payloadHash,
        steps: ['f1', 'f9'],
      }),
    ).rejects.toMatchObject({ code: 'APPROVAL_STEP_UNKNOWN', details: { unknown: ['f9'], steps: ['f1', 'f2'] } });
    expect((await host.approvals.get(approval.id)).status).toBe('requested');
    expect(await refusals(storage)).toEqual(['APPROVAL_STEP_UNKNOWN']);
    await expect(
      host.approvals.decide(approval.id, {
        status: 'approved',
        actor: ADMIN,
        payloadHash: proposed.payloadHash,
        steps: [],
      }),
    ).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
  });

  it('approving all steps (no steps given) runs the whole plan', async () => {
    const { host, shelf, planId, proposed, approval } = await asked();
    await host.approvals.decide(approval.id, { status: 'approved', actor: ADMIN, payloadHash: proposed.payloadHash });
    expect((await host.invoke('shelf.apply', { planId }, { actor: BOB, approvalId: approval.id })).status).toBe(
      'succeeded',
    );
    expect(shelf.calls.map((c) => c.steps)).toEqual([['f1', 'f2']]);
  });
});

describe('approving with edits', () => {
  const edited = { title: 'Dune', quality: '1080p', steps: shelfSteps('1080p') };

  it('"yes, but the 1080p one": a new plan revision with a new hash is what executes, once; proposed, approved and executed payloads are kept apart', async () => {
    const { host, shelf, planId, proposed, approval } = await asked();
    const decided = await host.approvals.decide(approval.id, {
      status: 'approved',
      actor: ADMIN,
      payloadHash: proposed.payloadHash,
      edits: { payload: edited },
    });
    const plan = await host.plans.get(planId);
    expect(plan.revision).toBe(2);
    expect(plan.payload).toEqual(edited);
    expect(plan.bytes).toBe(12.4e9);
    expect(decided).toMatchObject({
      status: 'approved',
      revision: 2,
      payloadHash: plan.payloadHash,
      proposedPayloadHash: proposed.payloadHash,
      proposedPayload: proposed.payload,
      approvedPayload: edited,
      executedPayloadHash: null,
    });
    expect(decided.payloadHash).not.toBe(proposed.payloadHash);
    // The impact follows the edit: 12.4 GB, not 58.2 GB.
    expect(decided.impact).toMatchObject({ status: 'known', impact: { writeBytes: 12.4e9 } });

    const run = await host.invoke('shelf.apply', { planId }, { actor: BOB, approvalId: approval.id });
    expect(run.status).toBe('succeeded');
    expect(shelf.calls).toEqual([{ capability: 'shelf.apply', payload: edited, steps: ['f1', 'f2'] }]);
    expect(await host.approvals.get(approval.id)).toMatchObject({
      status: 'consumed',
      executedPayloadHash: plan.payloadHash,
    });
  });

  it('the proposed payload can never execute afterwards: revising the plan back to it is a revision no approval covers', async () => {
    const { host, shelf, planId, proposed, approval } = await asked();
    await host.approvals.decide(approval.id, {
      status: 'approved',
      actor: ADMIN,
      payloadHash: proposed.payloadHash,
      edits: { payload: edited },
    });
    const back = await host.plans.revise(planId, proposed.payload);
    expect(back.revision).toBe(3);
    const denied = await host.invoke('shelf.apply', { planId }, { actor: BOB, approvalId: approval.id });
    expect(denied).toMatchObject({ status: 'denied', error: { code: 'AUTH_APPROVAL_PLAN_CHANGED' } });
    expect(shelf.calls).toEqual([]);
  });

  it('an edit naming another capability is refused APPROVAL_EDIT_WRONG_CAPABILITY: nothing decided, plan unchanged, audited', async () => {
    const { host, storage, shelf, planId, proposed, approval } = await asked();
    await expect(
      host.approvals.decide(approval.id, {
        status: 'approved',
        actor: ADMIN,
        payloadHash: proposed.payloadHash,
        edits: { payload: { names: ['/media/movies'] }, capabilityId: 'shelf.remove' },
      }),
    ).rejects.toMatchObject({ code: 'APPROVAL_EDIT_WRONG_CAPABILITY' });
    expect(await host.approvals.get(approval.id)).toMatchObject({ status: 'requested', approvedPayload: null });
    expect((await host.plans.get(planId)).revision).toBe(1);
    expect(shelf.calls).toEqual([]);
    expect(await refusals(storage)).toEqual(['APPROVAL_EDIT_WRONG_CAPABILITY']);
  });

  it('an edit that does not match the plan schema is refused APPROVAL_EDIT_INVALID with the paths; nothing changes', async () => {
    const { host, planId, proposed, approval } = await asked();
    await expect(
      host.approvals.decide(approval.id, {
        status: 'approved',
        actor: ADMIN,
        payloadHash: proposed.payloadHash,
        edits: { payload: { title: 'Dune', quality: 1080, steps: [] } },
      }),
    ).rejects.toMatchObject({ code: 'APPROVAL_EDIT_INVALID', details: { issues: expect.any(Array) } });
    expect((await host.plans.get(planId)).revision).toBe(1);
    expect((await host.approvals.get(approval.id)).status).toBe('requested');
  });

  it("an edit the capability's policy refuses (the household's no-2160p rule) is APPROVAL_EDIT_DENIED", async () => {
    const made = await shelfHost({ household: true });
    hosts.push(made.host);
    const { host } = made;
    // A 1080p plan is proposed; the edit asks for 2160p, which the household's rule refuses whoever asks.
    const p = await host.invoke('shelf.plan', { title: 'Dune', quality: '1080p' }, { actor: ADMIN });
    const planId = (p.output as { planId: string }).planId;
    const proposed = await host.plans.get(planId);
    const approval = await host.approvals.request({
      planType: 'shelf',
      planId,
      actor: BOB,
      capabilityId: 'shelf.apply',
    });
    await expect(
      host.approvals.decide(approval.id, {
        status: 'approved',
        actor: ADMIN,
        payloadHash: proposed.payloadHash,
        edits: { payload: { title: 'Dune', quality: '2160p', steps: shelfSteps('2160p') } },
      }),
    ).rejects.toMatchObject({ code: 'APPROVAL_EDIT_DENIED', details: { denial: 'HOUSEHOLD_NO_2160P' } });
    expect((await host.plans.get(planId)).revision).toBe(1);
  });

  it('an approval asked for without a capability cannot be edited (APPROVAL_EDIT_UNSUPPORTED); approving echoes the hash the approver saw', async () => {
    const { host, planId, proposed } = await asked();
    const bare = await host.approvals.request({ planType: 'shelf', planId, actor: BOB });
    await expect(
      host.approvals.decide(bare.id, {
        status: 'approved',
        actor: ADMIN,
        payloadHash: proposed.payloadHash,
        edits: { payload: edited },
      }),
    ).rejects.toMatchObject({ code: 'APPROVAL_EDIT_UNSUPPORTED' });
    await expect(
      host.approvals.decide(bare.id, { status: 'approved', actor: ADMIN, payloadHash: 'f'.repeat(64) }),
    ).rejects.toMatchObject({ code: 'APPROVAL_HASH_MISMATCH' });
  });

  it('edits and steps together: the steps are those of the edited plan', async () => {
    const { host, shelf, planId, proposed, approval } = await asked();
    const decided = await host.approvals.decide(approval.id, {
      status: 'approved',
      actor: ADMIN,
      payloadHash: proposed.payloadHash,
      edits: { payload: edited },
      steps: ['f1'],
    });
    expect(decided.steps.map((s) => s.label)).toEqual(['Dune (2021) 1080p.mkv', 'Dune (2021) 1080p extras.mkv']);
    expect(decided.approvedSteps).toEqual(['f1']);
    await host.invoke('shelf.apply', { planId, steps: ['f1'] }, { actor: BOB, approvalId: approval.id });
    expect(shelf.calls).toEqual([{ capability: 'shelf.apply', payload: edited, steps: ['f1'] }]);
  });
});
