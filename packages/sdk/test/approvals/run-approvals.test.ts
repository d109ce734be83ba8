import { describe, expect, it } from 'vitest';
import type { ApprovalRecord } from '../../src/core/records';
import { approvalsDecidedSince, runApprovals, stillOpen } from '../../src/runtime/loop/approvals';
import { MemoryStorage } from '../../src/storage';
import { approval } from '../../src/testing/storage-conformance/fixtures';

const a = (id: string, status: ApprovalRecord['status'], expiresAt = 1_000, requestedBy = 'agent:run-1') =>
  approval({ id, status, expiresAt, requestedBy });

describe('a run’s approvals, read once', () => {
  it('stillOpen keeps the requested approvals that have not expired', () => {
    const list = [a('open', 'requested', 2_000), a('expired', 'requested', 500), a('done', 'approved', 2_000)];
    expect(stillOpen(list, 1_000).map((x) => x.id)).toEqual(['open']);
    expect(stillOpen(list, 2_000)).toEqual([]);
  });

  it('runApprovals lists only what this run asked for, also when the storage ignores the requester filter', async () => {
    const ignoring = {
      approvals: { list: async () => [a('mine', 'requested'), a('theirs', 'requested', 1_000, 'agent:run-2')] },
    };
    expect((await runApprovals(ignoring as never, 'run-1')).map((x) => x.id)).toEqual(['mine']);
  });

  it('approvalsDecidedSince reads no events when nothing was decided, and leaves out decisions the run was told', async () => {
    const storage = new MemoryStorage();
    let reads = 0;
    const counting = {
      events: {
        listByRun: async (...args: Parameters<typeof storage.events.listByRun>) => {
          reads++;
          return storage.events.listByRun(...args);
        },
      },
    };
    expect(await approvalsDecidedSince({ storage: counting as never }, 'run-1', [a('open', 'requested')])).toEqual([]);
    expect(reads).toBe(0);
    await storage.events.append({ runId: 'run-1', type: 'approval_decided', at: 1, data: { approvalId: 'told' } });
    const decided = await approvalsDecidedSince({ storage: counting as never }, 'run-1', [
      a('told', 'approved'),
      a('new', 'rejected'),
      a('open', 'requested'),
    ]);
    expect(decided.map((x) => x.id)).toEqual(['new']);
    expect(reads).toBe(1);
  });
});
