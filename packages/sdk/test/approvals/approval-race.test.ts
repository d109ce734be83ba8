// An approval decided right after the goal-settled phase read the run's approvals (the run is still
// `running`, so the decision's wake finds nothing waiting). The run must not finalize past it: it waits, is made due at once, and the
// decision is told to the model, after which the plan executes.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHost } from '../../src/index';
import type { ApprovalRecord } from '../../src/core/records';
import type { ApprovalListFilter } from '../../src/storage';
import { MemoryStorage } from '../../src/storage';
import { runEvents, waitForStatus } from '../runtime/harness';
import { approvalHost, until } from './approval-host';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

describe('an approval decided between the goal-settled read and the run’s end', () => {
  // The kind of fwdai/fletch#413 (an approval landing while the previous drive was parking the run left it stuck).
  it('is not missed: the run waits, is told the decision, and executes the plan', async () => {
    const storage = new MemoryStorage();
    let decideNow: ((a: ApprovalRecord) => Promise<unknown>) | undefined;
    let fired: ApprovalRecord | undefined;
    const list = storage.approvals.list.bind(storage.approvals);
    storage.approvals.list = async (filter?: ApprovalListFilter) => {
      const result = await list(filter);
      // The first read of a run's approvals not by plan (the goal-settled phase's), once the run has asked:
      // decide the open approval right after the read returned, before the run acts on it.
      if (!fired && decideNow && filter?.planId === undefined) {
        const open = (await list({})).find((a) => a.status === 'requested' && a.requestedBy.startsWith('agent:'));
        if (open) {
          fired = open;
          await decideNow(open);
        }
      }
      return result;
    };
    const { host, clock, world } = await approvalHost(storage);
    hosts.push(host);
    decideNow = (a) =>
      host.approvals.decide(a.id, { status: 'approved', actor: 'user:admin', payloadHash: a.payloadHash });
    const run = await host.startRun({ goal: 'Add Dune', actor: 'user:admin' });
    // The run never ends before it was told: it waits (woken at once, or at the next poll).
    const settled = await waitForStatus(host, run.id, ['waiting', 'succeeded', 'failed']).catch((e: Error) => e);
    expect(fired, 'the injected decision ran').toBeDefined();
    expect(settled).toMatchObject({ status: expect.stringMatching(/waiting|running/) });
    if (world.jobs.length === 0 && (await host.getRun(run.id)).run.status === 'waiting') clock.advance(60_001);
    expect(await until(() => world.jobs.length === 1)).toBe(true);
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    const events = await runEvents(host, run.id);
    expect(
      events.filter((e) => e.type === 'approval_decided').map((e) => (e.data as { approvalId: string }).approvalId),
    ).toEqual([fired!.id]);
    expect((await host.approvals.get(fired!.id)).status).toBe('consumed');
    // It ended after the execution, with the download in its report (the tiny world's library check is not the point).
    expect(done.endedAt).not.toBeNull();
    expect((done.report as { facts: { downloads: Array<{ id: string }> } }).facts.downloads.map((d) => d.id)).toEqual([
      'job-1',
    ]);
  });

  // The kind of smithersai/smithers#242 (an approval recorded, but nothing resumed the run).
  it('wakes the run at once, as a decision does while it waits, not a goal poll (60 s) later', async () => {
    const storage = new MemoryStorage();
    let decideNow: ((a: ApprovalRecord) => Promise<unknown>) | undefined;
    let fired: ApprovalRecord | undefined;
    const list = storage.approvals.list.bind(storage.approvals);
    storage.approvals.list = async (filter?: ApprovalListFilter) => {
      const result = await list(filter);
      if (!fired && decideNow && filter?.planId === undefined) {
        const open = (await list({})).find((a) => a.status === 'requested' && a.requestedBy.startsWith('agent:'));
        if (open) {
          fired = open;
          await decideNow(open);
        }
      }
      return result;
    };
    const { host, world } = await approvalHost(storage);
    hosts.push(host);
    decideNow = (a) =>
      host.approvals.decide(a.id, { status: 'approved', actor: 'user:admin', payloadHash: a.payloadHash });
    const run = await host.startRun({ goal: 'Add Dune', actor: 'user:admin' });
    // The clock does not move: only a wake (not the goal poll) can bring the run back to the model.
    const executed = await until(() => world.jobs.length === 1, 2_000);
    const { run: now } = await host.getRun(run.id);
    expect(fired, 'the injected decision ran').toBeDefined();
    expect(
      executed,
      `decided at the goal-settled read; run is ${now.status}/${now.step}, notBefore in ${
        now.notBefore === null ? 'null' : `${(now.notBefore - Date.UTC(2026, 10, 30, 12)) / 1000} s`
      }`,
    ).toBe(true);
  });
});
