/** Conformance cases for runs (`storage.runs`) apart from leasing: round trip, patch, listing, totals. */
import assert from 'node:assert/strict';
import type { RunRecord } from '../../core/run-records';
import { DAY, runRecord, SAMPLE_ERROR_CODES, UNICODE } from './fixtures';
import { type ConformanceCase, ids, insertRuns } from './helpers';

/** Registers the run cases: round trip, unique ids, patch (also guarded by the lease owner), listing, totals. */
export function runsCases(test: ConformanceCase): void {
  test('runs round-trip every field (nulls, JSON budgets, usage, plan, report and error, booleans, unicode); stored runs are copies', async (s) => {
    const bare = runRecord({ id: 'run-bare' });
    const full = runRecord({
      id: `run-${UNICODE}`,
      goal: UNICODE,
      mode: 'plan_only',
      status: 'budget_exceeded',
      step: 'finalize',
      startedBy: 'apikey:key-1',
      sessionId: `session-${UNICODE}`,
      capabilityAllowlist: ['media.search', UNICODE],
      budgets: { maxToolCalls: 20, maxCostUsdPerRun: 0.75, maxDurationSec: null },
      usage: { toolCalls: 21, inputTokens: 12_345, outputTokens: 678, costUsd: 0.8125, modelCalls: 9 },
      checklist: {
        goal: UNICODE,
        steps: [
          { title: 'search', status: 'completed', evidence: 'found 3' },
          { title: 'x', status: 'blocked', evidence: null },
        ],
      },
      report: { outcome: 'failed', facts: [1, 2.5, true, null, { deep: [UNICODE] }] },
      finalText: UNICODE,
      error: { code: SAMPLE_ERROR_CODES.budget, message: UNICODE },
      abortRequested: true,
      abortReason: UNICODE,
      wakeRequested: true,
      leaseOwner: 'worker-π',
      leaseExpiresAt: 1_700_000_030_000,
      notBefore: 1_700_000_060_000,
      createdAt: 1_700_000_000_001,
      updatedAt: 1_700_000_000_002,
      startedAt: 1_700_000_000_003,
      endedAt: 1_700_000_000_004,
    });
    await s.runs.insert(bare);
    await s.runs.insert(full);
    assert.deepEqual(await s.runs.get('run-bare'), bare);
    assert.deepEqual(await s.runs.get(full.id), full);
    assert.equal(await s.runs.get('missing'), undefined);
    const primitives = runRecord({ id: 'run-prim', budgets: 'none', checklist: 'just text', report: 42 });
    await s.runs.insert(primitives);
    assert.deepEqual(await s.runs.get('run-prim'), primitives);
    full.capabilityAllowlist!.push('mutated');
    const read = await s.runs.get(`run-${UNICODE}`);
    assert.deepEqual(read?.capabilityAllowlist, ['media.search', UNICODE]);
    read!.usage.toolCalls = 999;
    assert.equal((await s.runs.get(`run-${UNICODE}`))?.usage.toolCalls, 21);
  });

  test('runs keep forkedFrom (a fork: the run and event it comes from), absent on every other run; a patch never writes it', async (s) => {
    const fork = runRecord({ id: 'run-fork', forkedFrom: { runId: `run-${UNICODE}`, atSeq: 12 } });
    const plain = runRecord({ id: 'run-plain' });
    await s.runs.insert(fork);
    await s.runs.insert(plain);
    assert.deepEqual(await s.runs.get('run-fork'), fork);
    const read = await s.runs.get('run-plain');
    assert.equal(read !== undefined && 'forkedFrom' in read, false);
    const patched = await s.runs.patch('run-plain', {
      goal: 'changed',
      forkedFrom: { runId: 'x', atSeq: 1 },
    } as unknown as Parameters<typeof s.runs.patch>[1]);
    assert.equal(patched !== undefined && 'forkedFrom' in patched, false);
    assert.equal('forkedFrom' in (await s.runs.get('run-plain'))!, false);
    const patchedFork = await s.runs.patch('run-fork', { status: 'running' });
    assert.deepEqual(patchedFork?.forkedFrom, { runId: `run-${UNICODE}`, atSeq: 12 });
    const listed = await s.runs.list({ limit: 10 });
    assert.deepEqual(listed.find((r) => r.id === 'run-fork')?.forkedFrom, { runId: `run-${UNICODE}`, atSeq: 12 });
    assert.equal(
      listed
        .filter((r) => 'forkedFrom' in r)
        .map((r) => r.id)
        .join(','),
      'run-fork',
    );
  });

  test('runs insert of an existing id rejects and keeps the original', async (s) => {
    await s.runs.insert(runRecord());
    await assert.rejects(s.runs.insert(runRecord({ goal: 'second' })));
    assert.equal((await s.runs.get('run-1'))?.goal, 'add a film');
  });

  test('runs patch applies only the given fields (undefined fields and id ignored) and returns the updated run; a missing run gives undefined', async (s) => {
    const run = runRecord({ sessionId: 's1', finalText: 'keep' });
    await s.runs.insert(run);
    const patch = {
      status: 'running' as const,
      startedAt: 5,
      updatedAt: 5,
      usage: { ...run.usage, toolCalls: 2, costUsd: 0.25 },
      checklist: { goal: UNICODE },
      wakeRequested: true,
    };
    const updated = await s.runs.patch('run-1', {
      ...patch,
      finalText: undefined,
      id: 'other',
    } as Partial<RunRecord>);
    const expected = { ...run, ...patch };
    assert.deepEqual(updated, expected);
    assert.deepEqual(await s.runs.get('run-1'), expected);
    assert.equal(await s.runs.get('other'), undefined);
    // null is a value: it clears the field
    assert.deepEqual(await s.runs.patch('run-1', { sessionId: null, checklist: null, wakeRequested: false }), {
      ...expected,
      sessionId: null,
      checklist: null,
      wakeRequested: false,
    });
    assert.deepEqual(await s.runs.patch('run-1', {}), {
      ...expected,
      sessionId: null,
      checklist: null,
      wakeRequested: false,
    });
    assert.equal(await s.runs.patch('missing', { status: 'failed' }), undefined);
    assert.equal(await s.runs.get('missing'), undefined);
  });

  test('runs patch with expectLeaseOwner applies only while that worker holds the lease', async (s) => {
    await s.runs.insert(runRecord());
    assert.equal(await s.runs.patch('run-1', { status: 'running' }, 'w1'), undefined);
    assert.equal((await s.runs.get('run-1'))?.status, 'queued');
    assert.equal((await s.runs.acquireLease('w1', 100, 1_000))?.id, 'run-1');
    assert.equal(await s.runs.patch('run-1', { status: 'running' }, 'w2'), undefined);
    assert.equal(
      (await s.runs.patch('run-1', { status: 'running', step: 'goal_settled' }, 'w1'))?.step,
      'goal_settled',
    );
    // once another worker took over, the old owner can no longer write
    assert.equal((await s.runs.acquireLease('w2', 1_100, 1_000))?.leaseOwner, 'w2');
    assert.equal(await s.runs.patch('run-1', { status: 'failed' }, 'w1'), undefined);
    assert.equal((await s.runs.get('run-1'))?.status, 'running');
    assert.equal((await s.runs.patch('run-1', { status: 'succeeded', endedAt: 9 }, 'w2'))?.status, 'succeeded');
    assert.equal(await s.runs.patch('missing', { status: 'failed' }, 'w2'), undefined);
  });

  test('runs list is newest first (createdAt, then id), filters by status, session and starter, and honours limit', async (s) => {
    await insertRuns(
      s,
      { id: 'r1', createdAt: 1, sessionId: 'a' },
      { id: 'r3', createdAt: 3, status: 'succeeded', sessionId: 'b' },
      { id: 'r2b', createdAt: 2, sessionId: 'a' },
      { id: 'r2a', createdAt: 2, status: 'waiting' },
    );
    assert.deepEqual(ids(await s.runs.list()), ['r3', 'r2b', 'r2a', 'r1']);
    assert.deepEqual(ids(await s.runs.list({ status: 'queued' })), ['r2b', 'r1']);
    assert.deepEqual(ids(await s.runs.list({ sessionId: 'a' })), ['r2b', 'r1']);
    assert.deepEqual(ids(await s.runs.list({ sessionId: 'a', status: 'succeeded' })), []);
    assert.deepEqual(ids(await s.runs.list({ limit: 2 })), ['r3', 'r2b']);
    await s.runs.insert(runRecord({ id: 'r4', createdAt: 4, startedBy: 'user:bob' }));
    assert.deepEqual(ids(await s.runs.list({ startedBy: 'user:bob' })), ['r4']);
    assert.deepEqual(ids(await s.runs.list({ startedBy: 'user:bob', status: 'succeeded' })), []);
    assert.deepEqual(ids(await s.runs.list({ startedBy: 'user:carol' })), []);
    assert.deepEqual(
      (await s.runs.list({ status: 'succeeded' }))[0],
      runRecord({ id: 'r3', createdAt: 3, status: 'succeeded', sessionId: 'b' }),
    );
  });

  test('totalsBetween counts runs created in [from, to) and sums their usage.costUsd', async (s) => {
    const usage = (costUsd: number) => ({ toolCalls: 1, inputTokens: 1, outputTokens: 1, costUsd, modelCalls: 1 });
    await insertRuns(
      s,
      { id: 'before', createdAt: DAY - 1, usage: usage(100) },
      { id: 'start', createdAt: DAY, usage: usage(0.25), status: 'succeeded' },
      { id: 'mid', createdAt: DAY + 5, usage: usage(1.5), status: 'running' },
      { id: 'free', createdAt: DAY + 6, usage: usage(0) },
      { id: 'end', createdAt: 2 * DAY, usage: usage(1_000) },
    );
    assert.deepEqual(await s.runs.totalsBetween(DAY, 2 * DAY), { runs: 3, costUsd: 1.75 });
    assert.deepEqual(await s.runs.totalsBetween(0, 3 * DAY), { runs: 5, costUsd: 1_101.75 });
    assert.deepEqual(await s.runs.totalsBetween(3 * DAY, 4 * DAY), { runs: 0, costUsd: 0 });
    await s.runs.patch('mid', { usage: usage(2.5) });
    assert.deepEqual(await s.runs.totalsBetween(DAY, 2 * DAY), { runs: 3, costUsd: 2.75 });
  });
}
