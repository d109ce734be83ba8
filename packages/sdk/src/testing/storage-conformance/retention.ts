/**
 * Conformance cases for retention and named leases (`storage.maintenance`): what each kind removes, that live items
 * stay, that `estimate` matches what `prune` removes, batches, `keepNewest`, and leases.
 */
import assert from 'node:assert/strict';
import type { PruneCount, PruneCriteria, RetentionKind } from '../../ports/maintenance-repository';
import type { StorageAdapter, StorageSession } from '../../ports/storage-adapter';
import {
  approval,
  auditRow,
  DAY,
  decision,
  inboxRecord,
  ledgerEntry,
  plan,
  reservationRow,
  runRecord,
  scheduleTick,
} from './fixtures';
import type { ConformanceCase } from './helpers';

const NOW = 1_800_000_000_000;
const OLD = NOW - 100 * DAY;
const CRITERIA: PruneCriteria = { now: NOW, before: NOW - 30 * DAY };
const HOUR = 3_600_000;

/** Stores tick records of `scheduleId` at `ticks` (each handled 5 ms after its tick unless given). */
async function ticks(
  s: StorageAdapter,
  scheduleId: string,
  at: ReadonlyArray<number | [tick: number, handled: number]>,
) {
  for (const a of at) {
    const [tickAt, handledAt] = typeof a === 'number' ? [a, a + 5] : a;
    assert.equal(await s.schedules.claimTick(scheduleTick({ scheduleId, tickAt, handledAt, runId: null })), true);
  }
}

/** The tick times of `scheduleId`'s records, oldest first. */
async function tickTimes(s: StorageSession, scheduleId: string): Promise<number[]> {
  return (await s.schedules.ticks(scheduleId, { limit: 1_000 })).map((k) => k.tickAt).reverse();
}

/** A finished run ended at `endedAt` with two events, two messages and an inbox message. */
async function finishedRun(
  s: StorageAdapter,
  id: string,
  endedAt = OLD,
  extra: Partial<Parameters<typeof runRecord>[0]> = {},
) {
  await s.runs.insert(runRecord({ id, status: 'succeeded', endedAt, updatedAt: endedAt, ...extra }));
  await s.events.append({ runId: id, type: 'run_started', at: endedAt, data: { goal: 'g' } } as never);
  await s.events.append({ runId: id, type: 'run_finished', at: endedAt, data: { ok: true } } as never);
  await s.messages.append(id, { role: 'user', content: 'hi' }, endedAt);
  await s.messages.append(id, { role: 'assistant', content: 'done' }, endedAt);
  await s.inbox.enqueue(inboxRecord({ id: `${id}-in`, runId: id, status: 'applied', appliedAt: endedAt }));
}

/** Prunes `kind` in batches of `size` until done; returns the total and the number of batches. */
async function pruneAll(s: StorageAdapter, kind: RetentionKind, criteria: PruneCriteria, size: number) {
  let total: PruneCount = { rows: 0, bytes: 0 };
  for (let batches = 1; batches < 1_000; batches++) {
    const batch = await s.maintenance.prune(kind, criteria, size);
    total = { rows: total.rows + batch.rows, bytes: total.bytes + batch.bytes };
    if (batch.done) return { total, batches };
  }
  throw new Error(`prune of ${kind} never reported done`);
}

/** Asserts that estimate equals what prune (in batches of `size`) removes, and returns that count. */
async function estimateThenPrune(s: StorageAdapter, kind: RetentionKind, criteria: PruneCriteria, size = 2) {
  const estimate = await s.maintenance.estimate(kind, criteria);
  const { total } = await pruneAll(s, kind, criteria, size);
  assert.deepEqual(total, estimate, `${kind}: prune removed what estimate counted`);
  assert.deepEqual(await s.maintenance.estimate(kind, criteria), { rows: 0, bytes: 0 }, `${kind}: nothing left`);
  return total;
}

/** Registers the retention cases. */
export function retentionCases(test: ConformanceCase): void {
  test('runs: a finished run older than `before` loses its events, messages, inbox and settled reservations; its row (goal, status, report) stays', async (s) => {
    await finishedRun(s, 'old', OLD, { goal: 'add a film', report: { summary: 'ok' } as never });
    await finishedRun(s, 'recent', NOW - DAY);
    await s.budgetUsage.reserve(reservationRow({ key: 'old:1', runId: 'old', state: 'settled' }));
    await s.budgetUsage.reserve(reservationRow({ key: 'old:2', runId: 'old', state: 'reserved' }));
    const removed = await estimateThenPrune(s, 'runs', CRITERIA);
    assert.equal(removed.rows, 6, 'two events, two messages, one inbox row, one settled reservation');
    assert.ok(removed.bytes > 0);
    const kept = await s.runs.get('old');
    assert.equal(kept?.goal, 'add a film');
    assert.equal(kept?.status, 'succeeded');
    assert.deepEqual(kept?.report, { summary: 'ok' });
    assert.deepEqual(await s.events.listByRun('old'), []);
    assert.deepEqual(await s.messages.list('old'), []);
    assert.deepEqual(
      (await s.budgetUsage.reservations({ runId: 'old' })).map((r) => r.key),
      ['old:2'],
      'a reservation still reserved stays',
    );
    assert.equal((await s.events.listByRun('recent')).length, 2, 'a recent run keeps its events');
    assert.equal((await s.maintenance.prune('runs', CRITERIA, 10)).rows, 0, 'a pruned run is not pruned again');
  });

  test('runs: a batch of finished runs without events removes 0 rows, says how many runs it dealt with and is not done while more remain', async (s) => {
    for (let i = 0; i < 3; i++)
      await s.runs.insert(runRecord({ id: `e${i}`, status: 'succeeded', endedAt: OLD + i, updatedAt: OLD }));
    await finishedRun(s, 'full', OLD + DAY);
    const first = await s.maintenance.prune('runs', CRITERIA, 2);
    assert.deepEqual({ rows: first.rows, done: first.done, items: first.items }, { rows: 0, done: false, items: 2 });
    const { total } = await pruneAll(s, 'runs', CRITERIA, 2);
    assert.equal(total.rows, 5, 'the run with events is reached');
  });

  test('runs: a run that has not ended is never pruned', async (s) => {
    await s.runs.insert(runRecord({ id: 'going', status: 'running', updatedAt: OLD }));
    await s.events.append({ runId: 'going', type: 'x', at: OLD, data: {} } as never);
    await s.runs.insert(runRecord({ id: 'waiting', status: 'waiting', updatedAt: OLD }));
    assert.deepEqual(await s.maintenance.estimate('runs', { now: NOW }), { rows: 0, bytes: 0 });
    assert.equal((await s.maintenance.prune('runs', { now: NOW }, 10)).rows, 0);
    assert.equal((await s.events.listByRun('going')).length, 1);
  });

  test('runs: a finished run with a running or unknown ledger entry is live; a pending one (a submitted download) does not block it', async (s) => {
    for (const [i, state] of (['running', 'unknown'] as const).entries()) {
      await finishedRun(s, `r${i}`);
      await s.ledger.insert(ledgerEntry({ key: `k${i}`, runId: `r${i}`, state }));
    }
    await finishedRun(s, 'submitted');
    await s.ledger.insert(ledgerEntry({ key: 'kp', runId: 'submitted', state: 'pending' }));
    await finishedRun(s, 'settled');
    await s.ledger.insert(ledgerEntry({ key: 'ks', runId: 'settled', state: 'succeeded', settledAt: OLD }));
    await estimateThenPrune(s, 'runs', CRITERIA);
    for (let i = 0; i < 2; i++) assert.equal((await s.events.listByRun(`r${i}`)).length, 2);
    assert.equal((await s.events.listByRun('submitted')).length, 0, 'pending is the normal end state of a submit');
    assert.equal((await s.ledger.get('kp'))?.state, 'pending', 'the pending entry itself stays');
    assert.equal((await s.events.listByRun('settled')).length, 0);
  });

  test('runs: a finished run with an open or awaiting_user decision about it is live', async (s) => {
    await finishedRun(s, 'asks');
    await s.decisions.insert(decision({ id: 'd1', dedupeKey: 'k1', subjectId: 'asks', status: 'awaiting_user' }));
    await finishedRun(s, 'answered');
    await s.decisions.insert(decision({ id: 'd2', dedupeKey: 'k2', subjectId: 'answered', status: 'resolved' }));
    await estimateThenPrune(s, 'runs', CRITERIA);
    assert.equal((await s.events.listByRun('asks')).length, 2);
    assert.equal((await s.events.listByRun('answered')).length, 0);
  });

  test('runs: a finished run with a child run still going is live', async (s) => {
    await finishedRun(s, 'parent');
    await s.runs.insert(runRecord({ id: 'child', status: 'running', parentRunId: 'parent', depth: 1 }));
    await estimateThenPrune(s, 'runs', CRITERIA);
    assert.equal((await s.events.listByRun('parent')).length, 2);
    await s.runs.patch('child', { status: 'succeeded', endedAt: NOW - DAY });
    await estimateThenPrune(s, 'runs', CRITERIA);
    assert.equal((await s.events.listByRun('parent')).length, 0);
  });

  test('runs: keepNewest keeps the newest finished runs by end time, batches end with done', async (s) => {
    for (let i = 0; i < 5; i++) await finishedRun(s, `r${i}`, OLD + i * DAY);
    const removed = await estimateThenPrune(s, 'runs', { now: NOW, keepNewest: 2 }, 1);
    assert.equal(removed.rows, 3 * 5);
    for (let i = 0; i < 5; i++) assert.equal((await s.events.listByRun(`r${i}`)).length, i >= 3 ? 2 : 0, `run r${i}`);
  });

  test('runReports: removes the run rows of finished runs (pruned or not) with what runs removes; live runs stay', async (s) => {
    await finishedRun(s, 'a');
    await finishedRun(s, 'b', OLD + DAY);
    await s.maintenance.prune('runs', { now: NOW, before: OLD + 1 }, 10);
    await finishedRun(s, 'live');
    await s.ledger.insert(ledgerEntry({ key: 'k', runId: 'live', state: 'running' }));
    await finishedRun(s, 'submitted');
    await s.ledger.insert(ledgerEntry({ key: 'kp', runId: 'submitted', state: 'pending' }));
    await finishedRun(s, 'new', NOW - DAY);
    const removed = await estimateThenPrune(s, 'runReports', CRITERIA);
    assert.equal(removed.rows, 2 + 5 + 6);
    assert.equal(await s.runs.get('submitted'), undefined, 'a pending ledger entry does not keep the run row');
    assert.equal(await s.runs.get('a'), undefined);
    assert.equal(await s.runs.get('b'), undefined);
    assert.ok(await s.runs.get('live'));
    assert.ok(await s.runs.get('new'));
  });

  test('approvals: decided and expired approvals go; live ones and those a live ledger entry names stay', async (s) => {
    await s.approvals.insert(approval({ id: 'rejected', status: 'rejected', decidedAt: OLD, expiresAt: NOW + DAY }));
    await s.approvals.insert(approval({ id: 'consumed', status: 'consumed', consumedAt: OLD, expiresAt: NOW + DAY }));
    await s.approvals.insert(approval({ id: 'expired', status: 'requested', expiresAt: OLD }));
    await s.approvals.insert(approval({ id: 'pending', status: 'approved', decidedAt: OLD, expiresAt: NOW + DAY }));
    await s.approvals.insert(approval({ id: 'in-use', status: 'consumed', consumedAt: OLD, expiresAt: OLD }));
    await s.ledger.insert(ledgerEntry({ key: 'k', approvalId: 'in-use', state: 'unknown' }));
    const removed = await estimateThenPrune(s, 'approvals', CRITERIA, 1);
    assert.equal(removed.rows, 3);
    assert.ok(await s.approvals.get('pending'), 'an approved approval not yet expired is live');
    assert.ok(await s.approvals.get('in-use'), 'an approval a live ledger entry names stays');
    assert.equal(await s.approvals.get('expired'), undefined);
  });

  test('plans: a plan stays while any approval row of it remains (approvals go first); others older than `before` go', async (s) => {
    await s.plans.insert(plan({ id: 'bound', updatedAt: OLD, createdBy: 'user:u' }));
    await s.approvals.insert(approval({ id: 'a1', planId: 'bound', status: 'requested', expiresAt: NOW + DAY }));
    await s.plans.insert(plan({ id: 'expired', updatedAt: OLD, createdBy: 'user:u' }));
    await s.approvals.insert(approval({ id: 'a2', planId: 'expired', status: 'approved', expiresAt: OLD }));
    await s.plans.insert(plan({ id: 'rejected', updatedAt: OLD, createdBy: 'user:u' }));
    await s.approvals.insert(
      approval({ id: 'a3', planId: 'rejected', status: 'rejected', decidedAt: OLD, expiresAt: NOW + DAY }),
    );
    await s.plans.insert(plan({ id: 'free', updatedAt: OLD, createdBy: 'user:u' }));
    await s.plans.insert(plan({ id: 'fresh', updatedAt: NOW, createdBy: 'user:u' }));
    const removed = await estimateThenPrune(s, 'plans', CRITERIA);
    assert.equal(removed.rows, 1);
    for (const id of ['bound', 'expired', 'rejected', 'fresh']) assert.ok(await s.plans.get(id), id);
    assert.equal(await s.plans.get('free'), undefined);
    await estimateThenPrune(s, 'approvals', CRITERIA);
    await estimateThenPrune(s, 'plans', CRITERIA);
    assert.ok(await s.plans.get('bound'), 'its approval is still live');
    assert.equal(await s.plans.get('expired'), undefined, 'gone once its approval was pruned');
    assert.equal(await s.plans.get('rejected'), undefined, 'gone once its approval was pruned');
  });

  test('plans: a plan a run created (agent:<runId>) stays while that run is not terminal, even with maxCount 1', async (s) => {
    await s.runs.insert(runRecord({ id: 'going', status: 'running', updatedAt: OLD }));
    await s.runs.insert(runRecord({ id: 'ended', status: 'succeeded', endedAt: OLD, updatedAt: OLD }));
    await s.plans.insert(plan({ id: 'p-going', updatedAt: OLD, createdBy: 'agent:going' }));
    await s.plans.insert(plan({ id: 'p-ended', updatedAt: OLD, createdBy: 'agent:ended' }));
    await s.plans.insert(plan({ id: 'p-gone-run', updatedAt: OLD, createdBy: 'agent:no-such-run' }));
    await s.plans.insert(plan({ id: 'p-newest', updatedAt: NOW - DAY, createdBy: 'user:u' }));
    const removed = await estimateThenPrune(s, 'plans', { now: NOW, keepNewest: 1 });
    assert.equal(removed.rows, 2);
    assert.ok(await s.plans.get('p-going'), 'the run between plan and submit still needs it');
    assert.ok(await s.plans.get('p-newest'));
    assert.equal(await s.plans.get('p-ended'), undefined);
    await s.runs.patch('going', { status: 'failed', endedAt: NOW - DAY });
    await estimateThenPrune(s, 'plans', { now: NOW, keepNewest: 1 });
    assert.equal(await s.plans.get('p-going'), undefined, 'gone once its run ended');
  });

  test('decisions: resolved and dismissed decisions go by resolution time; open ones stay', async (s) => {
    await s.decisions.insert(
      decision({ id: 'd1', dedupeKey: 'k1', status: 'resolved', resolvedAt: OLD, updatedAt: OLD }),
    );
    await s.decisions.insert(decision({ id: 'd2', dedupeKey: 'k2', status: 'dismissed', updatedAt: OLD }));
    await s.decisions.insert(decision({ id: 'd3', dedupeKey: 'k3', status: 'open', updatedAt: OLD }));
    await s.decisions.insert(
      decision({ id: 'd4', dedupeKey: 'k4', status: 'resolved', resolvedAt: NOW, updatedAt: OLD }),
    );
    const removed = await estimateThenPrune(s, 'decisions', CRITERIA);
    assert.equal(removed.rows, 2);
    assert.deepEqual((await s.decisions.list()).map((d) => d.id).sort(), ['d3', 'd4']);
  });

  test('ledger: settled entries go by settlement time; running, unknown and pending entries never', async (s) => {
    await s.ledger.insert(ledgerEntry({ key: 'ok', state: 'succeeded', settledAt: OLD }));
    await s.ledger.insert(ledgerEntry({ key: 'bad', state: 'failed', settledAt: OLD }));
    await s.ledger.insert(ledgerEntry({ key: 'new', state: 'succeeded', settledAt: NOW }));
    for (const state of ['running', 'unknown', 'pending'] as const)
      await s.ledger.insert(ledgerEntry({ key: state, state, settledAt: state === 'pending' ? OLD : null }));
    const removed = await estimateThenPrune(s, 'ledger', CRITERIA, 1);
    assert.equal(removed.rows, 2);
    for (const key of ['new', 'running', 'unknown', 'pending']) assert.ok(await s.ledger.get(key), key);
  });

  test('ledger: a settled entry of a run that is not terminal stays (the same call in that run must not run again)', async (s) => {
    await s.runs.insert(runRecord({ id: 'going', status: 'running', updatedAt: OLD }));
    await s.runs.insert(runRecord({ id: 'ended', status: 'succeeded', endedAt: OLD, updatedAt: OLD }));
    await s.ledger.insert(ledgerEntry({ key: 'live', runId: 'going', state: 'succeeded', settledAt: OLD }));
    await s.ledger.insert(ledgerEntry({ key: 'done', runId: 'ended', state: 'succeeded', settledAt: OLD }));
    await s.ledger.insert(ledgerEntry({ key: 'orphan', runId: 'no-such-run', state: 'failed', settledAt: OLD }));
    const removed = await estimateThenPrune(s, 'ledger', { now: NOW, keepNewest: 1 }, 1);
    assert.equal(removed.rows, 1, 'keepNewest counts eligible entries only');
    assert.ok(await s.ledger.get('live'));
    await estimateThenPrune(s, 'ledger', CRITERIA, 1);
    assert.ok(await s.ledger.get('live'));
    assert.equal(await s.ledger.get('done'), undefined);
    assert.equal(await s.ledger.get('orphan'), undefined);
  });

  test('huge limits (keepNewest 1e300 or 2**63, before far before the epoch) prune nothing and do not fail', async (s) => {
    await finishedRun(s, 'r');
    await s.plans.insert(plan({ id: 'p', updatedAt: OLD, createdBy: 'user:u' }));
    await s.audit.append(auditRow({ id: 'a', at: OLD }));
    await ticks(s, 'sch', [OLD, OLD + HOUR]);
    const criteria: PruneCriteria[] = [
      { now: NOW, keepNewest: 1e300 },
      { now: NOW, keepNewest: 2 ** 63 },
      { now: NOW, before: NOW - 1e12 * DAY },
    ];
    for (const c of criteria)
      for (const kind of [
        'runs',
        'runReports',
        'audit',
        'approvals',
        'plans',
        'decisions',
        'grantUsage',
        'ledger',
        'scheduleTicks',
      ] as const) {
        assert.deepEqual(await s.maintenance.estimate(kind, c), { rows: 0, bytes: 0 }, `${kind} ${JSON.stringify(c)}`);
        assert.equal((await s.maintenance.prune(kind, c, 10)).rows, 0, `${kind} ${JSON.stringify(c)}`);
      }
    assert.ok(await s.plans.get('p'));
    assert.deepEqual(await tickTimes(s, 'sch'), [OLD, OLD + HOUR]);
  });

  test('scheduleTicks: records handled before `before` go in batches across schedules; each schedule keeps its newest record however old', async (s) => {
    await ticks(
      s,
      'sch-a',
      [0, 1, 2, 3, 4].map((i) => OLD + i * HOUR),
    );
    await ticks(s, 'sch-b', [OLD]);
    await ticks(s, 'sch-c', [OLD, OLD + HOUR, NOW - 10 * DAY]);
    const estimate = await s.maintenance.estimate('scheduleTicks', CRITERIA);
    assert.equal(estimate.rows, 4 + 0 + 2);
    assert.ok(estimate.bytes > 0);
    const { total, batches } = await pruneAll(s, 'scheduleTicks', CRITERIA, 4);
    assert.deepEqual(total, estimate);
    assert.equal(batches, 2, 'four records, then two');
    assert.deepEqual(await tickTimes(s, 'sch-a'), [OLD + 4 * HOUR], 'the newest stays for the runner and ticks()');
    assert.deepEqual(await tickTimes(s, 'sch-b'), [OLD]);
    assert.deepEqual(await tickTimes(s, 'sch-c'), [NOW - 10 * DAY]);
    assert.deepEqual(await s.maintenance.estimate('scheduleTicks', CRITERIA), { rows: 0, bytes: 0 });
    const again = await s.maintenance.prune('scheduleTicks', CRITERIA, 10);
    assert.deepEqual({ rows: again.rows, done: again.done }, { rows: 0, done: true });
  });

  test('scheduleTicks: a batch exactly as large as what is left says done; one smaller says not done', async (s) => {
    await ticks(
      s,
      'sch-a',
      [0, 1, 2, 3].map((i) => OLD + i * HOUR),
    );
    await ticks(
      s,
      'sch-b',
      [0, 1, 2, 3].map((i) => OLD + i * HOUR),
    );
    assert.equal((await pruneAll(s, 'scheduleTicks', CRITERIA, 6)).batches, 1, 'six removable: one batch of six');
    await ticks(s, 'sch-a', [OLD - 2 * HOUR, OLD - HOUR]);
    await ticks(s, 'sch-b', [OLD - HOUR]);
    const first = await s.maintenance.prune('scheduleTicks', CRITERIA, 2);
    assert.deepEqual({ rows: first.rows, done: first.done }, { rows: 2, done: false });
    const second = await s.maintenance.prune('scheduleTicks', CRITERIA, 2);
    assert.deepEqual({ rows: second.rows, done: second.done }, { rows: 1, done: true });
  });

  test('scheduleTicks: the age is handledAt (a batch of missed ticks recorded late stays); keepNewest counts per schedule', async (s) => {
    await ticks(s, 'sch-a', [[OLD, NOW - 2 * DAY], OLD + HOUR, NOW - 3 * DAY]);
    const removed = await estimateThenPrune(s, 'scheduleTicks', CRITERIA);
    assert.equal(removed.rows, 1);
    assert.deepEqual(await tickTimes(s, 'sch-a'), [OLD, NOW - 3 * DAY]);
    await ticks(
      s,
      'sch-b',
      [0, 1, 2, 3].map((i) => NOW - 5 * DAY + i * HOUR),
    );
    await ticks(s, 'sch-c', [NOW - 5 * DAY, NOW - 4 * DAY]);
    const byCount = await estimateThenPrune(s, 'scheduleTicks', { now: NOW, keepNewest: 2 }, 1);
    assert.equal(byCount.rows, 2, 'sch-b keeps its two newest; sch-a and sch-c have two each');
    assert.deepEqual(await tickTimes(s, 'sch-b'), [NOW - 5 * DAY + 2 * HOUR, NOW - 5 * DAY + 3 * HOUR]);
    assert.equal((await tickTimes(s, 'sch-a')).length, 2);
    assert.equal((await tickTimes(s, 'sch-c')).length, 2);
  });

  test('scheduleTicks: records of ticks on the current or the previous UTC day stay whatever the limits (the daily budgets count them)', async (s) => {
    const today = Math.floor(NOW / DAY) * DAY;
    const yesterday = today - DAY;
    await ticks(s, 'sch', [yesterday - 2 * HOUR, yesterday - 1, yesterday, yesterday + HOUR, today + HOUR]);
    const fired = await s.schedules.firedBetween('sch', yesterday, today);
    const removed = await estimateThenPrune(s, 'scheduleTicks', { now: NOW, before: NOW, keepNewest: 1 });
    assert.equal(removed.rows, 2, 'only the two of the day before yesterday');
    assert.deepEqual(await tickTimes(s, 'sch'), [yesterday, yesterday + HOUR, today + HOUR]);
    assert.deepEqual(await s.schedules.firedBetween('sch', yesterday, today), fired);
  });

  test('grantUsage: day counters and budget counters of periods over before `before` go; the current ones stay', async (s) => {
    const before = Date.UTC(2027, 2, 15);
    await s.grantUsage.add('g', Date.UTC(2027, 2, 13), 1, 1);
    await s.grantUsage.add('g', Date.UTC(2027, 2, 14), 1, 1);
    await s.grantUsage.add('g', Date.UTC(2027, 2, 15), 1, 1);
    const zero = { runs: 1, modelCalls: 0, tokens: 0, costUsd: 0 };
    await s.budgetUsage.add('u', 'day', Date.UTC(2027, 2, 14), zero);
    await s.budgetUsage.add('u', 'day', Date.UTC(2027, 2, 15), zero);
    await s.budgetUsage.add('u', 'month', Date.UTC(2027, 1, 1), zero);
    await s.budgetUsage.add('u', 'month', Date.UTC(2027, 2, 1), zero);
    const removed = await estimateThenPrune(s, 'grantUsage', { now: Date.UTC(2027, 5, 1), before }, 2);
    assert.equal(removed.rows, 4);
    assert.equal((await s.grantUsage.get('g', Date.UTC(2027, 2, 15))).invocations, 1);
    assert.equal((await s.grantUsage.get('g', Date.UTC(2027, 2, 14))).invocations, 0);
    assert.equal((await s.budgetUsage.get('u', 'month', Date.UTC(2027, 2, 1))).runs, 1);
    assert.equal((await s.budgetUsage.get('u', 'month', Date.UTC(2027, 1, 1))).runs, 0);
  });

  test('audit: the oldest rows go as a prefix, keepNewest rows stay, each batch appends an audit.pruned checkpoint', async (s) => {
    for (let i = 1; i <= 6; i++) await s.audit.append(auditRow({ id: `a${i}`, at: OLD + i }));
    await s.audit.append(auditRow({ id: 'late', at: NOW - DAY }));
    await s.audit.append(auditRow({ id: 'old-again', at: OLD }));
    const criteria = { ...CRITERIA, keepNewest: 2 };
    const estimate = await s.maintenance.estimate('audit', criteria);
    assert.equal(estimate.rows, 6, 'the prefix stops at the first row not older than before');
    const { total, batches } = await pruneAll(s, 'audit', criteria, 4);
    assert.deepEqual(total, estimate);
    assert.equal(batches, 2);
    const rows = await s.audit.list({ limit: 100 });
    assert.deepEqual(
      rows.map((r) => r.id),
      ['late', 'old-again', 'audit.pruned:4', 'audit.pruned:6'],
    );
    const checkpoint = rows[2]!;
    assert.equal(checkpoint.action, 'audit.pruned');
    assert.equal(checkpoint.actor, 'system:maintenance');
    assert.equal(checkpoint.capabilityId, 'maintenance.prune');
    assert.equal(checkpoint.invocationId, 'maintenance.prune:4');
    assert.equal(checkpoint.outcome, 'succeeded');
    const summary = JSON.parse(checkpoint.inputSummary) as Record<string, unknown>;
    assert.deepEqual(Object.keys(summary), ['firstSeq', 'headHash', 'rows', 'throughSeq']);
    assert.equal(summary.firstSeq, 1);
    assert.equal(summary.throughSeq, 4);
    assert.equal(summary.rows, 4);
    assert.deepEqual(await s.maintenance.estimate('audit', criteria), { rows: 0, bytes: 0 });
  });

  test('audit: without before and keepNewest, every row older than now goes and the newest checkpoint stays', async (s) => {
    for (let i = 1; i <= 3; i++) await s.audit.append(auditRow({ id: `a${i}`, at: OLD + i }));
    await pruneAll(s, 'audit', { now: NOW }, 2);
    assert.deepEqual(
      (await s.audit.list()).map((r) => r.id),
      ['audit.pruned:2', 'audit.pruned:3'],
      'checkpoints written at now are not removed by the same prune, so it ends',
    );
    await pruneAll(s, 'audit', { now: NOW + 1 }, 2);
    assert.deepEqual(
      (await s.audit.list()).map((r) => r.action),
      ['audit.pruned'],
      'a later prune replaces the checkpoint by a newer one',
    );
  });

  test('a failed transaction around prune keeps everything (a batch is all or nothing)', async (s) => {
    await finishedRun(s, 'r');
    await ticks(s, 'sch', [OLD, OLD + HOUR, OLD + 2 * HOUR]);
    await assert.rejects(
      s.transaction(async (tx) => {
        const batch = await tx.maintenance.prune('runs', CRITERIA, 10);
        assert.equal(batch.rows, 5);
        assert.equal((await tx.maintenance.prune('scheduleTicks', CRITERIA, 10)).rows, 2);
        assert.deepEqual(await tickTimes(tx, 'sch'), [OLD + 2 * HOUR]);
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal((await s.events.listByRun('r')).length, 2);
    assert.equal((await s.messages.list('r')).length, 2);
    assert.deepEqual(await tickTimes(s, 'sch'), [OLD, OLD + HOUR, OLD + 2 * HOUR]);
  });

  test('usage counts rows and content bytes per kind', async (s) => {
    await finishedRun(s, 'r');
    await s.audit.append(auditRow({ id: 'a' }));
    await ticks(s, 'sch', [OLD, OLD + HOUR]);
    const usage = await s.maintenance.usage();
    assert.equal(usage.runs.rows, 5);
    assert.equal(usage.runReports.rows, 1);
    assert.equal(usage.audit.rows, 1);
    assert.equal(usage.ledger.rows, 0);
    assert.equal(usage.scheduleTicks.rows, 2);
    assert.ok(usage.runs.bytes > 0 && usage.runReports.bytes > 0 && usage.audit.bytes > 0);
    assert.ok(usage.scheduleTicks.bytes > 0);
  });

  test('leases: one owner at a time, renewal by the holder, takeover after expiry, release only by the holder', async (s) => {
    const m = s.maintenance;
    assert.equal(await m.acquireLease('maintenance', 'a', 1_000, 500), true);
    assert.equal(await m.acquireLease('maintenance', 'b', 1_200, 500), false, 'held by a');
    assert.equal(await m.acquireLease('maintenance', 'a', 1_400, 500), true, 'a renews until 1900');
    assert.equal(await m.acquireLease('maintenance', 'b', 1_600, 500), false, 'the renewal holds');
    assert.equal(await m.acquireLease('other', 'b', 1_600, 500), true, 'leases are by name');
    assert.equal(await m.releaseLease('maintenance', 'b'), false, 'b does not hold it');
    assert.equal(await m.acquireLease('maintenance', 'b', 1_900, 500), true, 'expired at 1900: b takes over');
    assert.equal(await m.releaseLease('maintenance', 'a'), false, 'a lost it');
    assert.equal(await m.releaseLease('maintenance', 'b'), true);
    assert.equal(await m.acquireLease('maintenance', 'a', 1_901, 500), true, 'free after release');
  });
}
