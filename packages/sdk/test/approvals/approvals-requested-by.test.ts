// Attacks on ApprovalListFilter.requestedBy and the run's end reading a run's approvals once.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHost } from '../../src/index';
import { MediaAgentError } from '../../src/index';
import type { ApprovalListFilter } from '../../src/storage';
import { MemoryStorage } from '../../src/storage';
import { createSqliteStorage } from '../../src/sqlite';
import { approval } from '../../src/testing/storage-conformance/fixtures';
import { runEvents, waitForStatus } from '../runtime/harness';
import { approvalHost, until } from './approval-host';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

/** A memory store whose approvals list predates `requestedBy`: it drops the field and lists everything else. */
function storeIgnoringRequestedBy(): { storage: MemoryStorage; seen: ApprovalListFilter[] } {
  const storage = new MemoryStorage();
  const seen: ApprovalListFilter[] = [];
  const list = storage.approvals.list.bind(storage.approvals);
  storage.approvals.list = async (filter?: ApprovalListFilter) => {
    seen.push({ ...filter });
    const { requestedBy: _dropped, ...older } = filter ?? {};
    return list(older);
  };
  return { storage, seen };
}

describe('host.approvals.list: requestedBy is checked', () => {
  it('a requestedBy that is not a string is a typed REQUEST_INVALID, not an empty list', async () => {
    const { host } = await approvalHost();
    hosts.push(host);
    for (const bad of [123, null, { id: 'x' }, ['agent:r']]) {
      const error = await host.approvals.list({ requestedBy: bad as never }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, `requestedBy ${JSON.stringify(bad)}`).toBeInstanceOf(MediaAgentError);
      expect((error as MediaAgentError).code).toBe('REQUEST_INVALID');
    }
    // A string that names no requester is a valid filter: nothing, not an error.
    expect(await host.approvals.list({ requestedBy: 'agent:no-such-run' })).toEqual([]);
  });

  it('requestedBy matches exactly on memory and SQLite: agent:run-1 does not list agent:run-10’s approvals', async () => {
    for (const s of [new MemoryStorage(), createSqliteStorage({ path: ':memory:' })]) {
      await s.migrate();
      await s.approvals.insert(approval({ id: 'a1', requestedBy: 'agent:run-1', requestedAt: 1 }));
      await s.approvals.insert(approval({ id: 'a10', requestedBy: 'agent:run-10', requestedAt: 2 }));
      await s.approvals.insert(approval({ id: 'A1', requestedBy: 'AGENT:RUN-1', requestedAt: 3 }));
      expect((await s.approvals.list({ requestedBy: 'agent:run-1' })).map((a) => a.id)).toEqual(['a1']);
      expect((await s.approvals.list({ requestedBy: 'agent:run-%' })).map((a) => a.id)).toEqual([]);
      await s.close?.();
    }
  });
});

describe('a run’s end on a storage adapter that ignores requestedBy', () => {
  it('another run’s decided approval neither wakes nor is told to this run; its own decision still wakes it', async () => {
    const { storage, seen } = storeIgnoringRequestedBy();
    const { host, clock, world } = await approvalHost(storage);
    hosts.push(host);
    // Another run's approval, already decided: an adapter that ignores the filter returns it too.
    await storage.approvals.insert(
      approval({
        id: 'foreign',
        requestedBy: 'agent:some-other-run',
        status: 'approved',
        requestedAt: clock.now(),
        decidedAt: clock.now(),
        decidedBy: 'user:admin',
        expiresAt: clock.now() + 86_400_000,
      }),
    );
    const run = await host.startRun({ goal: 'Add Dune', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['waiting']);
    // It waits for its own approval: the foreign decided one did not send it back to the model.
    const before = await runEvents(host, run.id);
    expect(before.filter((e) => e.type === 'approval_decided')).toEqual([]);
    expect((await host.getRun(run.id)).run.step).toBe('goal_settled');
    expect(seen.some((f) => f.requestedBy === `agent:${run.id}`)).toBe(true);
    const asked = before.find((e) => e.type === 'approval_requested')!.data as {
      approvalId: string;
      payloadHash: string;
    };
    await host.approvals.decide(asked.approvalId, {
      status: 'approved',
      actor: 'user:admin',
      payloadHash: asked.payloadHash,
    });
    // Woken at once by its own decision (no clock advance), told only about its own approval, and it executes.
    expect(await until(() => world.jobs.length === 1)).toBe(true);
    const after = await runEvents(host, run.id);
    expect(
      after.filter((e) => e.type === 'approval_decided').map((e) => (e.data as { approvalId: string }).approvalId),
    ).toEqual([asked.approvalId]);
  });
});
