/** Conformance cases for concurrent transactions: they are serialized, and one that throws spoils no other. */
import assert from 'node:assert/strict';
import { auditRow, grantDay } from './fixtures';
import { type ConformanceCase, ids } from './helpers';

/** Registers the concurrency cases: lost updates, and concurrent transactions of which some throw. */
export function concurrencyCases(test: ConformanceCase): void {
  test('concurrent transactions are serialized: 50 parallel read-modify-write increments lose no update', async (s) => {
    await s.settings.set('counter', 0);
    const increment = () =>
      s.transaction(async (tx) => {
        const current = (await tx.settings.get('counter')) as number;
        await new Promise((resolve) => setTimeout(resolve, 0));
        await tx.settings.set('counter', current + 1);
      });
    await Promise.all(Array.from({ length: 50 }, increment));
    assert.equal(await s.settings.get('counter'), 50);
  });

  test('concurrent transactions of which some throw: each that throws leaves none of its writes, every other one commits all of its writes', async (s) => {
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        s.transaction(async (tx) => {
          await tx.settings.set(`k-${i}`, i);
          await tx.audit.append(auditRow({ id: `audit-${i}`, invocationId: `inv-${i}` }));
          if (i % 4 === 0) throw new Error(`boom ${i}`);
          await tx.grantUsage.add('g', 0, 1, i);
          return i;
        }),
      ),
    );
    for (const [i, r] of results.entries()) {
      if (i % 4 === 0) {
        assert.equal(r.status, 'rejected');
        assert.equal(await s.settings.get(`k-${i}`), undefined);
      } else {
        assert.deepEqual(r, { status: 'fulfilled', value: i });
        assert.equal(await s.settings.get(`k-${i}`), i);
      }
    }
    const kept = [1, 2, 3, 5, 6, 7, 9, 10, 11];
    assert.deepEqual(
      ids(await s.audit.list()),
      kept.map((i) => `audit-${i}`),
    );
    assert.deepEqual(
      await s.grantUsage.get('g', 0),
      grantDay(
        'g',
        0,
        kept.length,
        kept.reduce((a, b) => a + b, 0),
      ),
    );
  });
}
