/** Conformance cases for approvals (`storage.approvals`). */
import assert from 'node:assert/strict';
import type { ImpactReport } from '../../core/impact';
import type { ApprovalRecord } from '../../core/records';
import { approval, UNICODE } from './fixtures';
import { type ConformanceCase, ids } from './helpers';

/** A known impact with every field filled in, nested objects and arrays, a negative and a large number, unicode. */
const KNOWN_IMPACT: ImpactReport = {
  status: 'known',
  impact: {
    downloadBytes: 58_200_000_000,
    writeBytes: 0,
    deleteBytes: 1e18,
    filesCreated: 3,
    filesMoved: 0,
    filesOverwritten: 1,
    filesDeleted: 2,
    path: `/media/${UNICODE}`,
    freeBytesBefore: 470_000_000_000,
    freeBytesAfter: -1_500_000,
    quota: { name: 'disk', used: 0.75, limit: 1, unit: 'TB' },
    reversible: false,
    reversibleBy: 'quarantine',
    quarantineDays: 30,
    transferMode: 'hardlink',
    estimatedDurationMs: 2 ** 53 - 1,
    steps: [
      { id: 'f1', label: UNICODE, bytes: 1 },
      { id: 'f2', label: '' },
    ],
    notes: [UNICODE, ''],
  },
  summary: `downloads 58.2 GB to /media/${UNICODE}`,
};

/** An approval with every field of schema 12 set: two steps (one approved), proposed, approved and executed payloads. */
function trusted(overrides: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return structuredClone(
    approval({
      id: 'appr-trusted',
      capabilityId: 'organize.execute',
      impact: KNOWN_IMPACT,
      steps: [
        { id: 'f1', hash: 'a'.repeat(64), label: UNICODE },
        { id: `f-${UNICODE}`, hash: 'b'.repeat(64), label: 'second' },
      ],
      approvedSteps: ['f1'],
      proposedPayload: {
        steps: [{ id: 'f1', to: `/media/${UNICODE}` }, { id: `f-${UNICODE}` }],
        nested: { a: [1, null, true, { b: {} }] },
        empty: [],
      },
      proposedPayloadHash: 'c'.repeat(64),
      approvedPayload: { steps: [{ id: 'f1', to: '/media/edited' }], token: 'not-a-secret', n: 2 ** 53 - 1 },
      payloadHash: 'd'.repeat(64),
      revision: 2,
      executedPayloadHash: 'd'.repeat(64),
      ...overrides,
    }),
  );
}

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

  test('approvals list filters by requester (requestedBy), alone and with status, newest first', async (s) => {
    await s.approvals.insert(approval({ id: 'r1', requestedAt: 1, requestedBy: 'agent:run-a' }));
    await s.approvals.insert(approval({ id: 'r2', requestedAt: 2, requestedBy: 'agent:run-b' }));
    await s.approvals.insert(approval({ id: 'r3', requestedAt: 3, requestedBy: 'agent:run-a' }));
    assert.equal(await s.approvals.compareAndSet('r1', 'requested', { status: 'rejected', decidedAt: 4 }), true);
    assert.deepEqual(ids(await s.approvals.list({ requestedBy: 'agent:run-a' })), ['r3', 'r1']);
    assert.deepEqual(ids(await s.approvals.list({ requestedBy: 'agent:run-a', status: 'requested' })), ['r3']);
    assert.deepEqual(ids(await s.approvals.list({ requestedBy: 'agent:run-b', limit: 5 })), ['r2']);
    assert.deepEqual(ids(await s.approvals.list({ requestedBy: 'agent:run-c' })), []);
  });

  test('approvals round-trip the fields of schema 12 (capability, impact, steps, payloads; null, empty, nested, unicode)', async (s) => {
    const cases: ApprovalRecord[] = [
      trusted(),
      // The defaults of an approval asked for directly (and of a row migrated from schema 11).
      approval({ id: 'appr-direct', proposedPayloadHash: 'ph-1' }),
      // An unknown impact, the whole plan approved, an empty step list approved, scalar payloads.
      trusted({
        id: 'appr-unknown',
        impact: { status: 'unknown', code: 'IMPACT_TIMEOUT', reason: UNICODE, summary: 'impact unknown' },
        approvedSteps: [],
        proposedPayload: UNICODE,
        approvedPayload: 0,
        executedPayloadHash: null,
      }),
      trusted({ id: 'appr-whole', approvedSteps: null, proposedPayload: [], approvedPayload: false, steps: [] }),
      trusted({ id: 'appr-empty', proposedPayload: {}, approvedPayload: null, impact: null }),
    ];
    for (const record of cases) await s.approvals.insert(record);
    for (const record of cases) assert.deepEqual(await s.approvals.get(record.id), record, record.id);
    const listed = await s.approvals.list();
    for (const record of cases)
      assert.deepEqual(
        listed.find((r) => r.id === record.id),
        record,
        `${record.id} in list()`,
      );
  });

  test('approvals compareAndSet writes the fields of schema 12: a decision with edits and steps, then consumption', async (s) => {
    const requested = trusted({
      id: 'appr-cas',
      approvedSteps: null,
      approvedPayload: null,
      executedPayloadHash: null,
      impact: null,
      payloadHash: 'c'.repeat(64),
      revision: 1,
    });
    await s.approvals.insert(requested);
    const edited: Partial<ApprovalRecord> = {
      status: 'approved',
      decidedBy: 'user:admin',
      decidedAt: 10,
      payloadHash: 'e'.repeat(64),
      revision: 2,
      approvedSteps: [`f-${UNICODE}`],
      approvedPayload: { steps: [{ id: `f-${UNICODE}`, to: `/media/${UNICODE}` }], deep: { x: [[], {}] } },
      steps: [{ id: `f-${UNICODE}`, hash: 'f'.repeat(64), label: UNICODE }],
      impact: KNOWN_IMPACT,
    };
    assert.equal(await s.approvals.compareAndSet('appr-cas', 'requested', edited), true);
    const decided = { ...requested, ...edited };
    assert.deepEqual(await s.approvals.get('appr-cas'), decided);
    const consumed = {
      status: 'consumed' as const,
      consumedBy: 'inv-1',
      consumedAt: 11,
      executedPayloadHash: 'e'.repeat(64),
    };
    assert.equal(await s.approvals.compareAndSet('appr-cas', 'approved', consumed), true);
    assert.deepEqual(await s.approvals.get('appr-cas'), { ...decided, ...consumed });
    // A failed execution gives the approval back: null clears what consumption wrote; the proposal stays.
    const restored = { status: 'approved' as const, consumedBy: null, consumedAt: null, executedPayloadHash: null };
    assert.equal(await s.approvals.compareAndSet('appr-cas', 'consumed', restored), true);
    assert.deepEqual(await s.approvals.get('appr-cas'), { ...decided, ...restored });
    // Clearing the JSON fields back to null and [] is stored too.
    const cleared = { approvedSteps: null, approvedPayload: null, impact: null, steps: [] };
    assert.equal(await s.approvals.compareAndSet('appr-cas', 'approved', cleared), true);
    assert.deepEqual(await s.approvals.get('appr-cas'), { ...decided, ...restored, ...cleared });
  });

  test('approvals keep copies of their JSON fields: mutating an inserted, patched or returned value changes nothing', async (s) => {
    const record = trusted({ id: 'appr-copy' });
    await s.approvals.insert(record);
    (record.proposedPayload as { nested: { a: unknown[] } }).nested.a.push('x');
    record.steps[0]!.label = 'changed';
    (record.impact as { impact: { notes: string[] } }).impact.notes.push('x');
    const read = await s.approvals.get('appr-copy');
    assert.deepEqual(read, trusted({ id: 'appr-copy' }));
    read!.approvedSteps!.push('f2');
    (read!.approvedPayload as { n: number }).n = 1;
    (read!.impact as { impact: { quota: { used: number } } }).impact.quota.used = 2;
    assert.deepEqual(await s.approvals.get('appr-copy'), trusted({ id: 'appr-copy' }));
    const patch = { approvedSteps: ['f1'], approvedPayload: { k: ['v'] } };
    assert.equal(await s.approvals.compareAndSet('appr-copy', 'requested', patch), true);
    patch.approvedSteps.push('f2');
    patch.approvedPayload.k.push('w');
    const again = await s.approvals.get('appr-copy');
    assert.deepEqual(again?.approvedSteps, ['f1']);
    assert.deepEqual(again?.approvedPayload, { k: ['v'] });
  });
}
