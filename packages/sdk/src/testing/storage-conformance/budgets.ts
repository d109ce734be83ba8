/** Conformance cases for spending counters and reservations (`storage.budgetUsage`). */
import assert from 'node:assert/strict';
import type { BudgetAmounts, BudgetCounters, BudgetPeriod } from '../../core/budget-records';
import { DAY, reservationRow, UNICODE } from './fixtures';
import { type ConformanceCase, rolledBack } from './helpers';

/** The counters of `subject` for one period, as `budgetUsage.get` and `budgetUsage.add` return them (zero by default). */
function counters(
  subject: string,
  period: BudgetPeriod,
  start: number,
  amounts: BudgetAmounts = { runs: 0, modelCalls: 0, tokens: 0, costUsd: 0 },
): BudgetCounters {
  return { subject, period, start, ...amounts };
}

/** Registers the budget cases: counters per (subject, period, start), reservations, transactions, caps under concurrency. */
export function budgetsCases(test: ConformanceCase): void {
  test('budgetUsage get is zero for a subject and period never charged; add accumulates per (subject, period, start), negative amounts included, and returns the totals', async (s) => {
    assert.deepEqual(await s.budgetUsage.get('user:alice', 'day', 0), counters('user:alice', 'day', 0));
    await s.budgetUsage.add('user:alice', 'day', 0, { runs: 1, modelCalls: 2, tokens: 300, costUsd: 0.25 });
    const after = await s.budgetUsage.add('user:alice', 'day', 0, {
      runs: 0,
      modelCalls: 1,
      tokens: -100,
      costUsd: -0.125,
    });
    assert.deepEqual(after, counters('user:alice', 'day', 0, { runs: 1, modelCalls: 3, tokens: 200, costUsd: 0.125 }));
    await s.budgetUsage.add(`user:${UNICODE}`, 'month', 0, { runs: 1, modelCalls: 0, tokens: 0, costUsd: 0 });
    assert.deepEqual(await s.budgetUsage.get('user:alice', 'day', 0), after);
    assert.deepEqual(await s.budgetUsage.get('user:alice', 'month', 0), counters('user:alice', 'month', 0));
    assert.deepEqual(await s.budgetUsage.get('user:alice', 'day', DAY), counters('user:alice', 'day', DAY));
    assert.equal((await s.budgetUsage.get(`user:${UNICODE}`, 'month', 0)).runs, 1);
  });

  test('budgetUsage getEach and addEach (where a store has them) read and add several counters at once, as get and add one by one, in the order of the keys', async (s) => {
    const { getEach, addEach } = s.budgetUsage;
    // A store has both or neither (the spending ledger then reads and adds one counter at a time).
    assert.equal(getEach === undefined, addEach === undefined);
    if (!getEach || !addEach) return;
    const keys = [
      { subject: 'household', period: 'day', start: DAY },
      { subject: 'household', period: 'month', start: 0 },
      { subject: `user:${UNICODE}`, period: 'day', start: DAY },
      { subject: `user:${UNICODE}`, period: 'month', start: 0 },
    ] as const;
    await s.budgetUsage.add('household', 'month', 0, { runs: 2, modelCalls: 0, tokens: 10, costUsd: 0.5 });
    const zero = { runs: 0, modelCalls: 0, tokens: 0, costUsd: 0 };
    assert.deepEqual(
      await getEach.call(s.budgetUsage, keys),
      keys.map((k) =>
        counters(
          k.subject,
          k.period,
          k.start,
          k.period === 'month' && k.subject === 'household'
            ? { runs: 2, modelCalls: 0, tokens: 10, costUsd: 0.5 }
            : zero,
        ),
      ),
    );
    const delta = { runs: 1, modelCalls: 1, tokens: -4, costUsd: 0.25 };
    const added = await addEach.call(s.budgetUsage, keys, delta);
    const after = await Promise.all(keys.map((k) => s.budgetUsage.get(k.subject, k.period, k.start)));
    assert.deepEqual(added, after);
    assert.deepEqual(after[1], counters('household', 'month', 0, { runs: 3, modelCalls: 1, tokens: 6, costUsd: 0.75 }));
    assert.deepEqual(after[2], counters(`user:${UNICODE}`, 'day', DAY, delta));
    assert.deepEqual(await getEach.call(s.budgetUsage, [keys[3], keys[0]]), [after[3], after[0]]);
  });

  test('budgetUsage reserve inserts once per key (a second reserve with the key changes nothing), updateReservation is compare-and-set on the state, reservations lists by state and run, oldest first', async (s) => {
    const first = reservationRow();
    assert.equal(await s.budgetUsage.reserve(first), true);
    assert.equal(await s.budgetUsage.reserve(reservationRow({ tokens: 1, costUsd: 9 })), false);
    assert.deepEqual(await s.budgetUsage.reservation(first.key), first);
    assert.equal(await s.budgetUsage.reservation('missing'), undefined);
    const settled = {
      state: 'settled' as const,
      runs: 0,
      modelCalls: 1,
      tokens: 120,
      costUsd: 0.0025,
      updatedAt: 20,
    };
    assert.equal(await s.budgetUsage.updateReservation(first.key, 'released', settled), false);
    assert.equal(await s.budgetUsage.updateReservation(first.key, 'reserved', settled), true);
    assert.equal(await s.budgetUsage.updateReservation(first.key, 'reserved', settled), false);
    assert.deepEqual(await s.budgetUsage.reservation(first.key), { ...first, ...settled });
    await s.budgetUsage.reserve(reservationRow({ key: `run-2:call:1:0:${UNICODE}`, runId: 'run-2', createdAt: 5 }));
    await s.budgetUsage.reserve(reservationRow({ key: 'run-1:call:2:0', createdAt: 30 }));
    assert.deepEqual(
      (await s.budgetUsage.reservations({ state: 'reserved' })).map((r) => r.key),
      [`run-2:call:1:0:${UNICODE}`, 'run-1:call:2:0'],
    );
    assert.deepEqual(
      (await s.budgetUsage.reservations({ runId: 'run-1' })).map((r) => r.key),
      ['run-1:call:1:0', 'run-1:call:2:0'],
    );
    assert.deepEqual(
      (await s.budgetUsage.reservations({ limit: 1 })).map((r) => r.key),
      [`run-2:call:1:0:${UNICODE}`],
    );
  });

  test('budgetUsage writes inside a transaction are seen by it and rolled back with it', async (s) => {
    const one = { runs: 0, modelCalls: 1, tokens: 10, costUsd: 0.5 };
    await s.budgetUsage.add('user:bob', 'day', 0, one);
    await rolledBack(s, async (tx) => {
      assert.equal((await tx.budgetUsage.get('user:bob', 'day', 0)).modelCalls, 1);
      await tx.budgetUsage.add('user:bob', 'day', 0, one);
      await tx.budgetUsage.reserve(reservationRow({ key: 'rolled-back' }));
      assert.equal((await tx.budgetUsage.get('user:bob', 'day', 0)).modelCalls, 2);
      assert.equal((await tx.budgetUsage.reservation('rolled-back'))?.key, 'rolled-back');
    });
    assert.equal((await s.budgetUsage.get('user:bob', 'day', 0)).modelCalls, 1);
    assert.equal(await s.budgetUsage.reservation('rolled-back'), undefined);
  });

  test('budgetUsage check-then-charge in concurrent transactions never passes a cap (each reads the charges committed before it)', async (s) => {
    const cap = 5;
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        s.transaction(async (tx) => {
          const used = await tx.budgetUsage.get('user:carol', 'day', 0);
          if (used.modelCalls + 1 > cap) return false;
          await tx.budgetUsage.reserve(reservationRow({ key: `c-${i}`, subject: 'user:carol' }));
          await tx.budgetUsage.add('user:carol', 'day', 0, { runs: 0, modelCalls: 1, tokens: 0, costUsd: 0 });
          return true;
        }),
      ),
    );
    assert.equal(results.filter(Boolean).length, cap);
    assert.equal((await s.budgetUsage.get('user:carol', 'day', 0)).modelCalls, cap);
  });
}
