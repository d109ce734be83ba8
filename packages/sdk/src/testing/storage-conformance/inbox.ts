/** Conformance cases for a run's inbox (`storage.inbox`). */
import assert from 'node:assert/strict';
import { inboxRecord, UNICODE } from './fixtures';
import type { ConformanceCase } from './helpers';

/** Registers the inbox case: round trip, queued messages per run, `markApplied` once. */
export function inboxCases(test: ConformanceCase): void {
  test('inbox round-trips every field; listQueued is per run, oldest first; markApplied moves queued → applied once', async (s) => {
    const m2 = inboxRecord({ id: 'm2', createdAt: 20, text: UNICODE, actor: `user:${UNICODE}` });
    const m1b = inboxRecord({ id: 'm1b', createdAt: 10 });
    const m1a = inboxRecord({ id: 'm1a', createdAt: 10 });
    const other = inboxRecord({ id: 'm-other', runId: 'run-2', createdAt: 5 });
    const applied = inboxRecord({ id: 'm-old', createdAt: 1, status: 'applied', appliedAt: 2 });
    for (const m of [m2, m1b, m1a, other, applied]) await s.inbox.enqueue(m);
    assert.deepEqual(await s.inbox.listQueued('run-1'), [m1a, m1b, m2]);
    assert.deepEqual(await s.inbox.listQueued('run-2'), [other]);
    await assert.rejects(s.inbox.enqueue(inboxRecord({ id: 'm2', text: 'second' })));
    assert.equal(await s.inbox.markApplied(['m1a', 'm2', 'm-old', 'missing', 'm1a'], 50), 2);
    assert.deepEqual(await s.inbox.listQueued('run-1'), [m1b]);
    assert.equal(await s.inbox.markApplied(['m1a', 'm2'], 60), 0);
    assert.equal(await s.inbox.markApplied([], 60), 0);
    assert.equal(await s.inbox.markApplied(['m1b'], 70), 1);
    assert.deepEqual(await s.inbox.listQueued('run-1'), []);
    assert.deepEqual(await s.inbox.listQueued('run-2'), [other]);
  });
}
