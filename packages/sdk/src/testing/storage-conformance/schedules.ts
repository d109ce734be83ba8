/** Conformance cases for schedules and the claims of their ticks (`storage.schedules`). */
import assert from 'node:assert/strict';
import type { ScheduleRecord } from '../../core/schedule-records';
import { runRecord, scheduleRecord, scheduleTick, UNICODE } from './fixtures';
import { type ConformanceCase, ids, rolledBack } from './helpers';

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000;

/**
 * Registers the schedule cases: round trip, idempotent create by client key, compare-and-set and delete on the
 * revision, the list and the due poll, tick claims, tick pages and what fired ticks cost.
 */
export function schedulesCases(test: ConformanceCase): void {
  test('schedules round-trip every field; insert returns false on an existing (owner, clientKey) and keeps the first; findByClientKey finds it', async (s) => {
    const full = scheduleRecord({
      id: 'sch-full',
      owner: 'user:bob',
      createdBy: 'user:admin',
      clientKey: UNICODE,
      cron: null,
      everyMs: 15 * 60_000,
      anchorAt: T0 + 1,
      timezone: 'Europe/Berlin',
      goal: UNICODE,
      mode: 'plan_only',
      capabilityAllowlist: ['media.search', UNICODE],
      budgets: { maxToolCalls: 20, maxCostUsdPerRun: 0.25, maxRunsPerDay: 4, maxCostUsdPerDay: null },
      missed: 'catch_up_one',
      status: 'paused',
      nextTickAt: null,
      lastTickAt: T0 + HOUR,
      lastRunId: 'run-9',
      revision: 7,
      createdAt: T0 + 2,
      updatedAt: T0 + 3,
    });
    assert.equal(await s.schedules.insert(full), true);
    assert.deepEqual(await s.schedules.get('sch-full'), full);
    // The same key of another owner, and any number of schedules without a key, are no conflict.
    assert.equal(await s.schedules.insert(scheduleRecord({ id: 'sch-alice', clientKey: UNICODE })), true);
    assert.equal(await s.schedules.insert(scheduleRecord({ id: 'sch-a' })), true);
    assert.equal(await s.schedules.insert(scheduleRecord({ id: 'sch-b' })), true);
    // A second create with the key: refused, nothing stored, the first unchanged.
    assert.equal(
      await s.schedules.insert(scheduleRecord({ id: 'sch-again', owner: 'user:bob', clientKey: UNICODE, goal: 'x' })),
      false,
    );
    assert.equal(await s.schedules.get('sch-again'), undefined);
    assert.deepEqual(await s.schedules.findByClientKey('user:bob', UNICODE), full);
    assert.equal((await s.schedules.findByClientKey('user:alice', UNICODE))?.id, 'sch-alice');
    assert.equal(await s.schedules.findByClientKey('user:carol', UNICODE), undefined);
    assert.equal(await s.schedules.get('missing'), undefined);
    // An insert of an existing id fails and keeps the original.
    await assert.rejects(s.schedules.insert(scheduleRecord({ id: 'sch-a', goal: 'second' })));
    assert.equal((await s.schedules.get('sch-a'))?.goal, 'check the downloads');
    // A rolled-back insert keeps nothing: its key is free again.
    await rolledBack(s, async (tx) => {
      assert.equal(await tx.schedules.insert(scheduleRecord({ id: 'sch-tx', clientKey: 'k-tx' })), true);
    });
    assert.equal(await s.schedules.get('sch-tx'), undefined);
    assert.equal(await s.schedules.insert(scheduleRecord({ id: 'sch-tx2', clientKey: 'k-tx' })), true);
  });

  test('schedules change by compare-and-set on the revision: a stale or missing revision changes nothing; a rolled-back change leaves the stored one', async (s) => {
    const first = scheduleRecord();
    assert.equal(await s.schedules.insert(first), true);
    const changed: ScheduleRecord = {
      ...first,
      status: 'paused',
      nextTickAt: null,
      lastTickAt: T0 + HOUR,
      lastRunId: 'run-2',
      goal: UNICODE,
      capabilityAllowlist: ['media.search'],
      budgets: { maxRunsPerDay: 1 },
      revision: 2,
      updatedAt: T0 + 10,
    };
    assert.equal(await s.schedules.compareAndSet('sch-1', 1, changed), true);
    assert.deepEqual(await s.schedules.get('sch-1'), changed);
    // A writer that read revision 1 loses.
    assert.equal(await s.schedules.compareAndSet('sch-1', 1, { ...first, goal: 'stale', revision: 2 }), false);
    assert.deepEqual(await s.schedules.get('sch-1'), changed);
    assert.equal(await s.schedules.compareAndSet('missing', 1, { ...first, id: 'missing' }), false);
    assert.equal(await s.schedules.get('missing'), undefined);
    await rolledBack(s, async (tx) => {
      assert.equal(await tx.schedules.compareAndSet('sch-1', 2, { ...changed, status: 'active', revision: 3 }), true);
    });
    assert.deepEqual(await s.schedules.get('sch-1'), changed);
  });

  test('schedules delete on the revision removes the schedule and its tick records, keeps the runs they started and other schedules', async (s) => {
    await s.schedules.insert(scheduleRecord({ id: 'sch-1', revision: 3 }));
    await s.schedules.insert(scheduleRecord({ id: 'sch-2', clientKey: 'keep' }));
    await s.runs.insert(runRecord({ id: 'run-1', origin: 'schedule' }));
    assert.equal(await s.schedules.claimTick(scheduleTick({ scheduleId: 'sch-1', tickAt: T0 + HOUR })), true);
    assert.equal(
      await s.schedules.claimTick(
        scheduleTick({ scheduleId: 'sch-1', tickAt: T0 + 2 * HOUR, outcome: 'skipped', runId: null, reason: 'missed' }),
      ),
      true,
    );
    assert.equal(
      await s.schedules.claimTick(scheduleTick({ scheduleId: 'sch-2', tickAt: T0 + HOUR, runId: null })),
      true,
    );
    // A stale revision deletes nothing.
    assert.equal(await s.schedules.delete('sch-1', 2), false);
    assert.equal((await s.schedules.get('sch-1'))?.revision, 3);
    assert.equal((await s.schedules.ticks('sch-1')).length, 2);
    assert.equal(await s.schedules.delete('missing', 1), false);
    // A rolled-back delete keeps everything.
    await rolledBack(s, async (tx) => {
      assert.equal(await tx.schedules.delete('sch-1', 3), true);
    });
    assert.equal((await s.schedules.ticks('sch-1')).length, 2);
    assert.equal(await s.schedules.delete('sch-1', 3), true);
    assert.equal(await s.schedules.get('sch-1'), undefined);
    assert.deepEqual(await s.schedules.ticks('sch-1'), []);
    assert.deepEqual(await s.schedules.firedBetween('sch-1', 0, T0 * 2), { runs: 0, costUsd: 0 });
    assert.equal(await s.schedules.delete('sch-1', 3), false);
    // The run it started stays; the other schedule and its tick stay.
    assert.equal((await s.runs.get('run-1'))?.origin, 'schedule');
    assert.equal((await s.schedules.get('sch-2'))?.clientKey, 'keep');
    assert.equal((await s.schedules.ticks('sch-2')).length, 1);
    // The deleted schedule's ticks can be claimed again (e.g. by a schedule re-created with the same id).
    assert.equal(await s.schedules.claimTick(scheduleTick({ scheduleId: 'sch-1', tickAt: T0 + HOUR })), true);
  });

  test('schedules list oldest first (creation time, then id), filtered by owner and status, at most limit (default 100)', async (s) => {
    await s.schedules.insert(scheduleRecord({ id: 'sch-c', createdAt: T0 + 30 }));
    await s.schedules.insert(scheduleRecord({ id: 'sch-b', createdAt: T0 + 10, owner: 'user:bob' }));
    await s.schedules.insert(scheduleRecord({ id: 'sch-a', createdAt: T0 + 10, status: 'paused', nextTickAt: null }));
    await s.schedules.insert(scheduleRecord({ id: 'sch-d', createdAt: T0 + 5, owner: 'user:bob', status: 'paused' }));
    assert.deepEqual(ids(await s.schedules.list()), ['sch-d', 'sch-a', 'sch-b', 'sch-c']);
    assert.deepEqual(ids(await s.schedules.list({ owner: 'user:bob' })), ['sch-d', 'sch-b']);
    assert.deepEqual(ids(await s.schedules.list({ status: 'paused' })), ['sch-d', 'sch-a']);
    assert.deepEqual(ids(await s.schedules.list({ owner: 'user:alice', status: 'active' })), ['sch-c']);
    assert.deepEqual(await s.schedules.list({ owner: 'user:nobody' }), []);
    assert.deepEqual(ids(await s.schedules.list({ limit: 2 })), ['sch-d', 'sch-a']);
    assert.deepEqual(await s.schedules.list({ limit: 0 }), []);
    await s.transaction(async (tx) => {
      for (let i = 0; i < 101; i++)
        await tx.schedules.insert(
          scheduleRecord({ id: `sch-n${String(i).padStart(3, '0')}`, createdAt: T0 + 100 + i }),
        );
    });
    const all = await s.schedules.list();
    assert.equal(all.length, 100);
    assert.deepEqual(ids(all.slice(0, 4)), ['sch-d', 'sch-a', 'sch-b', 'sch-c']);
    assert.equal(all[99]?.id, 'sch-n095');
    assert.equal((await s.schedules.list({ limit: 200 })).length, 105);
  });

  test('schedules lockDue: the record while it is active and due at now; undefined when not yet due, paused, unscheduled or absent', async (s) => {
    const due = scheduleRecord({ id: 'sch-due', nextTickAt: T0 + 100 });
    await s.schedules.insert(due);
    await s.schedules.insert(scheduleRecord({ id: 'sch-paused', nextTickAt: T0, status: 'paused' }));
    await s.schedules.insert(scheduleRecord({ id: 'sch-none', nextTickAt: null }));
    assert.deepEqual(await s.schedules.lockDue('sch-due', T0 + 100), due);
    assert.deepEqual(await s.schedules.lockDue('sch-due', T0 + 5 * HOUR), due);
    assert.equal(await s.schedules.lockDue('sch-due', T0 + 99), undefined);
    assert.equal(await s.schedules.lockDue('sch-paused', T0 + HOUR), undefined);
    assert.equal(await s.schedules.lockDue('sch-none', T0 + HOUR), undefined);
    assert.equal(await s.schedules.lockDue('sch-missing', T0 + HOUR), undefined);
  });

  test('schedules due: active schedules with nextTickAt <= now, earliest first (then id), at most limit; paused and unscheduled ones never', async (s) => {
    await s.schedules.insert(scheduleRecord({ id: 'sch-late', nextTickAt: T0 + 300 }));
    await s.schedules.insert(scheduleRecord({ id: 'sch-b', nextTickAt: T0 + 100 }));
    await s.schedules.insert(scheduleRecord({ id: 'sch-a', nextTickAt: T0 + 100 }));
    await s.schedules.insert(scheduleRecord({ id: 'sch-first', nextTickAt: T0 + 50 }));
    await s.schedules.insert(scheduleRecord({ id: 'sch-paused', status: 'paused', nextTickAt: T0 }));
    await s.schedules.insert(scheduleRecord({ id: 'sch-none', nextTickAt: null }));
    assert.deepEqual(ids(await s.schedules.due(T0 + 200, 10)), ['sch-first', 'sch-a', 'sch-b']);
    assert.deepEqual(ids(await s.schedules.due(T0 + 300, 10)), ['sch-first', 'sch-a', 'sch-b', 'sch-late']);
    assert.deepEqual(ids(await s.schedules.due(T0 + 300, 2)), ['sch-first', 'sch-a']);
    assert.deepEqual(await s.schedules.due(T0 + 49, 10), []);
    assert.deepEqual(await s.schedules.due(T0 + 300, 0), []);
    const due = await s.schedules.due(T0 + 50, 1);
    assert.deepEqual(due, [await s.schedules.get('sch-first')]);
    // Advancing a schedule past now takes it off the poll.
    assert.equal(
      await s.schedules.compareAndSet('sch-first', 1, { ...due[0]!, nextTickAt: T0 + 1000, revision: 2 }),
      true,
    );
    assert.deepEqual(ids(await s.schedules.due(T0 + 200, 10)), ['sch-a', 'sch-b']);
  });

  test('schedules claimTick stores a tick record once: a second claim of the same (schedule, tick) returns false and changes nothing; a rolled-back claim frees the key', async (s) => {
    await s.schedules.insert(scheduleRecord());
    const tick = scheduleTick({ tickAt: T0 + HOUR, handledBy: UNICODE });
    assert.equal(await s.schedules.claimTick(tick), true);
    assert.equal(
      await s.schedules.claimTick({ ...tick, runId: 'run-other', handledBy: 'worker-b', handledAt: T0 + 2 * HOUR }),
      false,
    );
    assert.deepEqual(await s.schedules.ticks('sch-1'), [tick]);
    // The same tick of another schedule, and the next tick of this one, are other keys.
    assert.equal(await s.schedules.claimTick(scheduleTick({ scheduleId: 'sch-2', tickAt: T0 + HOUR })), true);
    const skipped = scheduleTick({
      tickAt: T0 + 4 * HOUR,
      outcome: 'skipped',
      runId: null,
      reason: 'missed',
      firstTickAt: T0 + 2 * HOUR,
      ticks: 3,
    });
    assert.equal(await s.schedules.claimTick(skipped), true);
    assert.deepEqual(await s.schedules.ticks('sch-1'), [skipped, tick]);
    // A claim in a transaction that rolls back (the run it created failed to store, the process died) is no claim.
    await rolledBack(s, async (tx) => {
      assert.equal(await tx.schedules.claimTick(scheduleTick({ tickAt: T0 + 5 * HOUR })), true);
      assert.equal(await tx.schedules.claimTick(scheduleTick({ tickAt: T0 + 5 * HOUR })), false);
    });
    assert.equal(await s.schedules.claimTick(scheduleTick({ tickAt: T0 + 5 * HOUR, handledBy: 'worker-c' })), true);
    assert.equal((await s.schedules.ticks('sch-1', { limit: 1 }))[0]?.handledBy, 'worker-c');
  });

  test('schedules ticks: newest tick first, only ticks before `before` (exclusive), at most limit (default 50)', async (s) => {
    await s.transaction(async (tx) => {
      for (let i = 1; i <= 55; i++)
        assert.equal(await tx.schedules.claimTick(scheduleTick({ tickAt: T0 + i * HOUR, runId: `run-${i}` })), true);
      await tx.schedules.claimTick(scheduleTick({ scheduleId: 'sch-other', tickAt: T0 + 100 * HOUR }));
    });
    const page = await s.schedules.ticks('sch-1');
    assert.equal(page.length, 50);
    assert.deepEqual(
      page.slice(0, 3).map((k) => k.tickAt),
      [T0 + 55 * HOUR, T0 + 54 * HOUR, T0 + 53 * HOUR],
    );
    assert.equal(page[49]?.tickAt, T0 + 6 * HOUR);
    const next = await s.schedules.ticks('sch-1', { before: page[49]!.tickAt });
    assert.deepEqual(
      next.map((k) => k.runId),
      ['run-5', 'run-4', 'run-3', 'run-2', 'run-1'],
    );
    assert.deepEqual(
      (await s.schedules.ticks('sch-1', { before: T0 + 3 * HOUR + 1, limit: 2 })).map((k) => k.tickAt),
      [T0 + 3 * HOUR, T0 + 2 * HOUR],
    );
    assert.deepEqual(await s.schedules.ticks('sch-1', { before: T0 + HOUR }), []);
    assert.deepEqual(await s.schedules.ticks('sch-1', { limit: 0 }), []);
    assert.equal((await s.schedules.ticks('sch-1', { limit: 100 })).length, 55);
    assert.deepEqual(await s.schedules.ticks('sch-missing'), []);
  });

  test("schedules firedBetween counts fired ticks in [from, to) and sums their runs' usage.costUsd (a missing run costs 0; skipped ticks and other schedules do not count)", async (s) => {
    const usage = (costUsd: number) => ({ toolCalls: 1, inputTokens: 10, outputTokens: 5, costUsd, modelCalls: 1 });
    await s.runs.insert(runRecord({ id: 'run-a', origin: 'schedule', usage: usage(0.25) }));
    await s.runs.insert(runRecord({ id: 'run-b', origin: 'schedule', usage: usage(0.5) }));
    await s.runs.insert(runRecord({ id: 'run-c', origin: 'schedule', usage: usage(2) }));
    await s.runs.insert(runRecord({ id: 'run-x', origin: 'schedule', usage: usage(8) }));
    const day = T0 - (T0 % 86_400_000);
    await s.schedules.claimTick(scheduleTick({ tickAt: day, runId: 'run-a' }));
    await s.schedules.claimTick(scheduleTick({ tickAt: day + HOUR, runId: 'run-b' }));
    // Its run was removed by retention (never stored here): the tick counts, at no cost.
    await s.schedules.claimTick(scheduleTick({ tickAt: day + 2 * HOUR, runId: 'run-gone' }));
    await s.schedules.claimTick(
      scheduleTick({ tickAt: day + 3 * HOUR, outcome: 'skipped', runId: null, reason: 'daily_budget' }),
    );
    // The next day, and another schedule the same day.
    await s.schedules.claimTick(scheduleTick({ tickAt: day + 86_400_000, runId: 'run-c' }));
    await s.schedules.claimTick(scheduleTick({ scheduleId: 'sch-2', tickAt: day + HOUR, runId: 'run-x' }));
    assert.deepEqual(await s.schedules.firedBetween('sch-1', day, day + 86_400_000), { runs: 3, costUsd: 0.75 });
    assert.deepEqual(await s.schedules.firedBetween('sch-1', day + 1, day + 86_400_000), { runs: 2, costUsd: 0.5 });
    assert.deepEqual(await s.schedules.firedBetween('sch-1', day, day + HOUR), { runs: 1, costUsd: 0.25 });
    assert.deepEqual(await s.schedules.firedBetween('sch-1', day, day + 86_400_001), { runs: 4, costUsd: 2.75 });
    assert.deepEqual(await s.schedules.firedBetween('sch-2', day, day + 86_400_000), { runs: 1, costUsd: 8 });
    assert.deepEqual(await s.schedules.firedBetween('sch-1', day + 3 * HOUR, day + 4 * HOUR), { runs: 0, costUsd: 0 });
    assert.deepEqual(await s.schedules.firedBetween('sch-missing', 0, day * 2), { runs: 0, costUsd: 0 });
    // A run's cost as it grows is what counts.
    await s.runs.patch('run-b', { usage: usage(1.5) });
    assert.deepEqual(await s.schedules.firedBetween('sch-1', day, day + 86_400_000), { runs: 3, costUsd: 1.75 });
  });
}
