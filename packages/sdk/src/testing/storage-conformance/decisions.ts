/** Conformance cases for decisions (`storage.decisions`). */
import assert from 'node:assert/strict';
import type { DecisionRecord } from '../../core/run-records';
import { decision, UNICODE } from './fixtures';
import { type ConformanceCase, ids, rolledBack } from './helpers';

/** Registers the decision cases: round trip, dedupe keys, compare-and-set on the revision, filtered listing. */
export function decisionsCases(test: ConformanceCase): void {
  test('decisions round-trip every field; insert returns false on an existing dedupeKey and keeps the original; list is newest first by status and subject', async (s) => {
    const full = decision({
      id: 'd-full',
      dedupeKey: `agent_budget:${UNICODE}`,
      subjectId: UNICODE,
      status: 'resolved',
      reason: UNICODE,
      evidence: { budget: 'maxCostUsdPerRun', limit: 0.5, used: 0.75, notes: [UNICODE, null] },
      subjectType: 'download',
      rootCause: `download_failed:${UNICODE}`,
      options: [
        { id: 'recheck', label: UNICODE, capabilityId: 'download.recheck', input: { downloadId: UNICODE } },
        { id: 'ignore', label: 'Ignore' },
      ],
      raisedBy: 'system:watch',
      resolvedBy: 'user:admin',
      resolution: {
        optionId: 'recheck',
        note: UNICODE,
        execution: { kind: 'capability', capabilityId: 'download.recheck', status: 'succeeded' },
      },
      revision: 3,
      createdAt: 30,
      updatedAt: 35,
      resolvedAt: 40,
    });
    const d1 = decision({ id: 'd1', createdAt: 10 });
    const d2 = decision({ id: 'd2', dedupeKey: 'agent_budget:run-2', subjectId: 'run-2', createdAt: 20 });
    assert.equal(await s.decisions.insert(full), true);
    assert.equal(await s.decisions.insert(d1), true);
    assert.equal(await s.decisions.insert(d2), true);
    assert.equal(await s.decisions.insert(decision({ id: 'd-dup', reason: 'second', createdAt: 99 })), false);
    assert.deepEqual(await s.decisions.list(), [full, d2, d1]);
    assert.deepEqual(ids(await s.decisions.list({ status: 'open' })), ['d2', 'd1']);
    assert.deepEqual(ids(await s.decisions.list({ subjectId: 'run-1' })), ['d1']);
    assert.deepEqual(ids(await s.decisions.list({ status: 'resolved', subjectId: UNICODE })), ['d-full']);
    assert.deepEqual(await s.decisions.list({ subjectId: 'nobody' }), []);
    assert.deepEqual(await s.decisions.get('d-full'), full);
    assert.deepEqual(await s.decisions.getByKey(`agent_budget:${UNICODE}`), full);
    assert.equal(await s.decisions.get('missing'), undefined);
    assert.equal(await s.decisions.getByKey('missing'), undefined);
  });

  test('decisions change by compare-and-set on the revision; the dedupe key never changes; list filters by kind and root cause', async (s) => {
    const d1 = decision({
      id: 'd1',
      kind: 'download_failed',
      dedupeKey: 'df:1',
      rootCause: 'download_failed:dl-1',
    });
    const d2 = decision({
      id: 'd2',
      kind: 'download_failed',
      dedupeKey: 'df:2',
      rootCause: 'download_failed:dl-1',
      createdAt: 20,
    });
    const d3 = decision({
      id: 'd3',
      kind: 'download_stalled',
      dedupeKey: 'ds:1',
      rootCause: 'download_stalled:dl-2',
      createdAt: 30,
    });
    for (const d of [d1, d2, d3]) assert.equal(await s.decisions.insert(d), true);
    const changed: DecisionRecord = {
      ...d1,
      dedupeKey: 'ignored',
      status: 'awaiting_user',
      evidence: { agentInvestigation: { conclusion: UNICODE } },
      revision: 2,
      updatedAt: 50,
    };
    assert.equal(await s.decisions.update(changed, 1), true);
    assert.deepEqual(await s.decisions.get('d1'), { ...changed, dedupeKey: 'df:1' });
    // A writer that read revision 1 loses: nothing changes.
    assert.equal(await s.decisions.update({ ...d1, status: 'dismissed', revision: 2 }, 1), false);
    assert.equal((await s.decisions.get('d1'))?.status, 'awaiting_user');
    assert.equal(await s.decisions.update({ ...d1, id: 'missing', revision: 2 }, 1), false);
    assert.deepEqual(ids(await s.decisions.list({ rootCause: 'download_failed:dl-1' })), ['d2', 'd1']);
    assert.deepEqual(ids(await s.decisions.list({ kind: 'download_stalled' })), ['d3']);
    assert.deepEqual(ids(await s.decisions.list({ kind: 'download_failed', status: 'awaiting_user' })), ['d1']);
    // A rolled-back change leaves the stored revision.
    await rolledBack(s, async (tx) => {
      assert.equal(await tx.decisions.update({ ...d2, status: 'resolved', revision: 2 }, 1), true);
    });
    assert.deepEqual(await s.decisions.get('d2'), d2);
  });
}
