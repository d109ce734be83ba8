// Trial of partial approvals and approvals with edits (docs/approvals.md), on the sandbox world and a real SQLite file.
import { afterEach, describe, expect, it } from 'vitest';
import type { StandardOutput } from '../../src/media';
import type { JsonValue } from '../../src/storage';
import {
  BLURAY_1080,
  DUNE_2,
  REMUX,
  SHOGUN,
  admin,
  downloadPlan,
  makeTrialHost,
  snapshot,
  type TrialHost,
} from './approvals-trial-helpers';

let h: TrialHost | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const bob = { actor: 'user:bob' } as const;
const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: { code?: string; name?: string; message?: string }) => e.code ?? `${e.name}: ${e.message?.slice(0, 80)}`,
  );

async function askedFor(t: TrialHost, planId: string, capabilityId = 'download.submit') {
  const plan = await t.host.plans.get(planId);
  return t.host.approvals.request({ planType: plan.type, planId, actor: 'user:bob', capabilityId });
}

/** A completed Shōgun season download (9 episodes) and its organize plan (one step per file). */
async function shogunOrganize(t: TrialHost) {
  const p = await downloadPlan(t, { ...SHOGUN, kind: 'tv', releaseId: 'rel-126308-1' });
  const r = await t.host.invoke('download.submit', { planId: p.id }, admin);
  expect(r.status).toBe('pending');
  t.clock.advance(t.world.durations.queuedMs + t.world.durations.downloadMs);
  const job = (r.output as StandardOutput<'download.submit'>).download;
  const op = await t.host.invoke('organize.plan', { downloadId: job.id }, admin);
  expect(op.status).toBe('succeeded');
  return (op.output as StandardOutput<'organize.plan'>).plan;
}

describe('trial: edits and steps', () => {
  it('an edit that drops a file, with steps naming the dropped file, is refused APPROVAL_STEP_UNKNOWN and decides nothing', async () => {
    h = await makeTrialHost();
    const t = h;
    const op = await shogunOrganize(t);
    const a = await askedFor(t, op.id, 'organize.execute');
    const proposed = a.proposedPayload as { files: unknown[]; steps: { id: string }[] };
    const edited = { ...proposed, files: proposed.files.slice(1), steps: proposed.steps.slice(1) };
    const dropped = proposed.steps[0]!.id;
    expect(
      await code(
        t.host.approvals.decide(a.id, {
          status: 'approved',
          ...admin,
          payloadHash: a.payloadHash,
          edits: { payload: edited as unknown as JsonValue },
          steps: [dropped],
        }),
      ),
    ).toBe('APPROVAL_STEP_UNKNOWN');
    expect((await t.host.approvals.get(a.id)).status).toBe('requested');
    expect((await t.host.plans.get(op.id)).revision).toBe(1);
  });

  it('after an edit that drops a file, executing the old step is denied and the edited steps run', async () => {
    h = await makeTrialHost();
    const t = h;
    const op = await shogunOrganize(t);
    const a = await askedFor(t, op.id, 'organize.execute');
    const proposed = a.proposedPayload as { files: unknown[]; steps: { id: string }[] };
    const edited = { ...proposed, files: proposed.files.slice(1), steps: proposed.steps.slice(1) };
    const decided = await t.host.approvals.decide(a.id, {
      status: 'approved',
      ...admin,
      payloadHash: a.payloadHash,
      edits: { payload: edited as unknown as JsonValue },
      steps: [proposed.steps[1]!.id],
    });
    expect(decided.approvedSteps).toEqual([proposed.steps[1]!.id]);
    const old = await t.host.invoke(
      'organize.execute',
      { planId: op.id, steps: [proposed.steps[0]!.id] },
      { ...bob, approvalId: a.id },
    );
    expect(old.status).toBe('denied');
    const ok = await t.host.invoke(
      'organize.execute',
      { planId: op.id, steps: [proposed.steps[1]!.id] },
      { ...bob, approvalId: a.id },
    );
    expect(ok.status, JSON.stringify(ok.error)).toBe('succeeded');
    const after = await t.host.approvals.get(a.id);
    expect(after.executedPayloadHash).toBe(after.payloadHash);
    expect(after.executedPayloadHash).not.toBe(after.proposedPayloadHash);
  });

  it('the proposed payload can never execute after an edit: revising the plan back is AUTH_APPROVAL_PLAN_CHANGED', async () => {
    h = await makeTrialHost();
    const t = h;
    const p = await downloadPlan(t, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    const a = await askedFor(t, p.id);
    const proposed = a.proposedPayload as Record<string, unknown>;
    await t.host.approvals.decide(a.id, {
      status: 'approved',
      ...admin,
      payloadHash: a.payloadHash,
      edits: { payload: { ...proposed, releaseId: BLURAY_1080 } as JsonValue },
    });
    await t.host.plans.revise(p.id, proposed as JsonValue);
    const r = await t.host.invoke('download.submit', { planId: p.id }, { ...bob, approvalId: a.id });
    expect([r.status, r.error?.code]).toEqual(['denied', 'AUTH_APPROVAL_PLAN_CHANGED']);
    expect(t.world.downloads()).toEqual([]);
  });

  it('two concurrent decisions with different edits: one wins, the plan and the approval agree on the approved payload', async () => {
    h = await makeTrialHost();
    const t = h;
    const p = await downloadPlan(t, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    const a = await askedFor(t, p.id);
    const proposed = a.proposedPayload as Record<string, unknown>;
    const decide = (releaseId: string) =>
      code(
        t.host.approvals.decide(a.id, {
          status: 'approved',
          ...admin,
          payloadHash: a.payloadHash,
          edits: { payload: { ...proposed, releaseId } as JsonValue },
        }),
      );
    const outcomes = await Promise.all([decide(BLURAY_1080), decide('rel-693134-2'), decide(BLURAY_1080)]);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    const approval = await t.host.approvals.get(a.id);
    const plan = await t.host.plans.get(p.id);
    expect(plan.revision).toBe(2);
    expect(approval.payloadHash).toBe(plan.payloadHash);
    expect(approval.approvedPayload).toEqual(plan.payload);
    const r = await t.host.invoke('download.submit', { planId: p.id }, { ...bob, approvalId: a.id });
    expect(r.status).toBe('pending');
    expect(t.world.downloads()[0]?.releaseId).toBe((plan.payload as { releaseId: string }).releaseId);
  });

  it('a decide with edits racing an execution by the approval: the original never executes after the edit', async () => {
    h = await makeTrialHost();
    const t = h;
    const p = await downloadPlan(t, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    const a = await askedFor(t, p.id);
    const proposed = a.proposedPayload as Record<string, unknown>;
    const [decided, executed] = await Promise.all([
      code(
        t.host.approvals.decide(a.id, {
          status: 'approved',
          ...admin,
          payloadHash: a.payloadHash,
          edits: { payload: { ...proposed, releaseId: BLURAY_1080 } as JsonValue },
        }),
      ),
      t.host.invoke('download.submit', { planId: p.id }, { ...bob, approvalId: a.id }),
    ]);
    expect(decided).toBe('ok');
    if (executed.status === 'pending') expect(t.world.downloads()[0]?.releaseId).toBe(BLURAY_1080);
    else expect(t.world.downloads()).toEqual([]);
  });

  it('edits with odd payloads are refused with a typed code and change nothing (huge, __proto__, constructor, bigint, Date)', async () => {
    h = await makeTrialHost();
    const t = h;
    const p = await downloadPlan(t, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    const a = await askedFor(t, p.id);
    const proposed = a.proposedPayload as Record<string, unknown>;
    const payloads: Record<string, unknown> = {
      huge: { ...proposed, title: 'x'.repeat(5_000_000) },
      proto: JSON.parse(`{"__proto__":{"admin":true},${JSON.stringify(proposed).slice(1)}`),
      ctor: { ...proposed, constructor: { prototype: { polluted: true } } },
      bigint: { ...proposed, sizeBytes: 10n },
      date: { ...proposed, title: new Date(0) },
    };
    const results: Record<string, string> = {};
    const before = snapshot(t.world);
    for (const [name, payload] of Object.entries(payloads)) {
      results[name] = await code(
        t.host.approvals.decide(a.id, {
          status: 'approved',
          ...admin,
          payloadHash: a.payloadHash,
          edits: { payload: payload as JsonValue },
        }),
      );
      if (results[name] === 'ok') break;
    }
    for (const [name, c] of Object.entries(results))
      expect(c, name).toMatch(/^(APPROVAL_EDIT_INVALID|PLAN_TOO_LARGE|REQUEST_INVALID|CANONICAL_JSON_INVALID)$/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect((await t.host.approvals.get(a.id)).status).toBe('requested');
    expect((await t.host.plans.get(p.id)).revision).toBe(1);
    expect(snapshot(t.world)).toBe(before);
  });

  it('an edit nested 20 000 deep (40 KB of JSON, under the HTTP body limit) is refused with a typed code, not a RangeError', async () => {
    h = await makeTrialHost();
    const t = h;
    const p = await downloadPlan(t, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    const a = await askedFor(t, p.id);
    const proposed = a.proposedPayload as Record<string, unknown>;
    let deep: JsonValue = 'x';
    for (let i = 0; i < 20_000; i++) deep = [deep];
    for (const payload of [
      { ...proposed, nested: deep },
      { ...proposed, title: deep },
    ]) {
      const c = await code(
        t.host.approvals.decide(a.id, {
          status: 'approved',
          ...admin,
          payloadHash: a.payloadHash,
          edits: { payload: payload as JsonValue },
        }),
      );
      expect(c).toMatch(/^(APPROVAL_EDIT_INVALID|PLAN_TOO_LARGE|REQUEST_INVALID)$/);
    }
    expect((await t.host.approvals.get(a.id)).status).toBe('requested');
    expect((await t.host.audit({ action: 'approval.refused' as never, limit: 10 })).length).toBe(2);
  });

  it('an edit with unicode (lone surrogates, NUL, emoji) in an informational field round-trips through SQLite and executes', async () => {
    h = await makeTrialHost();
    const t = h;
    const p = await downloadPlan(t, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    const a = await askedFor(t, p.id);
    const proposed = a.proposedPayload as Record<string, unknown>;
    const title = 'Dune \u0000 \ud800 ☃ 𝔘 \u202e';
    const decided = await t.host.approvals.decide(a.id, {
      status: 'approved',
      ...admin,
      payloadHash: a.payloadHash,
      edits: { payload: { ...proposed, title, releaseId: BLURAY_1080 } as JsonValue },
    });
    expect((decided.approvedPayload as { title: string }).title).toBe(title);
    expect(((await t.host.approvals.get(a.id)).approvedPayload as { title: string }).title).toBe(title);
    expect(((await t.host.plans.get(p.id)).payload as { title: string }).title).toBe(title);
    const r = await t.host.invoke('download.submit', { planId: p.id }, { ...bob, approvalId: a.id });
    expect(r.status, JSON.stringify(r.error)).toBe('pending');
  });

  it('a refused decision is audited approval.refused with its code; reject with edits is refused', async () => {
    h = await makeTrialHost();
    const t = h;
    const p = await downloadPlan(t, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    const a = await askedFor(t, p.id);
    const proposed = a.proposedPayload as Record<string, unknown>;
    const tries = [
      t.host.approvals.decide(a.id, { status: 'rejected', ...admin, edits: { payload: proposed as JsonValue } }),
      t.host.approvals.decide(a.id, {
        status: 'approved',
        ...admin,
        payloadHash: a.payloadHash,
        edits: { payload: proposed as JsonValue, capabilityId: 'organize.execute' },
      }),
      t.host.approvals.decide(a.id, { status: 'approved', actor: 'apikey:kitchen', payloadHash: a.payloadHash }),
      t.host.approvals.decide(a.id, { status: 'approved', ...bob, payloadHash: a.payloadHash }),
    ];
    const codes = [];
    for (const p2 of tries) codes.push(await code(p2));
    expect(codes).toEqual(['REQUEST_INVALID', 'APPROVAL_EDIT_WRONG_CAPABILITY', 'ADMIN_FORBIDDEN', 'ADMIN_FORBIDDEN']);
    const refused = await t.host.audit({ action: 'approval.refused' as never, limit: 100 });
    expect(refused.map((r) => r.reason?.split(':')[0]).sort()).toEqual([...codes].sort());
    expect((await t.host.approvals.get(a.id)).status).toBe('requested');
  });
});
