/** Conformance cases for approvals (`storage.approvals`). */
import assert from 'node:assert/strict';
import { approval, UNICODE } from './fixtures';
import { type ConformanceCase, ids } from './helpers';

/** Registers the approval cases: round trip, compare-and-set on the status, filtered listing. */
export function approvalsCases(test: ConformanceCase): void {
  test('approvals round-trip every field (nulls, unicode)', async (s) => {
    const bare = approval({ id: 'appr-bare' });
    const full = approval({
      id: 'appr-full',
      planType: 'organize',
      planId: `plan-${UNICODE}`,
      payloadHash: 'f'.repeat(64),
      revision: 7,
      status: 'consumed',
      requestedBy: 'api-key:k',
      reason: UNICODE,
      decidedBy: 'console:admin',
      decidedAt: 1_700_000_000_500,
      consumedBy: 'inv-9',
      consumedAt: 1_700_000_000_600,
    });
    await s.approvals.insert(bare);
    await s.approvals.insert(full);
    assert.deepEqual(await s.approvals.get('appr-bare'), bare);
    assert.deepEqual(await s.approvals.get('appr-full'), full);
    assert.equal(await s.approvals.get('missing'), undefined);
  });

  test('approvals compareAndSet applies only on the expected status; list filters by status and plan, newest first, with limit', async (s) => {
    await s.approvals.insert(approval({ id: 'a1', requestedAt: 1, planId: 'p1' }));
    await s.approvals.insert(approval({ id: 'a2', requestedAt: 3, planId: 'p1' }));
    await s.approvals.insert(approval({ id: 'a3', requestedAt: 2, planId: 'p2' }));
    await s.approvals.insert(approval({ id: 'a0', requestedAt: 3, planId: 'p2' }));
    const decide = { status: 'approved' as const, decidedBy: 'console:admin', decidedAt: 10 };
    assert.equal(await s.approvals.compareAndSet('a1', 'approved', { status: 'consumed' }), false);
    assert.equal(await s.approvals.compareAndSet('missing', 'requested', decide), false);
    assert.equal(await s.approvals.compareAndSet('a1', 'requested', decide), true);
    assert.equal(await s.approvals.compareAndSet('a1', 'requested', { status: 'rejected' }), false);
    assert.deepEqual(await s.approvals.get('a1'), approval({ id: 'a1', requestedAt: 1, planId: 'p1', ...decide }));
    assert.equal(
      await s.approvals.compareAndSet('a1', 'approved', {
        status: 'consumed',
        consumedBy: 'inv-1',
        consumedAt: 11,
        id: 'x',
      }),
      true,
    );
    assert.equal((await s.approvals.get('a1'))?.status, 'consumed');
    assert.equal(await s.approvals.get('x'), undefined);
    assert.deepEqual(ids(await s.approvals.list()), ['a2', 'a0', 'a3', 'a1']);
    assert.deepEqual(ids(await s.approvals.list({ status: 'requested' })), ['a2', 'a0', 'a3']);
    assert.deepEqual(ids(await s.approvals.list({ planId: 'p2' })), ['a0', 'a3']);
    assert.deepEqual(ids(await s.approvals.list({ status: 'consumed', planId: 'p1' })), ['a1']);
    assert.deepEqual(ids(await s.approvals.list({ limit: 2 })), ['a2', 'a0']);
  });
}
