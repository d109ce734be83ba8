/** Conformance cases for the audit trail (`storage.audit`). */
import assert from 'node:assert/strict';
import type { AuditRecord } from '../../core/records';
import { auditRow, UNICODE } from './fixtures';
import type { ConformanceCase } from './helpers';

/** Registers the audit cases: round trip with a storage-assigned seq, paging and filters. */
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
    assert.deepEqual(storedFull, { ...full, seq: storedFull.seq });
    assert.deepEqual(storedBare, { ...bare, seq: storedBare.seq });
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
}
