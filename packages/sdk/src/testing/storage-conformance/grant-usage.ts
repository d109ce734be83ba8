/** Conformance cases for a grant's daily counters (`storage.grantUsage`). */
import assert from 'node:assert/strict';
import { DAY, grantDay, ledgerEntry, UNICODE } from './fixtures';
import { type ConformanceCase, rolledBack } from './helpers';

/** Registers the grant usage cases: counters per (grant, day), and their writes inside a transaction. */
export function grantUsageCases(test: ConformanceCase): void {
  test('grantUsage get is zero for a grant and day never charged; add creates the counters, accumulates per (grant, day) only and returns the totals', async (s) => {
    assert.deepEqual(await s.grantUsage.get('g1', DAY), grantDay('g1', DAY, 0, 0));
    assert.deepEqual(await s.grantUsage.add('g1', DAY, 1, 500), grantDay('g1', DAY, 1, 500));
    assert.deepEqual(await s.grantUsage.add('g1', DAY, 1, 52_428_800_000), grantDay('g1', DAY, 2, 52_428_800_500));
    assert.deepEqual(await s.grantUsage.add('g1', 2 * DAY, 1, 7), grantDay('g1', 2 * DAY, 1, 7));
    assert.deepEqual(await s.grantUsage.add(`g-${UNICODE}`, DAY, 3, 0), grantDay(`g-${UNICODE}`, DAY, 3, 0));
    assert.deepEqual(await s.grantUsage.get('g1', DAY), grantDay('g1', DAY, 2, 52_428_800_500));
    assert.deepEqual(await s.grantUsage.get('g1', 2 * DAY), grantDay('g1', 2 * DAY, 1, 7));
    assert.deepEqual(await s.grantUsage.get(`g-${UNICODE}`, DAY), grantDay(`g-${UNICODE}`, DAY, 3, 0));
    assert.deepEqual(await s.grantUsage.get('g1', 3 * DAY), grantDay('g1', 3 * DAY, 0, 0));
    // ledger entries alone charge nothing: the invocation path charges the counters with each claim
    await s.ledger.insert(ledgerEntry({ key: 'k', grantId: 'g2', claimedAt: DAY + 1, bytes: 9 }));
    assert.deepEqual(await s.grantUsage.get('g2', DAY), grantDay('g2', DAY, 0, 0));
  });

  test('grantUsage add inside a transaction is seen by the transaction and rolled back with it', async (s) => {
    await s.grantUsage.add('g', 0, 1, 10);
    await rolledBack(s, async (tx) => {
      assert.deepEqual(await tx.grantUsage.add('g', 0, 1, 5), grantDay('g', 0, 2, 15));
      assert.deepEqual(await tx.grantUsage.get('g', 0), grantDay('g', 0, 2, 15));
      await tx.grantUsage.add('g-new', 0, 1, 1);
    });
    assert.deepEqual(await s.grantUsage.get('g', 0), grantDay('g', 0, 1, 10));
    assert.deepEqual(await s.grantUsage.get('g-new', 0), grantDay('g-new', 0, 0, 0));
  });
}
