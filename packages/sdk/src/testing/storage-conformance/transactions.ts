/** Conformance cases for `transaction(fn)`: a throwing transaction keeps none of its writes, in any repository. */
import assert from 'node:assert/strict';
import { approval, auditRow, decision, grant, inboxRecord, ledgerEntry, plan, runRecord, SCOPE } from './fixtures';
import { type ConformanceCase, rolledBack } from './helpers';

/** Registers the rollback cases: the record repositories, then runs and their events, messages, inbox and decisions. */
export function transactionsCases(test: ConformanceCase): void {
  test('a transaction that throws rolls back every write in it, across repositories, and rethrows the error', async (s) => {
    await s.ledger.insert(ledgerEntry({ key: 'existing', token: 'tok-1' }));
    await s.approvals.insert(approval());
    const auditBefore = await s.audit.list();
    await rolledBack(s, async (tx) => {
      assert.equal(await tx.ledger.insert(ledgerEntry({ key: 'new', callId: 'call-new' })), true);
      assert.equal(await tx.ledger.compareAndSet('existing', 'tok-1', { state: 'succeeded', settledAt: 1 }), true);
      assert.equal(await tx.approvals.compareAndSet('appr-1', 'requested', { status: 'approved' }), true);
      await tx.grants.insert(grant());
      await tx.plans.insert(plan());
      await tx.policies.put({ id: 'pol', kind: 'k', status: 'draft', createdAt: 1, updatedAt: 1 });
      await tx.audit.append(auditRow({ id: 'audit-tx' }));
      await tx.settings.set('automation', { enabled: true });
      // reads inside the transaction see its own writes
      assert.equal((await tx.ledger.get('existing'))?.state, 'succeeded');
    });
    assert.equal(await s.ledger.get('new'), undefined);
    assert.equal(await s.ledger.findByCall(SCOPE, 'call-new'), undefined);
    assert.equal((await s.ledger.get('existing'))?.state, 'running');
    assert.equal((await s.approvals.get('appr-1'))?.status, 'requested');
    assert.equal(await s.grants.get('grant-1'), undefined);
    assert.equal(await s.plans.get('plan-1'), undefined);
    assert.equal(await s.policies.get('pol'), undefined);
    assert.deepEqual(await s.audit.list(), auditBefore);
    assert.equal(await s.settings.get('automation'), undefined);
    // the adapter is still usable and a committed transaction keeps its writes and returns fn's value
    const value = await s.transaction(async (tx) => {
      await tx.settings.set('automation', { enabled: false });
      await tx.grants.insert(grant());
      return 42;
    });
    assert.equal(value, 42);
    assert.deepEqual(await s.settings.get('automation'), { enabled: false });
    assert.ok(await s.grants.get('grant-1'));
  });

  test('a transaction that throws rolls back runs, leases, events, messages, inbox and decisions; later events get sequences above every committed one', async (s) => {
    await s.runs.insert(runRecord());
    const e1 = await s.events.append({ runId: 'run-1', type: 'run_status', at: 1, data: { status: 'queued' } });
    await s.messages.append('run-1', { role: 'user', content: 'hi' }, 1);
    await s.inbox.enqueue(inboxRecord());
    await rolledBack(s, async (tx) => {
      await tx.runs.insert(runRecord({ id: 'run-2' }));
      assert.equal((await tx.runs.acquireLease('w1', 100, 1_000))?.id, 'run-1');
      await tx.runs.patch('run-1', { status: 'running', checklist: { goal: 'x' } }, 'w1');
      await tx.events.append({ runId: 'run-1', type: 'run_status', at: 2, data: { status: 'running' } });
      await tx.events.append({ runId: 'run-2', type: 'run_status', at: 2, data: null });
      await tx.messages.append('run-1', { role: 'assistant', content: 'partial' }, 2);
      await tx.inbox.enqueue(inboxRecord({ id: 'msg-2' }));
      assert.equal(await tx.inbox.markApplied(['msg-1'], 2), 1);
      assert.equal(await tx.decisions.insert(decision()), true);
      // reads inside the transaction see its own writes
      assert.equal((await tx.events.listByRun('run-1')).length, 2);
    });
    assert.deepEqual(await s.runs.get('run-1'), runRecord());
    assert.equal(await s.runs.get('run-2'), undefined);
    assert.deepEqual(await s.events.listAfter(), [e1]);
    assert.deepEqual(await s.events.listByRun('run-2'), []);
    assert.deepEqual(
      (await s.messages.list('run-1')).map((m) => m.seq),
      [1],
    );
    assert.deepEqual(await s.inbox.listQueued('run-1'), [inboxRecord()]);
    assert.deepEqual(await s.decisions.list(), []);
    // the dedupe key is free again; per-run seq continues from the committed events. A rolled-back globalSeq was
    // never visible outside its transaction, so an adapter may hand it out again (SQLite does; memory leaves a gap).
    // Events are published only after their transaction commits.
    assert.equal(await s.decisions.insert(decision()), true);
    const e2 = await s.events.append({ runId: 'run-1', type: 'run_status', at: 3, data: null });
    assert.equal(e2.seq, 2);
    assert.ok(e2.globalSeq > e1.globalSeq, 'globalSeq must stay above every committed event');
    assert.equal((await s.messages.append('run-1', 'next', 3)).seq, 2);
    assert.equal((await s.runs.acquireLease('w2', 100, 1_000))?.leaseOwner, 'w2');
  });
}
