// Trial of dry runs (docs/approvals.md#dry-runs) on the sandbox world and a real SQLite file.
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { defineCapability } from '../../src/index';
import type { StandardOutput } from '../../src/media';
import {
  admin,
  completedDownload,
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

const OPPENHEIMER = { mediaSource: 'tmdb', mediaId: '872585' } as const;
const tables = ['ledger', 'plans', 'approvals', 'policies', 'grant_usage'];
const counts = (t: TrialHost) => Object.fromEntries(tables.map((n) => [n, t.count(n)]));

describe('trial: dry runs of every standard side effect of the sandbox change nothing', () => {
  it('download.plan/submit, organize.plan/execute, task.cancel, policy.apply, the inverses: world, ledger, plans, approvals untouched; audited', async () => {
    h = await makeTrialHost();
    const t = h;
    const job = await completedDownload(t);
    const op = await t.host.invoke('organize.plan', { downloadId: job.id }, admin);
    expect(op.status).toBe('succeeded');
    const organizePlan = (op.output as StandardOutput<'organize.plan'>).plan;
    const p2 = await downloadPlan(t, { ...OPPENHEIMER, kind: 'movie', releaseId: 'rel-872585-1' });
    const cases: [string, Record<string, unknown>][] = [
      ['download.plan', { ...OPPENHEIMER, kind: 'movie', releaseId: 'rel-872585-1' }],
      ['download.submit', { planId: p2.id }],
      ['organize.plan', { downloadId: job.id }],
      ['organize.execute', { planId: organizePlan.id }],
      ['task.cancel', { taskId: job.id }],
      ['policy.apply', { kind: 'acquisition', settings: { minResolution: '2160p' } }],
      ['task.restore', { taskId: job.id }],
      ['organize.revert', { organizeId: 'org-x' }],
    ];
    for (const actor of ['user:admin', 'user:bob', 'apikey:kitchen'] as const) {
      for (const [id, input] of cases) {
        const before = snapshot(t.world);
        const rows = counts(t);
        const policy = JSON.stringify(await t.host.policies.get('acquisition').catch(() => null));
        const auditBefore = (await t.host.audit({ limit: 1000 })).length;
        const dry = await t.host.invoke(id, input, { actor, dryRun: true });
        expect(dry.status, `${actor} ${id}`).toBe('dry_run');
        expect(typeof dry.impact.summary, `${actor} ${id}`).toBe('string');
        expect(snapshot(t.world), `${actor} ${id} world`).toBe(before);
        expect(counts(t), `${actor} ${id} rows`).toEqual(rows);
        expect(JSON.stringify(await t.host.policies.get('acquisition').catch(() => null))).toBe(policy);
        const audit = await t.host.audit({ limit: 1000 });
        expect(audit.length - auditBefore, `${actor} ${id} audit rows`).toBe(1);
        expect(audit.at(-1)).toMatchObject({ action: 'capability.dry_run', invocationId: dry.invocationId });
      }
    }
  });

  it('the sandbox impacts of the standard capabilities are known (not "impact unknown") for a valid call', async () => {
    h = await makeTrialHost();
    const t = h;
    const job = await completedDownload(t);
    const op = await t.host.invoke('organize.plan', { downloadId: job.id }, admin);
    const organizePlan = (op.output as StandardOutput<'organize.plan'>).plan;
    const p = await downloadPlan(t, { ...OPPENHEIMER, kind: 'movie', releaseId: 'rel-872585-1' });
    const cases: [string, Record<string, unknown>][] = [
      ['download.plan', { ...OPPENHEIMER, kind: 'movie', releaseId: 'rel-872585-1' }],
      ['download.submit', { planId: p.id }],
      ['organize.plan', { downloadId: job.id }],
      ['organize.execute', { planId: organizePlan.id }],
      ['task.cancel', { taskId: job.id }],
      ['policy.apply', { kind: 'acquisition', settings: { minResolution: '2160p' } }],
    ];
    const unknown: string[] = [];
    for (const [id, input] of cases) {
      const dry = await t.host.invoke(id, input, { ...admin, dryRun: true });
      if (dry.impact.status !== 'known') unknown.push(`${id}: ${JSON.stringify(dry.impact)}`);
    }
    expect(unknown).toEqual([]);
  });

  it('a context with dryRun set to a non-boolean ("yes") never executes: it is refused or treated as a dry run', async () => {
    h = await makeTrialHost();
    const t = h;
    const p = await downloadPlan(t, { ...OPPENHEIMER, kind: 'movie', releaseId: 'rel-872585-1' });
    const before = snapshot(t.world);
    const ledger = t.count('ledger');
    // A JavaScript caller (or a host forwarding a query flag) passes a truthy string.
    const outcome = await t.host
      .invoke('download.submit', { planId: p.id }, { ...admin, dryRun: 'yes' as unknown as true })
      .then(
        (r) => r.status,
        (e: { code?: string }) => e.code,
      );
    expect(['dry_run', 'CONTEXT_INVALID']).toContain(outcome);
    expect(t.world.downloads()).toEqual([]);
    expect(snapshot(t.world)).toBe(before);
    expect(t.count('ledger')).toBe(ledger);
  });

  it("an ordinary user's dry run of an adminOnly capability (hidden from their capability list) does not reveal its impact", async () => {
    h = await makeTrialHost();
    const t = h;
    t.host.capabilities.register(
      defineCapability({
        id: 'vault.wipe',
        version: 1,
        title: 'Wipe',
        description: 'Administrators only.',
        kind: 'execute',
        replay: 'reconcile',
        adminOnly: true,
        input: Type.Object({}),
        output: Type.Object({}),
        impact: () => ({ reversible: false, deleteBytes: 1e12, path: '/volume1/private/admin' }),
        handler: async () => ({}),
      }),
    );
    const dry = await t.host.invoke('vault.wipe', {}, { actor: 'user:bob', dryRun: true });
    expect(dry.verdict).toMatchObject({ allowed: false, code: 'AUTH_ADMIN_ONLY' });
    expect(JSON.stringify(dry.impact)).not.toContain('/volume1/private/admin');
  });
});
