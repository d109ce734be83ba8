/** Conformance cases for intents (`storage.intents`): one holder per key, takeover after expiry, release. */
import assert from 'node:assert/strict';
import { type IntentRecord, intentKey } from '../../core/intent-records';
import { UNICODE } from './fixtures';
import { type ConformanceCase, rolledBack } from './helpers';

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;

/** An intent of run `run-1` for `user:alice` on `tmdb:1`, `download`, acquired at T0 for 6 hours; `overrides` win. */
function intent(overrides: Partial<IntentRecord> = {}): IntentRecord {
  const mediaEntityId = overrides.mediaEntityId ?? 'tmdb:1';
  const effectClass = overrides.effectClass ?? 'download';
  return {
    key: intentKey(mediaEntityId, effectClass),
    mediaEntityId,
    effectClass,
    holderRunId: 'run-1',
    holderActor: 'user:alice',
    capabilityId: 'download.plan',
    planId: null,
    createdAt: T0,
    expiresAt: T0 + 6 * HOUR,
    ...overrides,
  };
}

/**
 * Registers the intent cases: acquire, the other holder's row returned, refresh by the same holder, takeover after
 * expiry, release (only the holder's), release by run, rollback, and concurrent acquires ending with one holder.
 */
export function intentsCases(test: ConformanceCase): void {
  test('intents: acquire stores the record; another holder gets the stored row back and changes nothing; get reads it', async (s) => {
    const first = intent({ mediaEntityId: UNICODE, holderActor: UNICODE, planId: 'plan-1' });
    assert.deepEqual(await s.intents.acquire(first, T0), first);
    assert.deepEqual(await s.intents.get(first.key), first);
    // Another run, and a caller outside runs, find the first holder.
    const bob = intent({ mediaEntityId: UNICODE, holderRunId: 'run-2', holderActor: 'user:bob', createdAt: T0 + 5 });
    assert.deepEqual(await s.intents.acquire(bob, T0 + 5), first);
    const direct = intent({ mediaEntityId: UNICODE, holderRunId: null, holderActor: 'user:bob', createdAt: T0 + 6 });
    assert.deepEqual(await s.intents.acquire(direct, T0 + 6), first);
    assert.deepEqual(await s.intents.get(first.key), first);
    // The same entity with another effect class is another key.
    const organize = intent({ mediaEntityId: UNICODE, effectClass: 'organize', holderRunId: 'run-2' });
    assert.deepEqual(await s.intents.acquire(organize, T0), organize);
    assert.equal(await s.intents.get('missing'), undefined);
  });

  test('intents: the same holder refreshes its row (expiry and capability from the call, the plan once known, creation kept)', async (s) => {
    await s.intents.acquire(intent(), T0);
    const later = intent({
      capabilityId: 'download.submit',
      planId: 'plan-1',
      createdAt: T0 + HOUR,
      expiresAt: T0 + 7 * HOUR,
    });
    assert.deepEqual(await s.intents.acquire(later, T0 + HOUR), { ...later, createdAt: T0 });
    // A plan once set stays.
    const again = intent({ planId: null, createdAt: T0 + 2 * HOUR, expiresAt: T0 + 8 * HOUR });
    assert.deepEqual(await s.intents.acquire(again, T0 + 2 * HOUR), { ...again, planId: 'plan-1', createdAt: T0 });
    // Outside runs the holder is the actor: the same actor refreshes, another one does not.
    const k = intent({ mediaEntityId: 'tmdb:2', holderRunId: null, holderActor: 'user:bob' });
    assert.deepEqual(await s.intents.acquire(k, T0), k);
    const refreshed = { ...k, createdAt: T0 + 1, expiresAt: T0 + HOUR };
    assert.deepEqual(await s.intents.acquire(refreshed, T0 + 1), { ...refreshed, createdAt: T0 });
    assert.equal(
      (await s.intents.acquire({ ...k, holderActor: 'user:carol', createdAt: T0 + 2 }, T0 + 2)).holderActor,
      'user:bob',
    );
  });

  test('intents: an expired row is taken over by another holder; a row that expires later is not', async (s) => {
    const first = intent({ expiresAt: T0 + HOUR });
    await s.intents.acquire(first, T0);
    const bob = intent({
      holderRunId: 'run-2',
      holderActor: 'user:bob',
      createdAt: T0 + HOUR - 1,
      expiresAt: T0 + 9 * HOUR,
    });
    assert.deepEqual(await s.intents.acquire(bob, T0 + HOUR - 1), first);
    // At the expiry instant it is expired.
    const taken = { ...bob, createdAt: T0 + HOUR };
    assert.deepEqual(await s.intents.acquire(taken, T0 + HOUR), taken);
    assert.deepEqual(await s.intents.get(first.key), taken);
  });

  test("intents: release frees only the named run's row; releaseByRun frees every row of a run; a freed key is acquired anew", async (s) => {
    const a = intent();
    const b = intent({ mediaEntityId: 'tmdb:2' });
    const c = intent({ mediaEntityId: 'tmdb:3', holderRunId: 'run-2' });
    const d = intent({ mediaEntityId: 'tmdb:4', holderRunId: null });
    for (const r of [a, b, c, d]) await s.intents.acquire(r, T0);
    assert.equal(await s.intents.release(a.key, 'run-2'), false);
    assert.equal(await s.intents.release(d.key, 'run-1'), false);
    assert.equal(await s.intents.release('missing', 'run-1'), false);
    assert.equal(await s.intents.release(a.key, 'run-1'), true);
    assert.equal(await s.intents.get(a.key), undefined);
    assert.equal(await s.intents.release(a.key, 'run-1'), false);
    const bob = intent({ holderRunId: 'run-9', holderActor: 'user:bob', createdAt: T0 + 1 });
    assert.deepEqual(await s.intents.acquire(bob, T0 + 1), bob);
    assert.equal(await s.intents.releaseByRun('run-1'), 1);
    assert.equal(await s.intents.get(b.key), undefined);
    assert.deepEqual(await s.intents.get(c.key), c);
    assert.deepEqual(await s.intents.get(d.key), d);
    assert.equal(await s.intents.releaseByRun('run-1'), 0);
  });

  test('intents: a rolled-back acquire or release leaves the store as it was', async (s) => {
    const a = intent();
    await rolledBack(s, async (tx) => {
      assert.deepEqual(await tx.intents.acquire(a, T0), a);
    });
    assert.equal(await s.intents.get(a.key), undefined);
    await s.intents.acquire(a, T0);
    await rolledBack(s, async (tx) => {
      assert.equal(await tx.intents.releaseByRun('run-1'), 1);
    });
    assert.deepEqual(await s.intents.get(a.key), a);
  });

  test('intents: concurrent acquires of one key by many holders end with one holder, and every caller gets that holder', async (s) => {
    const holders = Array.from({ length: 8 }, (_, i) =>
      intent({ holderRunId: `run-${i}`, holderActor: `user:p${i}`, planId: `plan-${i}` }),
    );
    const got = await Promise.all(holders.map((h) => s.intents.acquire(h, T0)));
    const stored = await s.intents.get(holders[0]!.key);
    assert.ok(stored);
    for (const g of got) assert.deepEqual(g, stored);
    assert.ok(holders.some((h) => h.holderRunId === stored.holderRunId));
  });
}
