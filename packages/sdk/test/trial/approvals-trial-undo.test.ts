// Trial of undo through declared inverses (docs/approvals.md#undo) on the sandbox world, a real SQLite file and a
// host whose identity resolver makes only user:admin an administrator.
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { defineCapability } from '../../src/index';
import type { StandardOutput } from '../../src/media';
import { DUNE_2, REMUX, admin, downloadPlan, makeTrialHost, snapshot, type TrialHost } from './approvals-trial-helpers';

let h: TrialHost | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});
const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: { code?: string; name?: string; message?: string }) => e.code ?? `${e.name}: ${e.message?.slice(0, 80)}`,
  );

/** bob submits Dune: Part Two with an approval an administrator gave; returns the invocation id. */
async function bobSubmits(t: TrialHost) {
  const p = await downloadPlan(t, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
  const a = await t.host.approvals.request({
    planType: 'download',
    planId: p.id,
    actor: 'user:bob',
    capabilityId: 'download.submit',
  });
  await t.host.approvals.decide(a.id, { status: 'approved', ...admin, payloadHash: a.payloadHash });
  const r = await t.host.invoke('download.submit', { planId: p.id }, { actor: 'user:bob', approvalId: a.id });
  expect(r.status).toBe('pending');
  return { invocationId: r.invocationId, planId: p.id, job: (r.output as StandardOutput<'download.submit'>).download };
}

describe('trial: undo', () => {
  it("another ordinary user cannot undo bob's effect (UNDO_FORBIDDEN, audited undo.refused, nothing changes); an administrator can", async () => {
    h = await makeTrialHost();
    const t = h;
    const { invocationId } = await bobSubmits(t);
    const before = snapshot(t.world);
    const refused = await t.host.undo({ invocationId }, { actor: 'user:alice' }).then(
      () => 'ok',
      (e: { code?: string; details?: { performers?: string[] } }) => `${e.code} ${e.details?.performers?.join(',')}`,
    );
    expect(refused).toBe('UNDO_FORBIDDEN user:bob');
    expect(snapshot(t.world)).toBe(before);
    const rows = await t.host.audit({ action: 'undo.refused' as never, limit: 10 });
    expect(rows.map((r) => r.reason)).toEqual(['UNDO_FORBIDDEN']);
    const undo = await t.host.undo({ invocationId }, admin);
    expect(undo.status).toBe('undone');
    expect(t.world.quarantine()).toHaveLength(1);
  });

  it("an API key cannot undo an effect, not even its own; an ordinary user cannot undo an API key's effect", async () => {
    h = await makeTrialHost();
    const t = h;
    const p = await downloadPlan(t, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    await t.host.grants.create({ action: 'download.submit', actor: 'user:admin' } as never);
    const r = await t.host.invoke('download.submit', { planId: p.id }, { actor: 'apikey:kitchen' });
    expect(r.status, JSON.stringify(r.error)).toBe('pending');
    expect(await code(t.host.undo({ invocationId: r.invocationId }, { actor: 'user:bob' }))).toBe('UNDO_FORBIDDEN');
    expect(await code(t.host.undo({ invocationId: r.invocationId }, { actor: 'apikey:other' }))).toBe('UNDO_FORBIDDEN');
  });

  it('undoing the invocation id of a dry run finds nothing (UNDO_NOT_FOUND or nothing_to_undo) and changes nothing', async () => {
    h = await makeTrialHost();
    const t = h;
    const p = await downloadPlan(t, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    const dry = await t.host.invoke('download.submit', { planId: p.id }, { ...admin, dryRun: true });
    const before = snapshot(t.world);
    const outcome = await t.host.undo({ invocationId: dry.invocationId }, admin).then(
      (u) => u.status,
      (e: { code?: string }) => e.code,
    );
    expect(['UNDO_NOT_FOUND', 'nothing_to_undo']).toContain(outcome);
    expect(snapshot(t.world)).toBe(before);
  });

  it("a dry run sharing its run and call id with a real call: undoing the dry run's id does not undo the real call", async () => {
    h = await makeTrialHost();
    const t = h;
    const p = await downloadPlan(t, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    const ctx = { ...admin, taskId: 'task-1', callId: 'call-1' };
    const real = await t.host.invoke('download.submit', { planId: p.id }, ctx);
    expect(real.status).toBe('pending');
    const dry = await t.host.invoke('download.submit', { planId: p.id }, { ...ctx, dryRun: true });
    expect(dry.invocationId).not.toBe(real.invocationId);
    const outcome = await t.host.undo({ invocationId: dry.invocationId }, admin).then(
      (u) => u.status,
      (e: { code?: string }) => e.code,
    );
    expect(['UNDO_NOT_FOUND', 'nothing_to_undo']).toContain(outcome);
    expect(t.world.quarantine()).toEqual([]);
  });

  it('two undos of the same effect at once: the inverse runs once; one is undone, the other undone (replayed) or failed LEDGER_IN_PROGRESS', async () => {
    h = await makeTrialHost();
    const t = h;
    const { invocationId } = await bobSubmits(t);
    const [a, b] = await Promise.all([t.host.undo({ invocationId }, admin), t.host.undo({ invocationId }, admin)]);
    const summary = [a, b].map((u) => `${u.status}:${u.stoppedAt?.error?.code ?? ''}`).sort();
    expect(summary[1]).toBe('undone:');
    expect(['failed:LEDGER_IN_PROGRESS', 'undone:']).toContain(summary[0]);
    expect(t.world.quarantine()).toHaveLength(1);
    expect((await t.host.decisions()).filter((d) => d.kind === 'undo_failed')).toEqual([]);
    const third = await t.host.undo({ invocationId }, admin);
    expect(third.status).toBe('undone');
    expect(third.undone[0]?.result?.replayed).toBe(true);
  });

  it('bob undoing his own effect runs the inverse under his own authorization: denied without an approval or grant, nothing changes', async () => {
    h = await makeTrialHost();
    const t = h;
    const { invocationId } = await bobSubmits(t);
    const before = snapshot(t.world);
    const undo = await t.host.undo({ invocationId }, { actor: 'user:bob' });
    expect([undo.status, undo.stoppedAt?.error?.code]).toEqual(['denied', 'AUTH_NO_AUTHORIZATION']);
    expect(snapshot(t.world)).toBe(before);
  });

  it('an inverse that fails halfway stops the rest, lists what was not attempted and raises one undo_failed decision', async () => {
    h = await makeTrialHost();
    const t = h;
    const files = new Map<string, string>([
      ['a', 'A'],
      ['b', 'B'],
      ['c', 'C'],
    ]);
    const Moved = Type.Object({ from: Type.String(), to: Type.String() });
    const common = { version: 1, kind: 'execute', replay: 'reconcile', input: Moved, output: Moved } as const;
    const move = async (i: { from: string; to: string }) => {
      if (i.to === 'fail-me') throw new Error('disk full');
      files.set(i.to, files.get(i.from) ?? '');
      files.delete(i.from);
      return i;
    };
    t.host.capabilities.register(
      defineCapability({
        ...common,
        id: 'files.move',
        title: 'Move',
        description: 'Moves a file.',
        handler: move,
        inverse: {
          capability: 'files.restore',
          input: (o) => ({ from: o.to, to: o.to === 'b2' ? 'fail-me' : o.from }),
        },
      }),
    );
    t.host.capabilities.register(
      defineCapability({ ...common, id: 'files.restore', title: 'Restore', description: 'Undo.', handler: move }),
    );
    const ids: string[] = [];
    for (const [from, to] of [
      ['a', 'a2'],
      ['b', 'b2'],
      ['c', 'c2'],
    ] as const) {
      const r = await t.host.invoke('files.move', { from, to }, { ...admin, taskId: 'job-1', callId: from });
      expect(r.status).toBe('succeeded');
      ids.push(r.invocationId);
      t.clock.advance(1000);
    }
    // Undo each, newest first: c ok, b fails, then a.
    const c = await t.host.undo({ invocationId: ids[2]! }, admin);
    expect(c.status).toBe('undone');
    const b = await t.host.undo({ invocationId: ids[1]! }, admin);
    expect(b.status).toBe('failed');
    expect(b.decisionId).toBeDefined();
    const again = await t.host.undo({ invocationId: ids[1]! }, admin);
    expect(again.status).toBe('failed');
    const decisions = (await t.host.decisions()).filter((d) => d.kind === 'undo_failed');
    expect(decisions).toHaveLength(1);
  });
});
