/** Conformance cases for the audit trail (`storage.audit`). */
import assert from 'node:assert/strict';
import { AUDIT_GENESIS_HASH, auditRowHash } from '../../core/audit-chain';
import { verifyAuditChain } from '../../core/audit-verify';
import type { AuditRecord } from '../../core/records';
import { auditRow, UNICODE } from './fixtures';
import { type ConformanceCase, ids, rolledBack } from './helpers';

/** `record` as the store returns it after appending it at `seq` behind `prevHash`. */
function chained(record: AuditRecord, seq: number, prevHash: string): AuditRecord {
  return { ...record, seq, prevHash, hash: auditRowHash(prevHash, record) };
}

/** Registers the audit cases: round trip with a storage-assigned seq and chain hashes, paging, filters, the chain. */
export function auditCases(test: ConformanceCase): void {
  test('audit rows round-trip every field (nulls, unicode) with a storage-assigned seq', async (s) => {
    const full = auditRow({
      id: 'audit-full',
      action: 'capability.denied',
      actor: 'automation:grant-1',
      capabilityId: 'media.download',
      invocationId: 'inv-7',
      runId: 'run-1',
      taskId: 'task-1',
      outcome: 'denied',
      approvalId: 'appr-1',
      grantId: 'grant-1',
      idempotencyKey: 'media.download:v1:run-1:abc',
      inputSummary: JSON.stringify({ title: UNICODE, apiKey: '[redacted]' }),
      reason: UNICODE,
    });
    const bare = auditRow({ id: 'audit-bare' });
    const storedFull = await s.audit.append(full);
    const storedBare = await s.audit.append(bare);
    assert.ok(storedFull.seq > 0);
    assert.deepEqual(storedFull, chained(full, storedFull.seq, AUDIT_GENESIS_HASH));
    assert.deepEqual(storedBare, chained(bare, storedBare.seq, storedFull.hash!));
    assert.deepEqual(await s.audit.list(), [storedFull, storedBare]);
  });

  test('audit seq increases with every append; list honours after, limit (default 100) and the action, capability and invocation filters', async (s) => {
    const stored: AuditRecord[] = [];
    for (let i = 0; i < 120; i++) {
      stored.push(
        await s.audit.append(
          auditRow({
            id: `audit-${i}`,
            action: i % 3 === 0 ? 'capability.denied' : 'capability.invoke',
            capabilityId: i % 2 === 0 ? 'cap.even' : 'cap.odd',
            invocationId: `inv-${i % 10}`,
          }),
        ),
      );
    }
    for (let i = 1; i < stored.length; i++) assert.ok(stored[i]!.seq > stored[i - 1]!.seq, 'seq must increase');
    const all = await s.audit.list();
    assert.equal(all.length, 100);
    assert.deepEqual(all, stored.slice(0, 100));
    assert.deepEqual(await s.audit.list({ after: stored[99]!.seq }), stored.slice(100));
    assert.deepEqual(await s.audit.list({ after: stored[4]!.seq, limit: 3 }), stored.slice(5, 8));
    const denied = await s.audit.list({ action: 'capability.denied', limit: 1000 });
    assert.deepEqual(
      denied,
      stored.filter((_, i) => i % 3 === 0),
    );
    const mixed = await s.audit.list({
      action: 'capability.invoke',
      capabilityId: 'cap.even',
      invocationId: 'inv-2',
      limit: 1000,
    });
    assert.deepEqual(
      mixed,
      stored.filter((_, i) => i % 3 !== 0 && i % 2 === 0 && i % 10 === 2),
    );
    assert.deepEqual(await s.audit.list({ after: stored[119]!.seq }), []);
  });

  test('audit rows form one hash chain in seq order over append, transactions and appendAuditBatched (docs/audit.md)', async (s) => {
    const batched = s.appendAuditBatched(auditRow({ id: 'b-1', runId: 'run-1' }));
    const direct = await s.audit.append(auditRow({ id: 'd-1', reason: UNICODE }));
    await s.transaction(async (tx) => {
      await tx.audit.append(auditRow({ id: 't-1' }));
      await tx.audit.append(auditRow({ id: 't-2', prevHash: 'f'.repeat(64), hash: 'e'.repeat(64) }));
    });
    await Promise.all([batched, s.appendAuditBatched(auditRow({ id: 'b-2' }))]);
    const listed = await s.audit.list();
    assert.deepEqual(ids(listed), ['b-1', 'd-1', 't-1', 't-2', 'b-2']);
    let prev = AUDIT_GENESIS_HASH;
    for (const row of listed) {
      assert.equal(row.prevHash, prev, `row ${row.id} links to the row before it`);
      assert.equal(row.hash, auditRowHash(prev, row), `row ${row.id} hashes its content and link`);
      prev = row.hash!;
    }
    assert.deepEqual(direct, listed[1]);
    const result = verifyAuditChain(listed);
    assert.equal(result.ok, true);
    assert.equal(result.headHash, listed[4]!.hash);
  });

  test('a rolled-back append leaves the chain head where it was: the next row links to the last committed one', async (s) => {
    const first = await s.audit.append(auditRow({ id: 'kept-1' }));
    await rolledBack(s, async (tx) => {
      await tx.audit.append(auditRow({ id: 'gone-1' }));
      await tx.audit.append(auditRow({ id: 'gone-2' }));
    });
    const second = await s.audit.append(auditRow({ id: 'kept-2' }));
    assert.equal(second.prevHash, first.hash);
    assert.equal(verifyAuditChain(await s.audit.list()).ok, true);
  });
}
