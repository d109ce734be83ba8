/** Conformance cases for `appendAuditBatched`: audit rows written in batches beside the adapter's transactions. */
import assert from 'node:assert/strict';
import { auditRow, UNICODE } from './fixtures';
import { type ConformanceCase, ids, rejectsWithCode, rolledBack } from './helpers';

/** Registers the batched audit cases: order with other rows, independence from transactions, `close()`. */
export function auditBatchingCases(test: ConformanceCase): void {
  test('appendAuditBatched rows keep call order with other audit rows, are listed by audit.list on the adapter at once, and resolve once stored', async (s) => {
    const first = s.appendAuditBatched(auditRow({ id: 'batched-1', inputSummary: UNICODE }));
    await s.audit.append(auditRow({ id: 'direct-1' }));
    const second = s.appendAuditBatched(auditRow({ id: 'batched-2', action: 'capability.denied', outcome: 'denied' }));
    const third = s.appendAuditBatched(auditRow({ id: 'batched-3' }));
    await s.transaction(async (tx) => {
      await tx.audit.append(auditRow({ id: 'in-tx' }));
    });
    const fourth = s.appendAuditBatched(auditRow({ id: 'batched-4' }));
    const listed = await s.audit.list();
    assert.deepEqual(ids(listed), ['batched-1', 'direct-1', 'batched-2', 'batched-3', 'in-tx', 'batched-4']);
    for (let i = 1; i < listed.length; i++) assert.ok(listed[i]!.seq > listed[i - 1]!.seq, 'seq must increase');
    const { prevHash, hash, ...content } = listed[0]!;
    assert.deepEqual(content, { ...auditRow({ id: 'batched-1', inputSummary: UNICODE }), seq: listed[0]!.seq });
    assert.equal(typeof prevHash, 'string');
    assert.equal(typeof hash, 'string');
    assert.equal(listed[2]!.action, 'capability.denied');
    assert.deepEqual(await Promise.all([first, second, third, fourth]), [undefined, undefined, undefined, undefined]);
  });

  test("appendAuditBatched rows pending while a transaction throws are kept; only that transaction's rows are rolled back", async (s) => {
    const batched = s.appendAuditBatched(auditRow({ id: 'batched-1' }));
    await rolledBack(s, async (tx) => {
      await tx.audit.append(auditRow({ id: 'rolled-back' }));
    });
    const after = s.appendAuditBatched(auditRow({ id: 'batched-2' }));
    await Promise.all([batched, after]);
    assert.deepEqual(ids(await s.audit.list()), ['batched-1', 'batched-2']);
  });

  test('appendAuditBatched: rows appended before close() are stored (their promises resolve); afterwards it rejects with STORAGE_CLOSED', async (s) => {
    const rows = Array.from({ length: 300 }, (_, i) =>
      s.appendAuditBatched(auditRow({ id: `batched-${i}`, invocationId: `inv-${i % 7}` })),
    );
    const listed = await s.audit.list({ invocationId: 'inv-3', limit: 1000 });
    assert.deepEqual(
      ids(listed),
      Array.from({ length: 300 }, (_, i) => i)
        .filter((i) => i % 7 === 3)
        .map((i) => `batched-${i}`),
    );
    const last = s.appendAuditBatched(auditRow({ id: 'last' }));
    await s.close();
    await Promise.all([...rows, last]);
    await rejectsWithCode(s.appendAuditBatched(auditRow({ id: 'after-close' })), 'STORAGE_CLOSED');
    await rejectsWithCode(s.grantUsage.get('g', 0), 'STORAGE_CLOSED');
  });
}
