/** Conformance cases for run leases: `acquireLease`, `renewLease` and `releaseLease` of `storage.runs`. */
import assert from 'node:assert/strict';
import { runRecord } from './fixtures';
import { type ConformanceCase, insertRuns } from './helpers';

/** Registers the lease cases: which runs are leasable, in what order, and who may renew or release a lease. */
export function leasesCases(test: ConformanceCase): void {
  test('acquireLease leases queued runs first-come (createdAt, then id), setting leaseOwner and leaseExpiresAt = now + leaseMs', async (s) => {
    await insertRuns(
      s,
      { id: 'r-late', createdAt: 30 },
      { id: 'r-b', createdAt: 20 },
      { id: 'r-a', createdAt: 20 },
      { id: 'r-first', createdAt: 10 },
    );
    const first = await s.runs.acquireLease('w1', 1_000, 500);
    assert.deepEqual(first, runRecord({ id: 'r-first', createdAt: 10, leaseOwner: 'w1', leaseExpiresAt: 1_500 }));
    assert.deepEqual(await s.runs.get('r-first'), first);
    const order = [
      (await s.runs.acquireLease('w2', 1_000, 500))?.id,
      (await s.runs.acquireLease('w1', 1_000, 500))?.id,
      (await s.runs.acquireLease('w3', 1_000, 500))?.id,
    ];
    assert.deepEqual(order, ['r-a', 'r-b', 'r-late']);
    assert.equal(await s.runs.acquireLease('w4', 1_000, 500), undefined);
  });

  test('acquireLease does not lease a run with a live lease, and leases it once the lease has expired (leaseExpiresAt <= now)', async (s) => {
    await insertRuns(
      s,
      { id: 'queued-live', createdAt: 1, leaseOwner: 'w0', leaseExpiresAt: 2_000 },
      { id: 'running-live', createdAt: 2, status: 'running', leaseOwner: 'w0', leaseExpiresAt: 2_000 },
      {
        id: 'waiting-live',
        createdAt: 3,
        status: 'waiting',
        wakeRequested: true,
        leaseOwner: 'w0',
        leaseExpiresAt: 2_000,
      },
    );
    assert.equal(await s.runs.acquireLease('w1', 1_999, 100), undefined);
    assert.equal((await s.runs.get('queued-live'))?.leaseOwner, 'w0');
    const taken = [
      (await s.runs.acquireLease('w1', 2_000, 100))?.id,
      (await s.runs.acquireLease('w1', 2_000, 100))?.id,
      (await s.runs.acquireLease('w1', 2_000, 100))?.id,
    ];
    assert.deepEqual(taken, ['queued-live', 'running-live', 'waiting-live']);
    // the new leases are live in turn
    assert.equal(await s.runs.acquireLease('w2', 2_099, 100), undefined);
  });

  test('acquireLease takes over a running run whose lease expired (or that has no lease)', async (s) => {
    await insertRuns(
      s,
      { id: 'crashed', createdAt: 1, status: 'running', leaseOwner: 'dead', leaseExpiresAt: 500, startedAt: 1 },
      { id: 'orphan', createdAt: 2, status: 'running', startedAt: 2 },
    );
    const taken = await s.runs.acquireLease('w1', 1_000, 100);
    assert.deepEqual(
      taken,
      runRecord({
        id: 'crashed',
        createdAt: 1,
        status: 'running',
        leaseOwner: 'w1',
        leaseExpiresAt: 1_100,
        startedAt: 1,
      }),
    );
    assert.equal((await s.runs.acquireLease('w2', 1_000, 100))?.id, 'orphan');
    assert.equal(await s.runs.acquireLease('w3', 1_000, 100), undefined);
    assert.equal(await s.runs.renewLease('crashed', 'dead', 1_000, 100), false);
  });

  test('acquireLease wakes a waiting run only by wakeRequested, abortRequested or a due notBefore (notBefore <= now)', async (s) => {
    await insertRuns(
      s,
      { id: 'idle', createdAt: 1, status: 'waiting' },
      { id: 'not-yet', createdAt: 2, status: 'waiting', notBefore: 1_001 },
    );
    assert.equal(await s.runs.acquireLease('w', 1_000, 100), undefined);
    await insertRuns(
      s,
      { id: 'woken', createdAt: 3, status: 'waiting', wakeRequested: true },
      { id: 'aborted', createdAt: 4, status: 'waiting', abortRequested: true, abortReason: 'user' },
      { id: 'due', createdAt: 5, status: 'waiting', notBefore: 1_000 },
    );
    const taken: Array<string | undefined> = [];
    for (let i = 0; i < 4; i++) taken.push((await s.runs.acquireLease('w', 1_000, 100))?.id);
    assert.deepEqual(taken, ['woken', 'aborted', 'due', undefined]);
    assert.equal((await s.runs.acquireLease('w', 1_001, 100))?.id, 'not-yet');
    assert.equal(await s.runs.acquireLease('w', 1_001, 100), undefined);
    assert.equal((await s.runs.get('idle'))?.leaseOwner, null);
  });

  test('acquireLease never leases a terminal run, whatever its flags', async (s) => {
    for (const [i, status] of (['succeeded', 'failed', 'cancelled', 'budget_exceeded'] as const).entries()) {
      await s.runs.insert(
        runRecord({
          id: `t-${status}`,
          createdAt: i,
          status,
          wakeRequested: true,
          abortRequested: true,
          notBefore: 0,
          leaseOwner: 'old',
          leaseExpiresAt: 0,
        }),
      );
    }
    assert.equal(await s.runs.acquireLease('w', 10_000, 100), undefined);
    assert.equal((await s.runs.get('t-succeeded'))?.leaseOwner, 'old');
  });

  test('renewLease and releaseLease act only for the lease owner', async (s) => {
    await s.runs.insert(runRecord());
    assert.equal(await s.runs.renewLease('run-1', 'w1', 100, 1_000), false);
    assert.equal(await s.runs.releaseLease('run-1', 'w1'), false);
    await s.runs.acquireLease('w1', 100, 1_000);
    assert.equal(await s.runs.renewLease('run-1', 'w2', 500, 1_000), false);
    assert.equal(await s.runs.releaseLease('run-1', 'w2'), false);
    assert.equal((await s.runs.get('run-1'))?.leaseExpiresAt, 1_100);
    assert.equal(await s.runs.renewLease('run-1', 'w1', 500, 1_000), true);
    assert.equal((await s.runs.get('run-1'))?.leaseExpiresAt, 1_500);
    assert.equal(await s.runs.acquireLease('w2', 1_400, 1_000), undefined);
    assert.equal(await s.runs.renewLease('missing', 'w1', 500, 1_000), false);
    assert.equal(await s.runs.releaseLease('run-1', 'w1'), true);
    const released = await s.runs.get('run-1');
    assert.equal(released?.leaseOwner, null);
    assert.equal(released?.leaseExpiresAt, null);
    assert.equal(await s.runs.releaseLease('run-1', 'w1'), false);
    assert.equal(await s.runs.renewLease('run-1', 'w1', 600, 1_000), false);
    // a released queued run is leasable again at once
    assert.equal((await s.runs.acquireLease('w2', 600, 1_000))?.leaseOwner, 'w2');
  });
}
